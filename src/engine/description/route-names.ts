// Names a resource route gives itself: its collection name (the path's last segment), its labels
// and the actions it exposes. Shared by the OpenAPI document and the admin metadata.
import { labelOf } from '../../model/labels.js';
import { ACTIONS, type Action } from '../definition/resource-config.js';
import { defaultParameter, type ResourceRoute } from '../routes.js';

/** `/api/import-templates` -> `import-templates`. */
export function collectionName(route: ResourceRoute): string {
  return route.path.split('/').filter(Boolean).pop() ?? route.path;
}

/** The id parameter's name as the route declares it (`import_template`). */
export function parameterName(route: ResourceRoute): string {
  return route.parameter ?? defaultParameter(route.path);
}

export function resourceLabels(route: ResourceRoute): { plural: string; singular: string } {
  const { resource } = route;
  return {
    plural: resource.label ?? labelOf(collectionName(route)),
    singular: resource.singularLabel ?? labelOf(parameterName(route)),
  };
}

/** The actions the route exposes, in the order of SPEC.md 4.1. */
export function routeActions(route: ResourceRoute): Action[] {
  const only = new Set(route.only ?? ACTIONS);
  return ACTIONS.filter((a) => only.has(a));
}
