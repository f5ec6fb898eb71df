// The OpenAPI 3.1 document of GET /api/openapi.json (DESIGN.md 3.8), made from what the app
// registered: each resource route's operations are generated from its definition
// (resource/resource-operations.ts), every other route's come from service-endpoints.ts. A
// registered route with no description, or a description with no route, stops the build with
// its name, so the document cannot leave out or invent a route (test/openapi checks both on
// every engine).
import type { ResourceRoute } from '../engine/routes.js';
import { responses, schemas, securitySchemes } from './components.js';
import type { Schema } from './json-schema.js';
import type { Operation, PathItem } from './operation.js';
import { resourceOperations } from './resource/resource-operations.js';
import { serviceEndpoints, serviceSchemas } from './service-endpoints.js';

export interface DocumentInput {
  /** Every route the app registered (method, Fastify path), HEAD included. */
  readonly routes: ReadonlyArray<{ readonly method: string; readonly url: string }>;
  readonly resources: readonly ResourceRoute[];
  readonly version: string;
}

/** Paths that serve pages and files, not the API: the admin front end and the docs' assets. */
export function isApiRoute(url: string): boolean {
  return !(
    url === '/' ||
    url === '/admin' ||
    url.startsWith('/admin/') ||
    url.startsWith('/docs/')
  );
}

/** `/api/x/:id` -> `/api/x/{id}`; a trailing slash is one path with its parent (ignoreTrailingSlash). */
export function openApiPath(url: string): string {
  return url.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1');
}

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;

/** A HEAD operation of a GET one: the same parameters and statuses, no bodies. */
function headOf(get: Operation): Operation {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(
    (get.responses ?? {}) as Record<string, Record<string, unknown>>,
  )) {
    responses[status] =
      '$ref' in response ? response : { description: String(response.description ?? '') };
  }
  const { operationId, summary, ...rest } = get;
  return {
    ...rest,
    ...(operationId
      ? { operationId: `head${String(operationId).replace(/^./, (c) => c.toUpperCase())}` }
      : {}),
    summary: `${String(summary ?? '')} (headers only)`,
    responses,
  };
}

export function openApiDocument(input: DocumentInput): Record<string, unknown> {
  const paths: Record<string, PathItem> = {};
  const componentSchemas: Record<string, Schema> = { ...schemas, ...serviceSchemas };
  const generated = new Set<string>();
  for (const route of input.resources) {
    const described = resourceOperations(route);
    Object.assign(paths, described.paths);
    Object.assign(componentSchemas, described.schemas);
    for (const [path, item] of Object.entries(described.paths))
      for (const method of METHODS)
        if (item[method]) generated.add(`${method.toUpperCase()} ${path}`);
  }

  const missing: string[] = [];
  const seen = new Set<string>();
  for (const { method, url } of input.routes) {
    if (!isApiRoute(url)) continue;
    const path = openApiPath(url);
    const key = `${method} ${path}`;
    seen.add(key);
    if (generated.has(key)) continue;
    const lower = method.toLowerCase() as (typeof METHODS)[number];
    if (!METHODS.includes(lower)) continue;
    // service-endpoints.ts keys routes by their Fastify path; a HEAD one is its GET's.
    const route = url.replace(/(.)\/$/, '$1');
    const get = method === 'HEAD' ? serviceEndpoints[`GET ${route}`] : undefined;
    const operation = serviceEndpoints[`${method} ${route}`] ?? (get ? headOf(get) : undefined);
    if (!operation) {
      missing.push(key);
      continue;
    }
    paths[path] = { ...(paths[path] ?? {}), [lower]: operation };
  }
  if (missing.length > 0)
    throw new Error(
      `Routes without a description in src/openapi/service-endpoints.ts: ${missing.join(', ')}`,
    );
  const invented = [...generated].filter((key) => !seen.has(key));
  if (invented.length > 0)
    throw new Error(`Generated operations without a registered route: ${invented.join(', ')}`);

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'svc',
      version: input.version,
      description:
        'Database-backed resources as JSON REST endpoints: a master record with its detail rows, read and written in one payload. Bearer tokens (`Authorization: Bearer svc_api_...`) for scripts and apps; a session cookie plus `X-CSRF-TOKEN` on writes for the admin front end. Every answer is JSON, errors included.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    tags: [
      ...new Set(
        Object.values(paths).flatMap((item) =>
          Object.values(item).flatMap((op) => ((op as Operation).tags as string[]) ?? []),
        ),
      ),
    ].map((name) => ({ name })),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: { schemas: componentSchemas, responses, securitySchemes },
  };
}
