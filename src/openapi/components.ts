// The parts of the document every operation shares: security schemes, the error bodies of
// SPEC.md 7 and DESIGN.md 3.5 (errors.ts makes them; these say their shape) and the list meta.
import type { Schema } from './json-schema.js';

const text = { type: 'string' };
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema) => ({ 'application/json': { schema } });

export const SESSION_COOKIE = 'svc_session';

export const securitySchemes = {
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API token (`svc_api_...`) issued with `npx svc token:create` or on the Tokens screen. It carries one user and one unit; operations list the abilities it needs (also in `x-abilities`).',
  },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'The session cookie that `POST /app/login` sets (the admin front end).',
  },
  driverSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Svc-Signature',
    description:
      'The signed-request driver: an HMAC-SHA256 of the request with REST_DRIVER_SECRET, with `X-Svc-Timestamp` and `X-Svc-Nonce` (docs/rest-driver.md).',
  },
  csrf: {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRF-TOKEN',
    description:
      'In session mode, every write (POST, PUT, PATCH, DELETE) sends the `csrf_token` of the login or session answer here (or `X-XSRF-TOKEN` echoing the `XSRF-TOKEN` cookie).',
  },
};

const nullableInteger = { type: ['integer', 'null'] };

export const schemas: Record<string, Schema> = {
  Change: {
    type: 'object',
    description:
      'One committed write of one record (DESIGN.md 3.9). `changes`: on create every stored field under `fields`, on update only the fields whose value changed, on delete `{}`; each detail relation with a changed row appears as `{created: [rows], updated: [rows], deleted: [ids]}`. Hidden fields never appear.',
    properties: {
      seq: {
        type: 'integer',
        minimum: 1,
        description: 'Increasing per database, visible in commit order.',
      },
      resource: { type: 'string', description: 'The resource path name (`import-templates`).' },
      id: { type: ['integer', 'string'], description: "The record's key." },
      action: { type: 'string', enum: ['created', 'updated', 'deleted'] },
      version: {
        ...nullableInteger,
        description:
          'The record\'s version after the write (its ETag is `"<version>"`); null for a delete and for a resource without versions.',
      },
      at: { type: 'string', format: 'date-time', description: 'When the write committed (UTC).' },
      actor: {
        type: 'object',
        properties: {
          user_id: nullableInteger,
          token_id: nullableInteger,
          via: { type: 'string', enum: ['bearer', 'session', 'cli', 'system'] },
        },
        required: ['user_id', 'token_id', 'via'],
        additionalProperties: false,
      },
      changes: {
        type: 'object',
        properties: { fields: { type: 'object' } },
        additionalProperties: {
          type: 'object',
          properties: {
            created: { type: 'array', items: { type: 'object' } },
            updated: { type: 'array', items: { type: 'object' } },
            deleted: { type: 'array', items: { type: ['integer', 'string'] } },
          },
          required: ['created', 'updated', 'deleted'],
          additionalProperties: false,
        },
      },
    },
    required: ['seq', 'resource', 'id', 'action', 'version', 'at', 'actor', 'changes'],
    additionalProperties: false,
  },
  ChangesPage: {
    type: 'object',
    properties: {
      data: { type: 'array', items: ref('Change') },
      meta: {
        type: 'object',
        properties: {
          after: { type: 'integer', minimum: 0 },
          next: {
            type: 'integer',
            minimum: 0,
            description: 'The `after` of the next request.',
          },
          has_more: { type: 'boolean', description: 'More changes follow at once.' },
        },
        required: ['after', 'next', 'has_more'],
        additionalProperties: false,
      },
    },
    required: ['data', 'meta'],
    additionalProperties: false,
  },
  Error: {
    type: 'object',
    properties: { error: text },
    required: ['error'],
    additionalProperties: false,
  },
  Message: {
    type: 'object',
    properties: { message: text },
    required: ['message'],
    additionalProperties: false,
  },
  ValidationError: {
    type: 'object',
    description:
      '`message` is the first error, with ` (and N more errors)` when there are more; `errors` maps each failing field (`title`, `groups.1.group_id`, `filters.title`) to its messages.',
    properties: {
      message: text,
      errors: { type: 'object', additionalProperties: { type: 'array', items: text } },
    },
    required: ['message', 'errors'],
    additionalProperties: false,
  },
  ServerError: {
    type: 'object',
    description: 'With APP_DEBUG=true the exception and its stack trace are added.',
    properties: { message: text, exception: text, trace: { type: 'array', items: text } },
    required: ['message'],
    additionalProperties: false,
  },
  ListMeta: {
    type: 'object',
    description:
      'SPEC.md 4.2 meta. A request that sends `cursor` or names a count strategy (`count`, `Prefer: count=...`) also gets `total_estimated`, `has_more`, `next_cursor` and `prev_cursor`.',
    properties: {
      total: {
        type: ['integer', 'null'],
        minimum: 0,
        description: 'null with count=none; an estimate when total_estimated is true.',
      },
      per_page: { type: 'integer', minimum: 1 },
      current_page: {
        type: ['integer', 'null'],
        minimum: 1,
        description: 'null on a page read by cursor.',
      },
      last_page: { type: ['integer', 'null'], minimum: 1, description: 'null with count=none.' },
      total_estimated: {
        type: 'boolean',
        description:
          "true when total comes from the engine's statistics (count=estimated above the resource's countThreshold).",
      },
      has_more: {
        type: 'boolean',
        description: 'Rows follow this page (next_cursor is not null).',
      },
      next_cursor: {
        type: ['string', 'null'],
        description: 'Send as `cursor` for the rows after this page; null on the last page.',
      },
      prev_cursor: {
        type: ['string', 'null'],
        description: 'Send as `cursor` for the rows before this page; null on the first page.',
      },
    },
    required: ['total', 'per_page', 'current_page', 'last_page'],
    additionalProperties: false,
  },
};

