// The two route middlewares behind one place (STYLE.md example 6):
// - `svc.api[:abilities]`: a request with an Authorization header is in bearer mode (abilities
//   required); any other request is in session mode when it carries a valid session (CSRF on
//   writes, no abilities: SPEC.md 5); with neither it is the bearer 401.
// - `svc.auth`: session mode only, 401 `{message: "Unauthenticated."}` without a session.
// Authentication always runs before the CSRF check, so a write with neither is a 401.
import { errors } from '../errors.js';
import type { MiddlewareFactory } from '../kernel/middleware.js';
import { checkAbilities } from './abilities.js';
import { authenticateBearer, type BearerOptions, carryBearerCheck } from './bearer-guard.js';
import type { SessionAuth } from './session/session-auth.js';

export function apiGuard(bearer: BearerOptions, sessions: SessionAuth): MiddlewareFactory {
  return (parameters) => {
    const required = checkAbilities(parameters);
    return async (request) => {
      if (request.headers.authorization === undefined && (await sessions.authenticate(request))) {
        sessions.checkCsrf(request);
        return;
      }
      const verify = async () => {
        const granted = await authenticateBearer(request, bearer);
        const missing = required.find((ability) => !granted.includes(ability));
        if (missing) throw errors.missingAbility(missing);
      };
      const carried = request.routeOptions.config.settlesRidingCheck
        ? await carryBearerCheck(request, bearer, verify)
        : null;
      // A token that lacks an ability gets the full check, and its 403 from there.
      if (carried && required.every((ability) => carried.includes(ability))) return;
      await verify();
    };
  };
}

export function sessionGuard(sessions: SessionAuth): MiddlewareFactory {
  return (parameters) => {
    if (parameters.length > 0) throw new Error('svc.auth takes no parameters');
    return async (request) => {
      if (!(await sessions.authenticate(request))) throw errors.sessionUnauthenticated();
      sessions.checkCsrf(request);
    };
  };
}
