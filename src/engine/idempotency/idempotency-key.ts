// The Idempotency-Key request header of a create (docs/api.md "Idempotent creates"), and the
// fingerprint of what the request asks for, which a retry with the same key must repeat.
import { createHash } from 'node:crypto';
import { errors } from '../../errors.js';

export const MAX_KEY_LENGTH = 255;
// Visible ASCII and the space: what a header carries without encoding (RFC 9110 field-vchar).
const KEY = /^[\x20-\x7E]+$/;

/** The key, null when the header is absent; a 422 under `Idempotency-Key` when it is unusable. */
export function readIdempotencyKey(header: string | readonly string[] | undefined): string | null {
  if (header === undefined) return null;
  const key = typeof header === 'string' ? header : header.join(', ');
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !KEY.test(key))
    throw errors.validation({
      'Idempotency-Key': [
        `The Idempotency-Key header must have 1 to ${MAX_KEY_LENGTH} characters, printable ASCII.`,
      ],
    });
  return key;
}

/** Objects with their keys sorted: two bodies that differ only in key order are the same request. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries);
}

/** SHA-256 of the route and the parsed body. */
export function requestFingerprint(route: string, body: unknown): string {
  return createHash('sha256')
    .update(`POST ${route}\n`)
    .update(JSON.stringify(body ?? null, sortedKeys))
    .digest('hex');
}
