// Answers to requests the HTTP parser refuses before Fastify has a request (Node's 'clientError'):
// malformed HTTP (400), headers past the size limit (431), a request not received within
// REQUEST_TIMEOUT_MS (408). Written straight to the socket in svc's shapes from the catalog,
// with the headers every answer carries, then the connection is closed.

import type { Socket } from 'node:net';
import { errors, type HttpError } from '../errors.js';
import { rawAnswer } from '../kernel/raw-answer.js';

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
    if (socket.writable) socket.write(rawAnswer(errorFor(error.code, requestTimeoutMs)));
    socket.destroy();
  };
}
