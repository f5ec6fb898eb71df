// A signing client for the driver tests. It follows docs/rest-driver.md's rule on its own instead of
// importing src/driver, so a mistake on either side shows up as a failing test.
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { httpRequest, JSON_TYPE, type Reply } from './http.js';

export const DRIVER = '/_mad/rest-driver';
export const DRIVER_SECRET = 'test-driver-secret-0123456789abcdef';

/** The environment of a server with the driver on (and `extra` on top). */
export function driverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { REST_DRIVER_ENABLED: 'true', REST_DRIVER_SECRET: DRIVER_SECRET, ...extra };
}

/** What gets signed, when a test signs something other than what it sends. */
export interface Signing {
  readonly method?: string;
  readonly target?: string;
  readonly body?: string;
  readonly secret?: string;
  /** Unix seconds. */
  readonly timestamp?: number;
  readonly nonce?: string;
}

/** The three signature headers of `METHOD\nTARGET\nTIMESTAMP\nNONCE\nSHA256HEX(BODY)`. */
export function signedHeaders(
  method: string,
  target: string,
  body: string,
  signing: Signing = {},
): Record<string, string> {
  const timestamp = String(signing.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = signing.nonce ?? randomBytes(12).toString('base64url');
  const bodyHash = createHash('sha256')
    .update(signing.body ?? body, 'utf8')
    .digest('hex');
  const text = [
    (signing.method ?? method).toUpperCase(),
    signing.target ?? target,
    timestamp,
    nonce,
    bodyHash,
  ].join('\n');
  const signature = createHmac('sha256', signing.secret ?? DRIVER_SECRET)
    .update(text, 'utf8')
    .digest('hex');
  return { 'x-svc-timestamp': timestamp, 'x-svc-nonce': nonce, 'x-svc-signature': signature };
}

export interface DriverSend {
  /** JSON-encoded, unless `raw` is given. */
  readonly body?: unknown;
  readonly raw?: string;
  readonly signing?: Signing;
  /** Sent instead of fresh signature headers (a replay), or on top of them. */
  readonly headers?: Record<string, string>;
}

/** One signed request; `target` is the path plus the query exactly as sent. */
export function driverRequest(
  baseUrl: string,
  method: string,
  target: string,
  send: DriverSend = {},
): Promise<Reply> {
  const payload = send.raw ?? (send.body === undefined ? undefined : JSON.stringify(send.body));
  const headers = {
    ...signedHeaders(method, target, payload ?? '', send.signing),
    ...send.headers,
  };
  return httpRequest(
    baseUrl,
    method,
    target,
    payload === undefined ? { headers } : { raw: payload, headers },
  );
}

export function driverQuery(
  baseUrl: string,
  sql: string,
  bindings?: unknown[],
  extra: Record<string, unknown> = {},
): Promise<Reply> {
  return driverRequest(baseUrl, 'POST', `${DRIVER}/query`, {
    body: { sql, ...(bindings ? { bindings } : {}), ...extra },
  });
}

/** Asserts a driver 401 exactly: status, JSON type and `{error}`. */
export function assertDriver401(reply: Reply, error: string): void {
  assert.equal(reply.status, 401, `status ${reply.status}, body ${reply.text.slice(0, 300)}`);
  assert.equal(reply.headers.get('content-type'), JSON_TYPE);
  assert.deepStrictEqual(reply.body, { error });
}

/** The 422 of a statement the database refused: `{message, errors: {sql: [message]}}`. */
export function refusedStatement(message: string): { message: string; errors: { sql: string[] } } {
  return { message, errors: { sql: [message] } };
}
