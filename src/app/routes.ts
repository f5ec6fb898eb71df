// The resources this service ships (DESIGN.md 3.4) and the abilities each action needs.
import { declaredAbilities } from '../auth/abilities.js';
import type { Resource } from '../engine/definition/define-resource.js';
import type { ResourceRoute } from '../engine/routes.js';
import { singular } from '../model/declare-entity.js';
import { SEND_NOTIFICATIONS_MIDDLEWARE } from '../notifications/notification-routes.js';
import { declareWebhookResources } from './entities/webhook.js';
import { companies, groups, units, users } from './resources/administration.js';
import { importTemplateLogs } from './resources/import-template-logs.js';
import { importTemplates } from './resources/import-templates.js';
import { webhooks } from './resources/webhooks.js';

/** Read = list and show, write = create, update, delete, each behind its ability. */
function guarded(name: string): NonNullable<ResourceRoute['middleware']> {
  return { read: [`svc.api:${name}.read`], write: [`svc.api:${name}.write`] };
}

/**
 * Resource `name`'s route: /api/<name>, its id parameter the singular (`supplier`), behind its
 * own abilities <name>.read and <name>.write.
 */
export function resourceRoute(
  name: string,
  resource: Resource,
  only?: ResourceRoute['only'],
): ResourceRoute {
  const parameter = singular(name).replace(/-/g, '_');
  return {
    path: `/api/${name}`,
    parameter,
    resource,
    middleware: guarded(name),
    ...(only ? { only } : {}),
  };
}

export const serviceRoutes: readonly ResourceRoute[] = [
  {
    path: '/api/import-templates',
    parameter: 'import_template',
    resource: importTemplates,
    middleware: guarded('import-templates'),
  },
  {
    path: '/api/import-template-logs',
    parameter: 'import_template_log',
    resource: importTemplateLogs,
    only: ['list', 'show', 'create'],
    middleware: guarded('import-template-logs'),
  },
  { path: '/api/users', parameter: 'user', resource: users, middleware: guarded('users') },
  {
    path: '/api/companies',
    parameter: 'company',
    resource: companies,
    middleware: guarded('companies'),
  },
  { path: '/api/units', parameter: 'unit', resource: units, middleware: guarded('units') },
  { path: '/api/groups', parameter: 'group', resource: groups, middleware: guarded('groups') },
  {
    path: '/api/webhooks',
    parameter: 'webhook',
    resource: webhooks,
    middleware: guarded('webhooks'),
  },
];

// An endpoint's events name these resources' changes.
declareWebhookResources(serviceRoutes.map((route) => route.resource.name));

/** Middleware of the service's routes outside the resource engine (POST /api/notifications). */
export const otherRouteMiddleware: readonly string[] = [SEND_NOTIFICATIONS_MIDDLEWARE];

/** Every middleware declaration of the service's routes (the grantable abilities come from these). */
export function routeMiddleware(
  routes: readonly ResourceRoute[] = serviceRoutes,
  others: readonly string[] = otherRouteMiddleware,
): string[] {
  return [...resourceMiddleware(routes), ...others];
}

function resourceMiddleware(routes: readonly ResourceRoute[]): string[] {
  return routes.flatMap((r) => {
    const only = r.only ?? ['list', 'show', 'create', 'update', 'delete'];
    const reads = only.some((a) => a === 'list' || a === 'show') ? (r.middleware?.read ?? []) : [];
    const writes = only.some((a) => a !== 'list' && a !== 'show')
      ? (r.middleware?.write ?? [])
      : [];
    return [...reads, ...writes];
  });
}

/** The grantable abilities (SPEC.md 5.1.6): exactly those the routes declare. */
export function grantableAbilities(
  routes: readonly ResourceRoute[] = serviceRoutes,
  others: readonly string[] = otherRouteMiddleware,
): string[] {
  return declaredAbilities(routeMiddleware(routes, others));
}
