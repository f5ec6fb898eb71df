// A small HTTP client on node:http (fetch refuses a body on GET, which SPEC.md 4.2 allows) and
// the exact-reply assertion every conformance test uses (STYLE.md example 13).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { Reply, RequestOptions } from './test-server.js';

export type { Reply, RequestOptions };

/** Sends one request; `body` is JSON-encoded unless `raw` is given. Any method may carry a body. */
export function httpRequest(
  baseUrl: string,
  method: string,
  target: string,
  options: RequestOptions & { readonly localAddress?: string } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  let payload: string | undefined = options.raw;
  if (payload === undefined && options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined) {
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    // A socket bound to another local address (127.0.0.2) is another client IP.
    const socket = options.localAddress ? { localAddress: options.localAddress, agent: false } : {};
    const request = http.request(
      new URL(target, baseUrl),
      { method, headers, ...socket },
      (response) => {
        readReply(response).then(resolve, reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** Collects a node:http response into a Reply (body parsed when it is JSON). */
export function readReply(response: http.IncomingMessage): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('error', reject);
    response.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const headers = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      resolve({ status: response.statusCode ?? 0, headers, text, body });
    });
  });
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Asserts the status, the JSON content type and, when given, the whole body. */
export function assertJson(reply: Reply, status: number, body?: unknown): void {
  assert.equal(reply.status, status, `status ${reply.status}, body ${reply.text.slice(0, 500)}`);
  assert.equal(reply.headers.get('content-type'), JSON_TYPE);
  if (body !== undefined) assert.deepStrictEqual(reply.body, body);
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Asserts `value` is an ISO-8601 UTC timestamp no older than `since`, and returns it. */
export function freshTimestamp(value: unknown, since: Date): string {
  assert.equal(typeof value, 'string');
  assert.match(value as string, ISO_UTC);
  assert.ok(
    Date.parse(value as string) >= since.getTime() - 1000,
    `${String(value)} is older than ${since.toISOString()}`,
  );
  return value as string;
}
