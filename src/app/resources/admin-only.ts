// The authorization check of the administration resources (DESIGN.md 3.4): only an admin user
// may act on users, companies, units and groups, in both modes. Direct invocation from the
// service's own code (no request) is trusted.
import type { Action, AuthorizationRequest } from '../../engine/definition/resource-config.js';

export function adminOnly(_action: Action, request: AuthorizationRequest): boolean {
  return request.mode === 'direct' || request.user?.admin === 'Y';
}
