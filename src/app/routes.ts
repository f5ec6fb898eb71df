// The resources this service ships (DESIGN.md 3.4) and the middleware each action needs.
import type { ResourceRoute } from '../engine/routes.js';
import { importTemplates } from './resources/import-templates.js';

/** Read = list and show, write = create, update, delete, each behind its ability. */
function guarded(name: string): NonNullable<ResourceRoute['middleware']> {
  return { read: [`svc.api:${name}.read`], write: [`svc.api:${name}.write`] };
}

export const serviceRoutes: readonly ResourceRoute[] = [
  { path: '/api/import-templates', parameter: 'import_template', resource: importTemplates, middleware: guarded('import-templates') },
];