const retryAfter = (seconds: string) => ({
  'Retry-After': {
    description: `Seconds to wait before retrying (${seconds}).`,
    required: true,
    schema: { type: 'string' },
  },
});

export const responses = {
  BadRequest: {
    description:
      'The body is not valid JSON or is nested deeper than 64 levels, or the request is malformed.',
    content: json(ref('Message')),
  },
  Unauthenticated: {
    description:
      'No valid credential. Bearer mode and requests with no credential: `{error}` with `WWW-Authenticate: Bearer`; a missing or expired session on `/app/*`: `{message: "Unauthenticated."}`.',
    headers: {
      'WWW-Authenticate': {
        description: '`Bearer`, on bearer-mode answers.',
        schema: { type: 'string' },
      },
    },
    content: json({ anyOf: [ref('Error'), ref('Message')] }),
  },
  Forbidden: {
    description:
      'Bearer mode: the token lacks an ability (`{error: "Missing ability: <name>"}`) or its user, unit or company is inactive or gone (`{error}`). Both modes: the resource refuses the action (`{message: "This action is unauthorized."}`, e.g. a non-admin on the administration resources).',
    content: json({ anyOf: [ref('Error'), ref('Message')] }),
  },
  NotFound: {
    description:
      '`{error: "Resource not found"}`: no record has this id (or it is outside the caller\'s unit or company).',
    content: json(ref('Error')),
  },
  RouteNotFound: {
    description:
      'Any other method and path (an action a resource does not expose included): `{error: "Not found"}`. Not referenced by an operation: it is the answer where the document has none.',
    content: json({
      type: 'object',
      properties: { error: { const: 'Not found' } },
      required: ['error'],
      additionalProperties: false,
    }),
  },
  RequestTimeout: {
    description:
      'The request, headers and body, did not arrive within REQUEST_TIMEOUT_MS (30 s by default); the connection is closed.',
    content: json(ref('Message')),
  },
  HeadersTooLarge: {
    description:
      'The request headers are larger than the server accepts; the connection is closed.',
    content: json(ref('Message')),
  },
  PayloadTooLarge: {
    description: 'The body is larger than BODY_LIMIT (1 MiB by default).',
    content: json(ref('Message')),
  },
  UnsupportedMediaType: {
    description: 'The body is not `application/json`.',
    content: json(ref('Message')),
  },
  CsrfMismatch: {
    description: 'Session mode: a write without a valid `X-CSRF-TOKEN` header.',
    content: json(ref('Message')),
  },
  ValidationFailed: {
    description: 'The input is invalid; nothing was saved.',
    content: json(ref('ValidationError')),
  },
  TooManyRequests: {
    description:
      'This address had 20 failed authentications within 600 seconds: `{error: "Too many requests. Try again later."}`.',
    headers: retryAfter('600'),
    content: json(ref('Error')),
  },
  ServerError: {
    description: 'An unhandled failure (never an HTML page).',
    content: json(ref('ServerError')),
  },
  IdempotencyKeyInUse: {
    description:
      'Another request of the same caller with this `Idempotency-Key` is still running; retry shortly to get its answer replayed.',
    headers: retryAfter('1'),
    content: json(ref('Message')),
  },
  PreconditionFailed: {
    description:
      '`If-Match` names no current ETag of the record (strong comparison), or `If-None-Match` names it on a write; nothing changed. The `ETag` header gives the current one.',
    headers: {
      ETag: { description: "The record's current ETag.", schema: { type: 'string' } },
    },
    content: json(ref('Message')),
  },
  ChangesGone: {
    description:
      'The changes after `after` are no longer kept (CHANGES_RETENTION_DAYS): reload the list and continue from its `Changes-Seq`. `oldest` is the oldest seq that may still be kept.',
    content: json({
      type: 'object',
      properties: { error: text, oldest: { type: 'integer', minimum: 1 } },
      required: ['error', 'oldest'],
      additionalProperties: false,
    }),
  },
  PreconditionRequired: {
    description: 'This resource requires `If-Match` on PUT, PATCH and DELETE (requireIfMatch).',
    content: json(ref('Message')),
  },
  ServiceUnavailable: {
    description:
      "The database is unavailable, did not answer in time, or the unit's database is not configured, or the service is shutting down; the request changed nothing.",
    headers: retryAfter('5'),
    content: json(ref('Message')),
  },
};

