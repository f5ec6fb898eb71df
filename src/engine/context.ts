// What an action needs from its caller: the databases of the request and who is acting.
import type { Database } from '../database/database.js';
import { driverError } from '../database/driver-errors.js';
import { CheckMoved, type RidingCheck, ridingWithin } from '../database/riding-check.js';
import { HttpError } from '../errors.js';
import type { Connections } from '../model/connections.js';
import type { Storage } from '../model/entity.js';
import type { Scope } from '../model/scope.js';
import type { Actor, AppendedChange } from './changes/change.js';
import { changesAppended } from './changes/committed.js';
import type { AuthorizationRequest, UpdateEffects } from './definition/resource-config.js';

export interface EngineContext {
  /** The database of the system tables. */
  readonly system: Database;
  /** The database of the caller's unit (the system one unless the unit has a connection). */
  readonly data: Database;
  readonly scope: Scope;
  /** The acting user's stored record, for authorization checks. */
  readonly user: AuthorizationRequest['user'];
  readonly mode: AuthorizationRequest['mode'];
  /**
   * Who an Idempotency-Key belongs to (engine/idempotency): `token:<id>` in bearer mode,
   * `user:<id>` in session mode; absent for direct invocations, which take no key.
   */
  readonly caller?: string;
  /**
   * A check the action's first read of the system database may carry (issue 22: the bearer
   * token's); the route settles it before answering.
   */
  readonly check?: RidingCheck;
  /** Who the changes of its writes are recorded as made by; absent: svc itself (`system`). */
  readonly actor?: Actor;
  readonly endSessionsOf?: UpdateEffects['endSessionsOf'];
}

export function connectionsOf(context: EngineContext): Connections {
  return { system: context.system.db, data: context.data.db };
}

/**
 * Runs `work` in one transaction of the database that stores `storage` (the record's: its
 * change is appended there too); reads of the other database join it when the two are one. A
 * driver error is answered as svc's (database/driver-errors.ts): a constraint the rules did not
 * foresee is a 422 under the record, whoever invoked the action. The context's riding check,
 * handed to `work` for a statement of the transaction to carry, must hold before the commit.
 * The changes `work` pushes to `appended` are numbered, where the engine numbers them once
 * committed, and handed to the database's listeners after the commit (changes/committed.ts).
 */
export async function inTransaction<T>(
  context: EngineContext,
  storage: Storage,
  work: (
    connections: Connections,
    check: RidingCheck | undefined,
    appended: AppendedChange[],
  ) => Promise<T>,
): Promise<T> {
  const shared = context.system === context.data;
  const database = storage === 'data' ? context.data : context.system;
  const onSystem = database === context.system;
  const { check } = context;
  for (let attempt = 1; ; attempt++) {
    const appended: AppendedChange[] = [];
    try {
      const result = await database.transaction(async (trx) => {
        const riding = check && onSystem ? ridingWithin(check, trx) : undefined;
        const connections = {
          system: onSystem ? trx : context.system.db,
          data: shared || !onSystem ? trx : context.data.db,
        };
        const answer = await work(connections, riding, appended);
        if (check && !riding?.holds()) throw new CheckMoved();
        return answer;
      });
      changesAppended(database, appended);
      return result;
    } catch (error) {
      // A deadlock's victim was rolled back whole: the write runs again from its start (writes
      // of detail rows by several writers at once meet gap locks on MariaDB).
      if (
        attempt < DEADLOCK_ATTEMPTS &&
        database.adapter.translateError(error)?.kind === 'deadlock'
      )
        continue;
      throw error instanceof HttpError
        ? error
        : (driverError(error, [context.data.adapter, context.system.adapter], 'record') ?? error);
    }
  }
}

/** How many times a write runs when the database keeps choosing it as a deadlock's victim. */
const DEADLOCK_ATTEMPTS = 4;

/** The dialect adapter of the database that stores `storage`. */
export function adapterFor(context: EngineContext, storage: 'system' | 'data') {
  return (storage === 'data' ? context.data : context.system).adapter;
}
