// Answers to requests the HTTP parser refuses before Fastify has a request (Node's 'clientError'):
// malformed HTTP (400), headers past the size limit (431), a request not received within
// REQUEST_TIMEOUT_MS (408). Written straight to the socket in svc's shapes from the catalog,
// with the headers every answer carries, then the connection is closed.

import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { errors, type HttpError } from '../errors.js';
import { EVERY_ANSWER_HEADERS } from './response-headers.js';

function errorFor(code: string | undefined, requestTimeoutMs: number): HttpError {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return errors.requestTimeout(requestTimeoutMs);
  if (code === 'HPE_HEADER_OVERFLOW') return errors.headersTooLarge();
  return errors.badRequest('The request is not valid HTTP/1.1.');
}

export function clientErrorHandler(
  requestTimeoutMs: number,
): (error: Error & { code?: string }, socket: Socket) => void {
  return (error, socket) => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) {
      const answer = errorFor(error.code, requestTimeoutMs);
      const body = JSON.stringify(answer.body);
      const headers = {
        ...EVERY_ANSWER_HEADERS,
        'cache-control': 'no-store',
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        connection: 'close',
        ...answer.headers,
      };
      const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
      socket.write(
        `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n${lines.join('')}\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
