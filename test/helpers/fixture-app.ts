// A second app on a free port serving fixture resources over the service's own database: the
// engine's conformance tests declare small resources in the test itself (STYLE.md example 12).
// No middleware runs, so requests act without a user (the engine's 'direct' context).
import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config/config.js';
import type { Database } from '../../src/database/database.js';
import type { ResourceRoute } from '../../src/engine/routes.js';
import { buildApp } from '../../src/http/build-app.js';
import { MiddlewareRegistry } from '../../src/kernel/middleware.js';
import { httpRequest, type Reply, type RequestOptions } from './http.js';

export interface FixtureApp {
  readonly url: string;
  readonly app: FastifyInstance;
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  get(path: string, options?: RequestOptions): Promise<Reply>;
  post(path: string, body?: unknown, options?: RequestOptions): Promise<Reply>;
  put(path: string, body?: unknown, options?: RequestOptions): Promise<Reply>;
  patch(path: string, body?: unknown, options?: RequestOptions): Promise<Reply>;
  delete(path: string, options?: RequestOptions): Promise<Reply>;
  close(): Promise<void>;
}

/**
 * Starts an app with `routes` on `database`; `env` overrides configuration (e.g. APP_DEBUG);
 * `middleware` names what the routes' `middleware` may use (e.g. one that sets a caller's scope).
 */
export async function startFixtureApp(
  database: Database,
  routes: readonly ResourceRoute[],
  env: Record<string, string> = {},
  middleware = new MiddlewareRegistry(),
): Promise<FixtureApp> {
  const config = loadConfig({ DATA_DIR: os.tmpdir(), LOG_LEVEL: 'silent', ...env });
  const app = await buildApp({ config, database, resources: routes, middleware, logger: false });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const fixture: FixtureApp = {
    url,
    app,
    request: (method, target, options) => httpRequest(url, method, target, options),
    get: (target, options) => fixture.request('GET', target, options),
    post: (target, body, options) => fixture.request('POST', target, { ...options, body }),
    put: (target, body, options) => fixture.request('PUT', target, { ...options, body }),
    patch: (target, body, options) => fixture.request('PATCH', target, { ...options, body }),
    delete: (target, options) => fixture.request('DELETE', target, options),
    close: () => app.close(),
  };
  return fixture;
}

/**
 * Stands in for the auth middleware: a registry whose `fx.unit-<id>` middleware makes every
 * request act in that unit, with no user, on `database`; and the route setting that uses it.
 */
export function actingInUnit(
  database: Database,
  unitId: number,
): { registry: MiddlewareRegistry; middleware: { read: string[]; write: string[] } } {
  const name = `fx.unit-${unitId}`;
  const registry = new MiddlewareRegistry().define(name, () => async (request) => {
    request.svc = {
      mode: 'bearer',
      scope: { userId: null, unitId, tenantId: null },
      user: {},
      data: database,
    };
  });
  return { registry, middleware: { read: [name], write: [name] } };
}
