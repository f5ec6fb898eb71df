// Per-request state set by the auth middleware and read by the engine's route handlers
// (STYLE.md example 6: explicit per-request state, typed through declaration merging).
import type { Database } from '../database/database.js';
import type { RidingCheck } from '../database/riding-check.js';
import type { UnknownConnection } from '../database/unit-databases.js';
import type { Row } from '../model/entity.js';
import type { Scope } from '../model/scope.js';

export interface RequestState {
  readonly mode: 'bearer' | 'session';
  readonly scope: Scope;
  /** The acting user's stored record. */
  readonly user: Row;
  /**
   * The database holding the data tables of the request's unit; for a unit whose connection
   * names no configured database, that name: its resource requests answer 503.
   */
  readonly data: Database | UnknownConnection;
  /** Bearer mode: the token's abilities. */
  readonly abilities?: readonly string[];
  /** Bearer mode: the token's id (what an Idempotency-Key is scoped to). */
  readonly tokenId?: number;
  /** Session mode: the session's store key and CSRF secret. */
  readonly session?: { readonly key: string; readonly csrfSecret: string };
  /** The unit's name, for the session answers. */
  readonly unitName?: string;
  /** Bearer mode on a list, show, create or update route: the token check a statement carries (auth/bearer-guard.ts). */
  readonly check?: RidingCheck;
}

declare module 'fastify' {
  interface FastifyRequest {
    svc: RequestState | null;
  }
  interface FastifyContextConfig {
    /**
     * The route's handler settles a check its statements carry before it answers
     * (engine/routes.ts), so the guard may let its statement carry the token's check
     * (database/riding-check.ts).
     */
    settlesRidingCheck?: boolean;
  }
}
