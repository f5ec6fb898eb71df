// How a driver request is signed (docs/rest-driver.md "Signed-request driver"), for both sides: the service
// checks with it, `svc driver:query` signs with it.
//
//   X-Svc-Signature = hex HMAC-SHA256(secret, METHOD \n TARGET \n TIMESTAMP \n NONCE \n SHA256HEX(BODY))
//
// TARGET is the request target exactly as sent (DESIGN.md 3.6): the path, plus `?` and the query
// only when there is one, never re-encoded or re-ordered; BODY the raw bytes (empty: the hash of
// the empty string). The comparison is constant time.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../support/sha256.js';

export const HEADER_TIMESTAMP = 'x-svc-timestamp';
export const HEADER_NONCE = 'x-svc-nonce';
export const HEADER_SIGNATURE = 'x-svc-signature';

/** Seconds the timestamp may be away from the server's clock, either way. */
export const MAX_SKEW_SECONDS = 300;
// Visible ASCII, so the nonce reads the same in the header and in the signed text.
const NONCE = /^[\x21-\x7e]{16,128}$/;
const TIMESTAMP = /^\d{1,12}$/;
const SIGNATURE = /^[0-9a-f]{64}$/i;

export interface SignedParts {
  readonly method: string;
  readonly target: string;
  readonly timestamp: string;
  readonly nonce: string;
  readonly body: Uint8Array | string;
}

export function stringToSign(parts: SignedParts): string {
  const bodyHash = sha256Hex(parts.body);
  return `${parts.method.toUpperCase()}\n${parts.target}\n${parts.timestamp}\n${parts.nonce}\n${bodyHash}`;
}

function hmac(secret: string, parts: SignedParts): Buffer {
  return createHmac('sha256', secret).update(stringToSign(parts), 'utf8').digest();
}

/** The three headers of a request signed now with a fresh nonce. */
export function signatureHeaders(
  secret: string,
  request: Omit<SignedParts, 'timestamp' | 'nonce'>,
  nowMs = Date.now(),
): Record<string, string> {
  const parts = {
    ...request,
    timestamp: String(Math.floor(nowMs / 1000)),
    nonce: randomBytes(16).toString('hex'),
  };
  return {
    [HEADER_TIMESTAMP]: parts.timestamp,
    [HEADER_NONCE]: parts.nonce,
    [HEADER_SIGNATURE]: hmac(secret, parts).toString('hex'),
  };
}

export type SignatureCheck =
  | {
      readonly ok: true;
      readonly nonce: string /** Until when the nonce must be remembered. */;
      readonly nonceExpiresAt: number;
    }
  | { readonly ok: false; readonly reason: string };

type HeaderValue = string | string[] | undefined;

/** A single header value; a repeated header is as good as missing. */
function single(value: HeaderValue): string | null {
  return typeof value === 'string' ? value : null;
}

/** Everything but the nonce's first use, which needs the nonce store (driver-auth.ts). */
export function checkSignature(
  secret: string,
  request: {
    readonly method: string;
    readonly target: string;
    readonly body: Uint8Array;
    readonly headers: Readonly<Record<string, HeaderValue>>;
  },
  nowMs: number,
): SignatureCheck {
  const timestamp = single(request.headers[HEADER_TIMESTAMP]);
  const nonce = single(request.headers[HEADER_NONCE]);
  const signature = single(request.headers[HEADER_SIGNATURE]);
  if (timestamp === null || nonce === null || signature === null) {
    return { ok: false, reason: 'Missing X-Svc-Timestamp, X-Svc-Nonce or X-Svc-Signature.' };
  }
  if (!TIMESTAMP.test(timestamp))
    return { ok: false, reason: 'X-Svc-Timestamp must be unix seconds.' };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > MAX_SKEW_SECONDS) {
    return {
      ok: false,
      reason: `X-Svc-Timestamp is more than ${MAX_SKEW_SECONDS} seconds away from the server time.`,
    };
  }
  if (!NONCE.test(nonce))
    return { ok: false, reason: 'X-Svc-Nonce must be 16 to 128 visible ASCII characters.' };
  const expected = hmac(secret, {
    method: request.method,
    target: request.target,
    timestamp,
    nonce,
    body: request.body,
  });
  // Both 32 bytes once the shape is checked, as timingSafeEqual requires.
  if (!SIGNATURE.test(signature) || !timingSafeEqual(Buffer.from(signature, 'hex'), expected)) {
    return { ok: false, reason: 'Invalid signature.' };
  }
  return { ok: true, nonce, nonceExpiresAt: (Number(timestamp) + MAX_SKEW_SECONDS) * 1000 };
}