export type ErrorResponse = keyof typeof responses;

/** `Changes-Seq` of lists and shows (DESIGN.md 3.9). */
export const changesSeqHeader = {
  'Changes-Seq': {
    description:
      "A lower bound of the resource's change log that this answer reflects: every change with a seq at or below it is in it. Continue from it with `GET .../changes?after=<it>`.",
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
};

/** The strong ETag of a record, or the weak one of a list page (docs/api.md "Conditional requests"). */
export const etagHeader = (description: string) => ({
  ETag: { description, schema: { type: 'string' } },
});

/**
 * Any request may carry a body (a list reads its parameters from one, DESIGN.md 3.5), which the
 * framework refuses before the handler when it is malformed or too deeply nested (400), late
 * (408), larger than BODY_LIMIT (413), not JSON (415), holding text that is not valid Unicode
 * (422), or whose headers are too large (431): every operation can answer these.
 */
export const BODY_ERRORS = {
  '400': 'BadRequest',
  '408': 'RequestTimeout',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '422': 'ValidationFailed',
  '431': 'HeadersTooLarge',
} as const satisfies Record<string, ErrorResponse>;

/** `{'401': {$ref}, ...}` for the named shared responses. */
export function errorResponses(
  codes: Readonly<Record<string, ErrorResponse>>,
): Record<string, { $ref: string }> {
  const out: Record<string, { $ref: string }> = {};
  for (const [status, name] of Object.entries(codes))
    out[status] = { $ref: `#/components/responses/${name}` };
  return out;
}

export { json, ref };
