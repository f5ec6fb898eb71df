// The engine context of a request: the databases, scope and user the auth middleware set, or
// the direct context (no user, no scope) when no middleware ran (fixture apps).
import type { FastifyRequest } from 'fastify';
import type { SessionStore } from '../auth/session/session-store.js';
import type { Database } from '../database/database.js';
import { readingFor } from '../database/reading-caller.js';
import type { EngineContext } from '../engine/context.js';
import { errors } from '../errors.js';
import { NO_SCOPE } from '../model/scope.js';
import '../kernel/request-state.js';

/**
 * `sessions`: where a password change ends the user's other sessions (the service's store; none
 * in fixture apps).
 */
export function engineContextOf(
  database: Database,
  sessions?: Pick<SessionStore, 'endUserSessions'>,
): (request: FastifyRequest) => EngineContext {
  return (request) => {
    const state = request.svc;
    if (!state)
      return { system: database, data: database, scope: NO_SCOPE, user: null, mode: 'direct' };
    // Never the main database instead: that would show and change another database's data.
    if ('unknownConnection' in state.data)
      throw errors.unitDatabaseUnavailable(state.data.unknownConnection);
    // Its reads may now go to a replica that has replayed its own last write (DESIGN.md 3.12).
    readingFor(state.scope.userId);
    return {
      system: database,
      data: state.data,
      scope: state.scope,
      user: state.user,
      mode: state.mode,
      caller: state.tokenId !== undefined ? `token:${state.tokenId}` : `user:${state.scope.userId}`,
      check: state.check,
      actor: {
        user_id: state.scope.userId,
        token_id: state.tokenId ?? null,
        via: state.mode,
      },
      endSessionsOf: sessions
        ? (userId) =>
            sessions.endUserSessions(
              userId,
              state.scope.userId === userId ? (state.session?.key ?? null) : null,
            )
        : undefined,
    };
  };
}
