// buildApp(): Fastify wiring only. Parsers, limits and error handling, then the routes the
// composition root hands in.
import { randomBytes } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import type { Config } from '../config/config.js';
import type { Database } from '../database/database.js';
import { type ResourceRoute, registerResourceRoutes } from '../engine/routes.js';
import type { MiddlewareRegistry } from '../kernel/middleware.js';
import { engineContextOf } from './engine-context.js';
import { installErrorHandling } from './error-handler.js';
import { parseQueryString } from './query-string.js';
import { collectRoutes } from './route-catalog.js';
import '../kernel/request-state.js';

export interface AppOptions {
  readonly config: Config;
  readonly database: Database;
  readonly resources: readonly ResourceRoute[];
  readonly middleware: MiddlewareRegistry;
  readonly logger?: FastifyServerOptions['logger'];
  /** Signs the session cookie (APP_SECRET); a random one when absent (fixture apps). */
  readonly cookieSecret?: string;
  /** Routes beyond the resources (session, token admin), registered after them. */
  readonly routes?: (app: FastifyInstance) => void;
  /** The units' own databases (DB_CONNECTIONS), whose errors the error handler must recognise too. */
  readonly unitDatabases?: readonly Database[];
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database } = options;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    // One log line per request costs more than a list answer; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    routerOptions: { querystringParser: parseQueryString, ignoreTrailingSlash: true },
  });
  // SPEC.md 4.2: list input may come as a JSON body on GET.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  // Only JSON bodies: anything else is a 415, not a string the engine must guess about.
  app.removeContentTypeParser('text/plain');
  // DESIGN.md 3.5: an empty body is no body, whatever its Content-Type (clients send
  // application/json on every GET and DELETE). Fastify's own JSON parser refuses it as
  // FST_ERR_CTP_EMPTY_JSON_BODY; in front of it, a body of JSON whitespace only (it holds no JSON
  // value either) becomes `undefined`, as if none was sent. Anything else is Fastify's parser.
  const parseJson = app.getDefaultJsonParser(
    app.initialConfig.onProtoPoisoning ?? 'error',
    app.initialConfig.onConstructorPoisoning ?? 'error',
  );
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    (request, body: string, done) => {
      if (/^[ \t\n\r]*$/.test(body)) done(null, undefined);
      else parseJson(request, body, done);
    },
  );
  collectRoutes(app);
  app.decorateRequest('svc', null);
  await app.register(fastifyCookie, {
    secret: options.cookieSecret ?? randomBytes(32).toString('hex'),
    hook: 'onRequest',
  });
  installErrorHandling(app, {
    debug: config.appDebug,
    bodyLimit: config.bodyLimit,
    adapters: [...new Set([database, ...(options.unitDatabases ?? [])].map((d) => d.adapter))],
  });

  const context = engineContextOf(database);
  const middleware = (spec: string) => options.middleware.resolve(spec);
  for (const route of options.resources)
    registerResourceRoutes(app, route, { context, middleware });
  options.routes?.(app);
  return app;
}
