// An API token as a value object (STYLE.md example 5): `svc_api_` + 32 base62 characters
// (190 random bits) + a 6-character base62 CRC32 of them, so a mistyped or forged token is
// refused without a database read. Only the SHA-256 hash is ever stored.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { sha256Hex } from '../../support/sha256.js';

export const TOKEN_PREFIX = 'svc_api_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const SHAPE = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);

function base62(bytes: Buffer, length: number): string {
  let out = '';
  // Rejection sampling keeps every character uniform (256 = 4 * 62 + 8).
  for (const byte of bytes) {
    if (byte < 248) out += ALPHABET[byte % 62];
    if (out.length === length) return out;
  }
  return out + base62(randomBytes(length), length - out.length);
}

function checksum(random: string): string {
  let n = crc32(random);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i += 1) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function hashToken(plain: string): string {
  return sha256Hex(plain);
}

export interface IssuedToken {
  /** Shown once to whoever issued it, never stored. */
  readonly plain: string;
  readonly hash: string;
}

export function issueToken(): IssuedToken {
  const random = base62(randomBytes(48), RANDOM_LENGTH);
  const plain = `${TOKEN_PREFIX}${random}${checksum(random)}`;
  return { plain, hash: hashToken(plain) };
}

/** The token's hash when it is well formed and its checksum matches, else null. */
export function decodeToken(candidate: string): string | null {
  if (!SHAPE.test(candidate)) return null;
  const body = candidate.slice(TOKEN_PREFIX.length);
  const random = body.slice(0, RANDOM_LENGTH);
  if (checksum(random) !== body.slice(RANDOM_LENGTH)) return null;
  return hashToken(candidate);
}

/** Constant-time comparison of two hex hashes. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
