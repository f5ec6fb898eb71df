// The stateless bearer mode of `svc.api` (SPEC.md 5.1). Order of checks: the token's shape (no
// token lookup for a malformed one), one indexed lookup that also reads the caller IP's failure
// window, the per-IP limit (429 even for a valid token), then revocation, expiry, the scope
// re-validation; the route's abilities (all required) are checked by the guard. On PostgreSQL a
// list, show, create or update may carry the same checks in its own statement instead
// (carryBearerCheck; a write in its reload, settled before its commit).

import type { FastifyRequest } from 'fastify';
import type { Database } from '../database/database.js';
import { asBookkeeping } from '../database/reading-caller.js';
import type { RidingCheck } from '../database/riding-check.js';
import type { UnknownConnection } from '../database/unit-databases.js';
import { errors } from '../errors.js';
import type { RequestState } from '../kernel/request-state.js';
import type { Clock, FailureLimiter, FailureWindow } from './failure-limiter.js';
import { scopeRefusal } from './scope-check.js';
import { decodeToken, sameHash } from './tokens/api-token.js';
import { forgetToken, knownToken, rememberToken } from './tokens/known-tokens.js';
import {
  carriedFingerprintTest,
  findTokenIdentity,
  type TokenIdentity,
} from './tokens/token-lookup.js';

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
  const windowIp = limiter.inSystemDatabase ? ip : null;
  const identity = await findTokenIdentity(system, hash, windowIp);
  if (!identity || !sameHash(identity.tokenHash, hash)) throw await refuse('Invalid token.');
  const now = options.clock();
  const verdict = verdictOf(identity, await windowOf(identity, ip, limiter), now, options);
  switch (verdict?.kind) {
    case 'blocked':
      throw errors.tooManyAttempts();
    case 'revoked':
      throw await refuse('Token revoked.', false);
    case 'expired':
      throw await refuse('Token expired.', false);
    case 'forbidden':
      throw errors.bearerForbidden(verdict.message);
  }

  let usedAt = identity.lastUsedAt;
  if (usedAt === null || now - usedAt >= LAST_USED_EVERY_MS) {
    await asBookkeeping(() =>
      system.db
        .updateTable('api_tokens')
        .set({ last_used_at: system.adapter.toTimestamp(new Date(now)) })
        .where('id', '=', identity.tokenId)
        .execute(),
    );
    usedAt = now;
  }
  rememberToken(system, hash, windowIp, identity, usedAt);
  request.svc = stateOf(identity, options);
  return identity.abilities;
}

type Verdict =
  | { readonly kind: 'blocked' | 'revoked' | 'expired' }
  | { readonly kind: 'forbidden'; readonly message: string };

/** The caller IP's failure window: read with the token where the counters live beside it. */
async function windowOf(identity: TokenIdentity, ip: string, limiter: FailureLimiter) {
  return limiter.inSystemDatabase ? identity.ipWindow : limiter.window(ip);
}

/** Why the token does not pass at `now`, in the order the checks are made; null when it does. */
function verdictOf(
  identity: TokenIdentity,
  window: FailureWindow | null,
  now: number,
  options: BearerOptions,
): Verdict | null {
  if (options.limiter.blockedBy(window)) return { kind: 'blocked' };
  if (identity.revokedAt != null) return { kind: 'revoked' };
  if (identity.expiresAt !== null && identity.expiresAt <= now) return { kind: 'expired' };
  const refusal = scopeRefusal(identity, options.tenantIsolation);
  if (refusal || !identity.user || !identity.unit)
    return { kind: 'forbidden', message: refusal ?? 'Forbidden.' };
  return null;
}

/** The request state a passing token gives. */
function stateOf(identity: TokenIdentity, options: BearerOptions): RequestState {
  const { user, unit } = identity;
  if (!user || !unit) throw new Error('a passing token has a user and a unit');
  return {
    mode: 'bearer',
    scope: {
      userId: Number(user.id),
      unitId: unit.id,
      // Tenant-bound entities are filtered by company only in isolation mode (SPEC.md 7).
      tenantId: options.tenantIsolation ? unit.companyId : null,
      companyId: unit.companyId,
    },
    user,
    data: options.dataFor(unit.connection),
    abilities: identity.abilities,
    tokenId: identity.tokenId,
  };
}

/**
 * Issue 22: where the database can carry it (DialectAdapter.jsonText), a resource route's token
 * check rides in the route's own statement (a RidingCheck, database/riding-check.ts: the column and what settling does are
 * this policy's), on the token's state
 * the last full check of this process saw, when that state passes now and its last use needs
 * no update. Sets `request.svc` and answers the token's abilities; null when it cannot carry
 * the check (the caller then runs `verify`, the full check, as settling does when the carried
 * test fails: the work is done again when the state moved).
 */
export async function carryBearerCheck(
  request: FastifyRequest,
  options: BearerOptions,
  verify: () => Promise<void>,
): Promise<readonly string[] | null> {
  const { system, limiter } = options;
  const { jsonText } = system.adapter;
  const token = bearerToken(request);
  const hash = jsonText && token ? decodeToken(token) : null;
  if (!jsonText || !hash) return null;
  const windowIp = limiter.inSystemDatabase ? request.ip : null;
  const known = knownToken(system, hash, windowIp);
  if (!known?.identity.fingerprint) return null;
  const { identity } = known;
  const now = options.clock();
  if (known.lastUsedAt === null || now - known.lastUsedAt >= LAST_USED_EVERY_MS) return null;
  if (verdictOf(identity, await windowOf(identity, request.ip, limiter), now, options)) return null;
  const state = stateOf(identity, options);
  // The carrying statement runs where the tokens are.
  if (state.data !== system) return null;
  let unchanged = false;
  const check: RidingCheck = {
    db: system.db,
    key: windowIp === null ? 'bearer token' : 'bearer token, ip window',
    values: {
      carried_token_hash: hash,
      carried_fingerprint: identity.fingerprint,
      ...(windowIp === null ? {} : { carried_ip: windowIp }),
    },
    column: () =>
      carriedFingerprintTest(system.adapter, jsonText, {
        hash: 'carried_token_hash',
        ip: windowIp === null ? null : 'carried_ip',
        fingerprint: 'carried_fingerprint',
      }).as(UNCHANGED),
    read(rows) {
      // true on PostgreSQL, 1 on MariaDB/MySQL (a comparison is an integer there).
      const test = rows[0]?.[UNCHANGED];
      unchanged = test === true || test === 1;
    },
    holds: () => unchanged,
    async settle() {
      if (unchanged) return true;
      forgetToken(system, hash, windowIp);
      await verify();
      return sameState(state, request.svc);
    },
  };
  request.svc = { ...state, check };
  return identity.abilities;
}

const UNCHANGED = '$token_unchanged';

function sameState(a: RequestState, b: RequestState | null): boolean {
  if (!b) return false;
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  return (
    a.data === b.data &&
    a.tokenId === b.tokenId &&
    same(a.scope, b.scope) &&
    same(a.abilities, b.abilities) &&
    same(a.user, b.user)
  );
}
