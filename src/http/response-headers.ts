// Headers on every answer (DESIGN.md 3.6 "Bounds"): `X-Content-Type-Options: nosniff` always;
// `Cache-Control: no-store` unless the route chose its own caching (the admin front end's files,
// /docs), so an authenticated answer (a plain token, a CSRF token, anyone's records) is never
// kept by a browser or a shared cache.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors, type HttpError } from '../errors.js';
import { closingAnswerHeaders, EVERY_ANSWER_HEADERS } from '../kernel/raw-answer.js';

export function installResponseHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.headers(EVERY_ANSWER_HEADERS);
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}

function send(reply: FastifyReply, error: HttpError): void {
  reply
    .code(error.status)
    .headers({ ...EVERY_ANSWER_HEADERS, 'cache-control': 'no-store', ...error.headers })
    .send(error.body);
}

/**
 * Fastify's `frameworkErrors`: a path that does not decode (FST_ERR_BAD_URL), a parameter past
 * its length limit, a failed route constraint. Answered without echoing the path.
 */
export function answerFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  send(
    reply,
    error.code === 'FST_ERR_BAD_URL'
      ? errors.badRequest('The request path is not a valid URL.')
      : errors.badRequest(error.message),
  );
}

/**
 * What is refused before any route, in one hook: requests arriving once the server is closing
 * (Fastify's own answer, return503OnClosing, has its shape), a 503 of the catalog so a load
 * balancer retries them elsewhere; and an HTTP/1.1 request with no Host header, or with two
 * (Node joins them with a comma: joinDuplicateHeaders), a 400 and a closed connection. Node
 * refused the first itself, with an empty answer (requireHostHeader), and took the first of two.
 */
export function refuseBeforeRoutes(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (request, reply, done) => {
    const host = request.headers.host;
    if (closing) send(reply, errors.shuttingDown());
    else if (host === undefined ? request.raw.httpVersion === '1.1' : host.includes(','))
      send(
        reply.header('connection', 'close'),
        errors.badRequest(
          host === undefined
            ? 'The request has no Host header.'
            : 'The request has more than one Host header.',
        ),
      );
    else done();
  });
}

/**
 * An Expect header other than 100-continue (Node's 'checkExpectation'; it answered 417 itself,
 * empty): the catalog's 417, and the connection closed, as the body may follow unasked.
 */
export function refuseExpectations(app: FastifyInstance): void {
  app.server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const error = errors.expectationFailed();
    const body = JSON.stringify(error.body);
    response.writeHead(error.status, closingAnswerHeaders(error, body)).end(body);
  });
}
