// Every route the app registers, as Fastify registers it (HEAD routes included), in order: what
// the OpenAPI document describes and its tests compare with. Collected by an onRoute hook that
// buildApp installs before any route, so encapsulated plugins' routes are seen too.
import type { FastifyInstance, RouteOptions } from 'fastify';

export interface RegisteredRoute {
  readonly method: string;
  /** Fastify's path syntax: `/api/import-templates/:import_template`. */
  readonly url: string;
}

const catalogs = new WeakMap<FastifyInstance, RegisteredRoute[]>();

export function collectRoutes(app: FastifyInstance): void {
  const routes: RegisteredRoute[] = [];
  catalogs.set(app, routes);
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method: method.toUpperCase(), url: route.url });
  });
}

export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return catalogs.get(app) ?? [];
}
