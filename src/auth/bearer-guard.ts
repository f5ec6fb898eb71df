// The stateless bearer mode of `svc.api` (SPEC.md 5.1). Order of checks: the token's shape (no
// token lookup for a malformed one), one indexed lookup that also reads the caller IP's failure
// window, the per-IP limit (429 even for a valid token), then revocation, expiry, the scope
// re-validation; the route's abilities (all required) are checked by the guard.
import type { FastifyRequest } from 'fastify';
import type { Database } from '../database/database.js';
import type { UnknownConnection } from '../database/unit-databases.js';
import { errors } from '../errors.js';
import '../kernel/request-state.js';
import type { Clock, FailureLimiter } from './failure-limiter.js';
import { scopeRefusal } from './scope-check.js';
import { decodeToken, sameHash } from './tokens/api-token.js';
import { findTokenIdentity } from './tokens/token-lookup.js';

export interface BearerOptions {
  readonly system: Database;
  /** The database of a unit's data tables (its `connection`'s, or the system one), or the unknown name. */
  readonly dataFor: (connection: string | null) => Database | UnknownConnection;
  readonly limiter: FailureLimiter;
  readonly tenantIsolation: boolean;
  readonly clock: Clock;
}

const LAST_USED_EVERY_MS = 60_000;

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? '';
}

/** Authenticates a bearer request and sets `request.svc`; throws the catalog's 401/403/429. */
export async function authenticateBearer(
  request: FastifyRequest,
  options: BearerOptions,
): Promise<readonly string[]> {
  const { limiter, system } = options;
  const ip = request.ip;
  /** A presented credential's 401 counts as a failure, unless the IP is already blocked: then it is the 429. */
  const refuse = async (message: string, blocked?: boolean) => {
    if (blocked ?? (await limiter.blocked(ip))) return errors.tooManyAttempts();
    await limiter.fail(ip);
    return errors.bearerUnauthenticated(message);
  };
  const token = bearerToken(request);
  // No credential at all (nor a live session: the guard tried it first) guesses nothing, so it is
  // not counted (DESIGN.md 3.6): else a browser tab or a probe locks out everyone behind its IP.
  // A blocked IP still gets its 429 (DESIGN.md 3.5).
  if (token === null)
    throw (await limiter.blocked(ip))
      ? errors.tooManyAttempts()
      : errors.bearerUnauthenticated('Unauthenticated.');
  const hash = decodeToken(token);
  if (!hash) throw await refuse('Invalid token.');
  const identity = await findTokenIdentity(system, hash, limiter.inSystemDatabase ? ip : null);
  if (!identity || !sameHash(identity.tokenHash, hash)) throw await refuse('Invalid token.');
  const blocked = limiter.blockedBy(
    limiter.inSystemDatabase ? identity.ipWindow : await limiter.window(ip),
  );
  if (blocked) throw errors.tooManyAttempts();
  if (identity.revokedAt != null) throw await refuse('Token revoked.', false);
  const now = options.clock();
  const { expiresAt } = identity;
  if (expiresAt !== null && expiresAt <= now) throw await refuse('Token expired.', false);

  const refusal = scopeRefusal(identity, options.tenantIsolation);
  if (refusal || !identity.user || !identity.unit)
    throw errors.bearerForbidden(refusal ?? 'Forbidden.');

  const lastUsed = identity.lastUsedAt;
  if (lastUsed === null || now - lastUsed >= LAST_USED_EVERY_MS) {
    await system.db
      .updateTable('api_tokens')
      .set({ last_used_at: system.adapter.toTimestamp(new Date(now)) })
      .where('id', '=', identity.tokenId)
      .execute();
  }
  request.svc = {
    mode: 'bearer',
    scope: {
      userId: Number(identity.user.id),
      unitId: identity.unit.id,
      // Tenant-bound entities are filtered by company only in isolation mode (SPEC.md 7).
      tenantId: options.tenantIsolation ? identity.unit.companyId : null,
      companyId: identity.unit.companyId,
    },
    user: identity.user,
    data: options.dataFor(identity.unit.connection),
    abilities: identity.abilities,
    tokenId: identity.tokenId,
  };
  return identity.abilities;
}
