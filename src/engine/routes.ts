// The one engine file that sees Fastify: a route declaration yields the five routes of SPEC.md
// 4.1 (GET also answers HEAD), restricted to `only`; actions not exposed are unmatched (404).
// The id is the route's last parameter, whatever its name.
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preHandlerAsyncHookHandler,
} from 'fastify';
import { errors } from '../errors.js';
import { create } from './actions/create.js';
import { destroy } from './actions/delete.js';
import { list } from './actions/list.js';
import { show } from './actions/show.js';
import { update } from './actions/update.js';
import type { EngineContext } from './context.js';
import type { Resource } from './definition/define-resource.js';
import { ACTIONS, type Action } from './definition/resource-config.js';
import { jsonAnswer } from './output/json-answer.js';
import { mergeInputs } from './query/input.js';

export interface ResourceRoute {
  /** The collection path, e.g. `/api/import-templates`. */
  readonly path: string;
  readonly resource: Resource;
  /** The id parameter's name; default: the singular of the last path segment, snake_cased. */
  readonly parameter?: string;
  readonly only?: readonly Action[];
  /** Middleware names for the read actions (list, show) and the write actions. */
  readonly middleware?: { readonly read?: readonly string[]; readonly write?: readonly string[] };
}

export interface RouteDependencies {
  /** The engine context of an authenticated request. */
  context(request: FastifyRequest): EngineContext;
  /** Middleware name -> preHandler (throws at boot on an unknown name). */
  middleware(spec: string): preHandlerAsyncHookHandler;
  /** Answers longer than this many characters are streamed (STREAM_ANSWERS_ABOVE); default 1 Mi. */
  readonly streamAbove?: number;
}

const WRITES: ReadonlySet<Action> = new Set(['create', 'update', 'delete']);

export function defaultParameter(path: string): string {
  const last = path.split('/').filter(Boolean).pop() ?? 'id';
  return last.replace(/-/g, '_').replace(/ies$/, 'y').replace(/s$/, '');
}

/** The route's last `:parameter`: where the id of show, update and delete comes from. */
function lastParameter(path: string): string {
  const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1] ?? '');
  return names[names.length - 1] ?? 'id';
}

export function registerResourceRoutes(
  app: FastifyInstance,
  route: ResourceRoute,
  deps: RouteDependencies,
): void {
  const { resource } = route;
  const only = new Set(route.only ?? ACTIONS);
  for (const action of only)
    if (!ACTIONS.includes(action)) throw new Error(`${route.path}: unknown action "${action}"`);
  const itemPath = `${route.path}/:${route.parameter ?? defaultParameter(route.path)}`;
  const idParameter = lastParameter(itemPath);
  const handlersFor = (action: Action) =>
    (WRITES.has(action) ? route.middleware?.write : route.middleware?.read)?.map((spec) =>
      deps.middleware(spec),
    ) ?? [];

  const authorized = async (action: Action, context: EngineContext) => {
    if (resource.authorize && !(await resource.authorize(action, context)))
      throw errors.unauthorized();
  };
  const streamAbove = deps.streamAbove ?? 1024 * 1024;
  const idOf = (request: FastifyRequest) => (request.params as Record<string, string>)[idParameter];
  const run =
    (
      action: Action,
      status: number,
      work: (context: EngineContext, request: FastifyRequest) => Promise<unknown>,
    ) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const context = deps.context(request);
      await authorized(action, context);
      const body = await work(context, request);
      return reply
        .code(status)
        .type('application/json; charset=utf-8')
        .send(jsonAnswer(body, streamAbove));
    };

  const table: Array<
    [Action, 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', string, number, Parameters<typeof run>[2]]
  > = [
    ['list', 'GET', route.path, 200, (c, r) => list(resource, c, mergeInputs(r.query, r.body))],
    ['create', 'POST', route.path, 201, (c, r) => create(resource, c, r.body)],
    ['show', 'GET', itemPath, 200, (c, r) => show(resource, c, idOf(r))],
    ['update', 'PUT', itemPath, 200, (c, r) => update(resource, c, idOf(r), r.body)],
    ['update', 'PATCH', itemPath, 200, (c, r) => update(resource, c, idOf(r), r.body)],
    ['delete', 'DELETE', itemPath, 200, (c, r) => destroy(resource, c, idOf(r))],
  ];
  for (const [action, method, url, status, work] of table) {
    if (!only.has(action)) continue;
    app.route({ method, url, preHandler: handlersFor(action), handler: run(action, status, work) });
  }
}
