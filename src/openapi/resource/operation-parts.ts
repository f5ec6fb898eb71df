// What a resource's operations share: the error responses of reads and writes, and the
// conditional and idempotency request headers.
import { BODY_ERRORS, type ErrorResponse } from '../components.js';

export const READ_ERRORS: Record<string, ErrorResponse> = {
  ...BODY_ERRORS,
  '401': 'Unauthenticated',
  '403': 'Forbidden',
  '429': 'TooManyRequests',
  '500': 'ServerError',
  '503': 'ServiceUnavailable',
};
export const WRITE_ERRORS: Record<string, ErrorResponse> = {
  ...READ_ERRORS,
  '419': 'CsrfMismatch',
  '422': 'ValidationFailed',
};

export const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  description:
    'ETags (`"3"`, `W/"3"`, a comma-separated list) or `*`. On GET and HEAD: 304 when one names the current answer (weak comparison). On PUT, PATCH and DELETE: 412 when one names the record (`*`: it exists).',
  schema: { type: 'string' },
};
export const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  description:
    'ETags or `*`: the request goes ahead only when one is the current ETag (strong comparison: a weak tag never matches), else 412 with the current `ETag`. Checked inside the write, on the locked record.',
  schema: { type: 'string' },
};
export const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    "1 to 255 printable ASCII characters, the caller's own (per token, or per user in session mode). A retry with the same key and body replays the first answer (`Idempotent-Replayed: true`); another body is a 422; while the first still runs, a 409. Kept IDEMPOTENCY_KEY_TTL_SECONDS (24 hours by default).",
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};
export const NOT_MODIFIED = (etag: Record<string, unknown>) => ({
  '304': {
    description: 'Not modified: `If-None-Match` names the current ETag. No body.',
    headers: etag,
  },
});
export const CONDITIONAL_ERRORS = { '412': 'PreconditionFailed' } as const;
