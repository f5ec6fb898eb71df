// Who may call a resource route's operations, from its middleware: the session or a bearer token
// with the abilities `svc.api:a,b` names.
import type { ResourceRoute } from '../../engine/routes.js';
import { parseMiddleware } from '../../kernel/middleware.js';

/** The bearer abilities a set of middleware names requires (`svc.api:a,b` -> a, b). */
export function abilitiesOf(specs: readonly string[] | undefined): string[] {
  return (specs ?? []).flatMap((spec) => {
    const { name, parameters } = parseMiddleware(spec);
    return name === 'svc.api' ? parameters : [];
  });
}

function authenticated(specs: readonly string[] | undefined): boolean {
  return (specs ?? []).some((spec) => ['svc.api', 'svc.auth'].includes(parseMiddleware(spec).name));
}

/** The security requirements of a route's reads or writes, and the bearer abilities they need. */
export function routeSecurity(route: ResourceRoute, write: boolean) {
  const specs = write ? route.middleware?.write : route.middleware?.read;
  if (!authenticated(specs)) return {};
  const abilities = abilitiesOf(specs);
  return {
    security: [{ bearer: abilities }, write ? { session: [], csrf: [] } : { session: [] }],
    'x-abilities': abilities,
  };
}
