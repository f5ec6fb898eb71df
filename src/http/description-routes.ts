// The descriptions of the API (DESIGN.md 3.8): GET /api/openapi.json (no authentication: it
// holds no data), GET /docs, and for the admin front end GET /app/resources and the pickers'
// GET /app/lookups/<resource> (session mode: labels only, for those who may list the resource or
// all when it opens its lookups).
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../database/database.js';
import { lookup } from '../engine/actions/lookup.js';
import { resourceMetadata } from '../engine/description/resource-metadata.js';
import { collectionName } from '../engine/description/route-names.js';
import type { ResourceRoute } from '../engine/routes.js';
import { errors } from '../errors.js';
import type { Middleware } from '../kernel/middleware.js';
import { openApiDocument } from '../openapi/openapi-document.js';
import { registerDocsPage } from './docs-page.js';
import { engineContextOf } from './engine-context.js';
import { registeredRoutes } from './route-catalog.js';

export interface DescriptionRouteOptions {
  readonly resources: readonly ResourceRoute[];
  readonly database: Database;
  /** The `svc.auth` middleware. */
  readonly authenticated: Middleware;
}

function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return String(
    (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0',
  );
}

export function registerDescriptionRoutes(
  app: FastifyInstance,
  options: DescriptionRouteOptions,
): void {
  const { resources, authenticated } = options;
  const context = engineContextOf(options.database);
  // Made at the first request, once every route (plugins' too) is registered; then kept.
  let document: string | null = null;
  app.get('/api/openapi.json', async (_request, reply) => {
    document ??= JSON.stringify(
      openApiDocument({ routes: registeredRoutes(app), resources, version: packageVersion() }),
    );
    return reply
      .type('application/json; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(document);
  });
  void app.register(registerDocsPage);

  app.get('/app/resources', { preHandler: authenticated }, async (request) => {
    const { scope, user } = context(request);
    return { data: await resourceMetadata(resources, { scope, user, mode: 'session' }) };
  });

  const byName = new Map(resources.map((route) => [collectionName(route), route]));
  app.get(
    '/app/lookups/:resource',
    { preHandler: authenticated },
    async (request: FastifyRequest) => {
      const route = byName.get((request.params as { resource: string }).resource);
      if (!route) throw errors.resourceNotFound();
      const { resource } = route;
      const caller = context(request);
      // A lookup lists: only for those the resource lets list, unless it opens its lookups.
      if (
        !resource.openLookups &&
        resource.authorize &&
        !(await resource.authorize('list', caller))
      )
        throw errors.unauthorized();
      return { data: await lookup(resource, caller, request.query as Record<string, unknown>) };
    },
  );
}
