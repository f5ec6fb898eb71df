// Answers written straight to a socket, where no Fastify reply exists: requests Node's HTTP
// parser refuses (http/client-errors.ts) and refused WebSocket upgrades (realtime/). A catalog
// error as JSON, with the headers every answer carries, and the connection closed after it.
import { STATUS_CODES } from 'node:http';
import type { HttpError } from '../errors.js';

/** On every answer, Fastify's and the raw ones (DESIGN.md 3.6 "Bounds"). */
export const EVERY_ANSWER_HEADERS = { 'x-content-type-options': 'nosniff' } as const;

/** The headers of `error`'s answer with `body` (its JSON), the connection closed after it. */
export function closingAnswerHeaders(error: HttpError, body: string): Record<string, string> {
  return {
    ...EVERY_ANSWER_HEADERS,
    'cache-control': 'no-store',
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    ...error.headers,
  };
}

/** The whole HTTP/1.1 answer of `error`, status line to body, with `Connection: close`. */
export function rawAnswer(error: HttpError): string {
  const body = JSON.stringify(error.body);
  const lines = Object.entries(closingAnswerHeaders(error, body)).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  return `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${lines.join('')}\r\n${body}`;
}
