// buildApp(): Fastify wiring only. Parsers, limits and error handling, then the routes the
// composition root hands in.

import { randomBytes } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import type { SessionStore } from '../auth/session/session-store.js';
import type { Config } from '../config/config.js';
import type { Database } from '../database/database.js';
import { withReadingCaller } from '../database/reading-caller.js';
import { cursorKey } from '../engine/query/cursor.js';
import { type ResourceRoute, registerResourceRoutes } from '../engine/routes.js';
import { trustFunction } from '../kernel/client-address.js';
import type { MiddlewareRegistry } from '../kernel/middleware.js';
import { AnswerBudget } from '../support/answer-budget.js';
import { clientErrorHandler } from './client-errors.js';
import { engineContextOf } from './engine-context.js';
import { installErrorHandling } from './error-handler.js';
import { parseJsonBody } from './json-body.js';
import { parseQueryString } from './query-string.js';
import {
  answerFrameworkError,
  installResponseHeaders,
  refuseBeforeRoutes,
  refuseExpectations,
} from './response-headers.js';
import { collectRoutes } from './route-catalog.js';
import '../kernel/request-state.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** What list answers in flight hold (ANSWER_MEMORY_LIMIT_MB): its peak, for measurements. */
    readonly answerBudget: AnswerBudget;
  }
}

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
  /** The session store, where a password change ends the user's other sessions. */
  readonly sessions?: Pick<SessionStore, 'endUserSessions'>;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, database } = options;
  const app = Fastify({
    logger: options.logger ?? { level: config.logLevel },
    // One log line per request costs more than a list answer; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    trustProxy: trustFunction(config.trustProxy),
    // A client has REQUEST_TIMEOUT_MS to send its whole request, headers and body: a body that
    // never arrives is a 408 and a closed connection, not a descriptor held for minutes. Node
    // looks for late requests every connectionsCheckingInterval (30 s by default).
    requestTimeout: config.requestTimeoutMs,
    http: {
      // Host is checked in refuseBeforeRoutes, answered in svc's shape: absent, or sent twice.
      requireHostHeader: false,
      joinDuplicateHeaders: true,
      headersTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.requestTimeoutMs),
    },
    clientErrorHandler: clientErrorHandler(config.requestTimeoutMs),
    // What Fastify answers itself before any route, in svc's shapes (see answerFrameworkError).
    frameworkErrors: answerFrameworkError,
    return503OnClosing: false,
    routerOptions: { querystringParser: parseQueryString, ignoreTrailingSlash: true },
  });
  // Read replicas (DESIGN.md 3.12): each request's statements know whose they are.
  if (config.readReplicas.urls.length > 0)
    app.addHook('onRequest', (_request, _reply, done) => withReadingCaller(done));
  // SPEC.md 4.2: list input may come as a JSON body on GET.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  // Only JSON bodies: anything else is a 415, not a string the engine must guess about.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    (_request, body: string, done) => {
      let value: unknown;
      try {
        value = parseJsonBody(body);
      } catch (error) {
        done(error as Error, undefined);
        return;
      }
      done(null, value);
    },
  );
  installResponseHeaders(app);
  refuseBeforeRoutes(app);
  refuseExpectations(app);
  collectRoutes(app);
  app.decorateRequest('svc', null);
  const secret = options.cookieSecret ?? randomBytes(32).toString('hex');
  await app.register(fastifyCookie, {
    secret,
    hook: 'onRequest',
  });
  installErrorHandling(app, {
    debug: config.appDebug,
    bodyLimit: config.bodyLimit,
    adapters: [...new Set([database, ...(options.unitDatabases ?? [])].map((d) => d.adapter))],
  });

  const context = engineContextOf(database, options.sessions);
  const middleware = (spec: string) => options.middleware.resolve(spec);
  // One for every resource route of the app: the memory list answers in flight hold.
  const answerBudget = new AnswerBudget(
    config.answerMemoryLimitMb * 1024 * 1024,
    config.streamAnswersAbove,
  );
  app.decorate('answerBudget', answerBudget);
  for (const route of options.resources)
    registerResourceRoutes(app, route, {
      context,
      middleware,
      streamAbove: config.streamAnswersAbove,
      answerBudget,
      answerStallTimeoutMs: config.answerStallTimeoutMs,
      idempotencyKeyTtlSeconds: config.idempotencyKeyTtlSeconds,
      cursorKey: cursorKey(secret),
    });
  options.routes?.(app);
  return app;
}
