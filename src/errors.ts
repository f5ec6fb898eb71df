// The error catalog: every error body the service sends is made here (SPEC.md 7, DESIGN.md 3.5).
// Each entry has a stable code, an HTTP status and a body; the HTTP layer only serialises them.

export type ErrorBody = Record<string, unknown>;

export class HttpError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly body: ErrorBody,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(typeof body.message === 'string' ? body.message : String(body.error ?? code));
    this.name = 'HttpError';
  }
}

/** Validation errors: field -> messages, in the order they were found. */
export type ErrorBag = Record<string, string[]>;

/** `The x field is required. (and 2 more errors)`: the first message plus how many follow (SPEC.md 7.1). */
export function summaryMessage(errors: ErrorBag): string {
  const all = Object.values(errors).flat();
  const first = all[0] ?? 'The given data was invalid.';
  const more = all.length - 1;
  if (more <= 0) return first;
  return `${first} (and ${more} more ${more === 1 ? 'error' : 'errors'})`;
}

/** Seconds a client should wait before retrying a request the database could not serve. */
const RETRY_SOON = { 'retry-after': '5' } as const;

export const errors = {
  routeNotFound: () => new HttpError('ROUTE_NOT_FOUND', 404, { error: 'Not found' }),
  resourceNotFound: () => new HttpError('RESOURCE_NOT_FOUND', 404, { error: 'Resource not found' }),
  validation: (bag: ErrorBag) =>
    new HttpError('VALIDATION_FAILED', 422, { message: summaryMessage(bag), errors: bag }),
  malformedJson: () =>
    new HttpError('MALFORMED_JSON', 400, { message: 'The request body is not valid JSON.' }),
  badRequest: (message: string) => new HttpError('BAD_REQUEST', 400, { message }),
  bodyTooDeep: (levels: number) =>
    new HttpError('BODY_TOO_DEEP', 400, {
      message: `The request body is nested deeper than ${levels} levels.`,
    }),
  /** The client did not send its whole request (headers and body) within REQUEST_TIMEOUT_MS. */
  requestTimeout: (ms: number) =>
    new HttpError('REQUEST_TIMEOUT', 408, {
      message: `The request did not arrive within ${ms} ms.`,
    }),
  /** Only 100-continue is an expectation HTTP/1.1 defines; Node answers anything else itself. */
  expectationFailed: () =>
    new HttpError('EXPECTATION_FAILED', 417, {
      message: 'The Expect header can only be 100-continue.',
    }),
  headersTooLarge: () =>
    new HttpError('HEADERS_TOO_LARGE', 431, {
      message: 'The request headers are too large.',
    }),
  bodyTooLarge: (limit: number) =>
    new HttpError('BODY_TOO_LARGE', 413, {
      message: `The request body is larger than ${limit} bytes.`,
    }),
  unsupportedMediaType: (type: string) =>
    new HttpError('UNSUPPORTED_MEDIA_TYPE', 415, {
      message: `Unsupported media type "${type}": send application/json.`,
    }),
  bearerUnauthenticated: (message = 'Unauthenticated.') =>
    new HttpError(
      'BEARER_UNAUTHENTICATED',
      401,
      { error: message },
      { 'www-authenticate': 'Bearer' },
    ),
  sessionUnauthenticated: () =>
    new HttpError('SESSION_UNAUTHENTICATED', 401, { message: 'Unauthenticated.' }),
  bearerForbidden: (reason: string) => new HttpError('BEARER_FORBIDDEN', 403, { error: reason }),
  missingAbility: (ability: string) =>
    new HttpError('MISSING_ABILITY', 403, { error: `Missing ability: ${ability}` }),
  unauthorized: () =>
    new HttpError('UNAUTHORIZED_ACTION', 403, { message: 'This action is unauthorized.' }),
  sessionForbidden: (reason: string) =>
    new HttpError('SESSION_FORBIDDEN', 403, { message: reason }),
  csrfMismatch: () => new HttpError('CSRF_MISMATCH', 419, { message: 'CSRF token mismatch.' }),
  tooManyAttempts: () =>
    new HttpError(
      'TOO_MANY_ATTEMPTS',
      429,
      { error: 'Too many requests. Try again later.' },
      { 'retry-after': '600' },
    ),
  // The Pusher HTTP events API of the embedded real-time server (DESIGN.md 3.5).
  pusherUnknownApp: (appId: string) =>
    new HttpError('PUSHER_UNKNOWN_APP', 404, { error: `Unknown app id "${appId}".` }),
  pusherUnauthenticated: (reason: string) =>
    new HttpError('PUSHER_UNAUTHENTICATED', 401, { error: reason }),
  pusherInvalidEvent: (reason: string) =>
    new HttpError('PUSHER_INVALID_EVENT', 400, { error: reason }),
  pusherEventTooLarge: (limit: number) =>
    new HttpError('PUSHER_EVENT_TOO_LARGE', 413, {
      error: `The event data must not be larger than ${limit} bytes.`,
    }),
  /** A WebSocket upgrade past REALTIME_MAX_CONNECTIONS_PER_ADDRESS: refused before the handshake. */
  realtimeTooManyConnections: (limit: number) =>
    new HttpError(
      'REALTIME_TOO_MANY_CONNECTIONS',
      429,
      { error: `This address already holds ${limit} WebSocket connections.` },
      { 'retry-after': '60' },
    ),
  /** A WebSocket upgrade past REALTIME_MAX_CONNECTIONS: refused before the handshake. */
  realtimeOverCapacity: (limit: number) =>
    new HttpError(
      'REALTIME_OVER_CAPACITY',
      503,
      { error: `The server already holds ${limit} WebSocket connections. Try again later.` },
      { 'retry-after': '60' },
    ),
  // The signed-request driver (docs/rest-driver.md "Signed-request driver"); its 401s count toward the per-IP limit.
  driverUnauthenticated: (reason: string) =>
    new HttpError('DRIVER_UNAUTHENTICATED', 401, { error: reason }),
  driverTableNotFound: () =>
    new HttpError('DRIVER_TABLE_NOT_FOUND', 404, { error: 'Table not found' }),
  /** A statement the database refused or cancelled: the 422 shape of every refusal, under `sql`. */
  driverStatementRefused: (message: string) =>
    new HttpError('DRIVER_STATEMENT_REFUSED', 422, { message, errors: { sql: [message] } }),
  // Both 503s mean "not done, retry": the request's transaction was rolled back (docs/database-engines.md "Resilience").
  serviceUnavailable: () =>
    new HttpError(
      'SERVICE_UNAVAILABLE',
      503,
      { message: 'The database is unavailable. Try again shortly.' },
      RETRY_SOON,
    ),
  databaseTimeout: () =>
    new HttpError(
      'DATABASE_TIMEOUT',
      503,
      { message: 'The database did not answer in time. Try again shortly.' },
      RETRY_SOON,
    ),
  /** A request that arrived while the process is closing (SIGTERM): another instance can serve it. */
  shuttingDown: () =>
    new HttpError(
      'SHUTTING_DOWN',
      503,
      { message: 'The service is shutting down. Try again shortly.' },
      RETRY_SOON,
    ),
  /** A unit whose `connection` names no DB_CONNECTIONS entry: its data is nowhere to be read (DESIGN.md 3.5). */
  unitDatabaseUnavailable: (connection: string) =>
    new HttpError('UNIT_DATABASE_UNAVAILABLE', 503, {
      message: `The database of this unit is unavailable: its connection "${connection}" is not configured.`,
    }),
  // Conditional requests and idempotent creates (docs/api.md "Conditional requests", "Idempotent creates").
  /** A write whose If-Match (or If-None-Match) fails on the record as stored now; the route adds its ETag. */
  preconditionFailed: () =>
    new HttpError('PRECONDITION_FAILED', 412, {
      message:
        "The record has changed since it was read: its ETag does not meet the request's If-Match or If-None-Match.",
    }),
  /** An update or delete without If-Match on a resource that requires it (requireIfMatch). */
  preconditionRequired: () =>
    new HttpError('PRECONDITION_REQUIRED', 428, {
      message:
        'This resource requires If-Match on updates and deletes: send the ETag of the record as you read it.',
    }),
  /** A create whose Idempotency-Key another request with the same key still holds. */
  idempotencyKeyInUse: () =>
    new HttpError(
      'IDEMPOTENCY_KEY_IN_USE',
      409,
      { message: 'A request with this Idempotency-Key is still being processed. Retry shortly.' },
      { 'retry-after': '1' },
    ),
  server: (detail?: { message: string; exception: string; trace: string[] }) =>
    new HttpError('SERVER_ERROR', 500, detail ? { ...detail } : { message: 'Server Error' }),
} as const;
