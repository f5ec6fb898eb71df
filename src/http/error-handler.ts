// The one error handler: every failure leaves as JSON from the catalog (SPEC.md 7, DESIGN.md
// 3.5). Framework errors (body parsing, limits) are mapped to catalog entries, a database that
// cannot serve the request (unreachable, statement cancelled) to a 503 on every route; anything
// else is a 500 whose stack is shown only with APP_DEBUG=true and never an HTML page.
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { DialectAdapter } from '../database/dialects/dialect-adapter.js';
import { driverError } from '../database/driver-errors.js';
import { errors, HttpError } from '../errors.js';

/** The request's media type without parameters; Fastify's 415 error does not carry it. */
function mediaTypeOf(request: FastifyRequest): string {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
}

function fromFramework(
  error: FastifyError,
  request: FastifyRequest,
  bodyLimit: number,
): HttpError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.bodyTooLarge(bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return errors.unsupportedMediaType(mediaTypeOf(request));
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.malformedJson();
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH')
    return errors.malformedJson();
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return errors.badRequest(error.message);
  return null;
}

/** A driver error as svc's answer; a read's unfit value came from its filters (a GET's input). */
function fromDatabase(
  error: unknown,
  request: FastifyRequest,
  adapters: readonly DialectAdapter[],
): HttpError | null {
  return driverError(
    error,
    adapters,
    request.method === 'GET' || request.method === 'HEAD' ? 'filters' : 'record',
  );
}

export interface ErrorHandlingOptions {
  readonly debug: boolean;
  readonly bodyLimit: number;
  /** The adapters of the databases requests use, which recognise their drivers' errors. */
  readonly adapters: readonly DialectAdapter[];
}

export function installErrorHandling(app: FastifyInstance, options: ErrorHandlingOptions): void {
  app.setNotFoundHandler((_request, reply) => {
    const error = errors.routeNotFound();
    return reply.code(error.status).send(error.body);
  });
  app.setErrorHandler((raw: FastifyError, request, reply) => {
    let error =
      raw instanceof HttpError
        ? raw
        : (fromDatabase(raw, request, options.adapters) ??
          fromFramework(raw, request, options.bodyLimit));
    if (error?.status === 503 && error.cause !== undefined) {
      // A database that could not serve the request (its driver's error is the cause); a 503 the
      // service raised itself (a unit's unconfigured connection) was logged where it was decided.
      request.log.warn({ err: error.cause }, error.body.message as string);
    } else if (!error) {
      request.log.error({ err: raw }, 'unhandled error');
      error = errors.server(
        options.debug
          ? {
              message: raw.message,
              exception: raw.name,
              trace: (raw.stack ?? '')
                .split('\n')
                .slice(1)
                .map((l) => l.trim()),
            }
          : undefined,
      );
    }
    return reply.code(error.status).headers(error.headers).send(error.body);
  });
}
