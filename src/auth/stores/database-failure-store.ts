// Failure counters in the auth_failures table: one row per IP holding the current window.
import type { Database } from '../../database/database.js';
import { param, runCached, statementSite } from '../../database/query-cache.js';
import { toMillis } from '../../model/casts.js';
import type { FailureStore, FailureWindow } from '../failure-limiter.js';

/** A window read from auth_failures columns (null when the IP has no row). */
export function failureWindow(failures: unknown, startedAt: unknown): FailureWindow | null {
  return failures == null
    ? null
    : { failures: Number(failures), startedAt: toMillis(startedAt) ?? 0 };
}

const FAILURE_WINDOW = statementSite('auth failure window');

export function databaseFailureStore(database: Database): FailureStore {
  const { db, adapter } = database;
  return {
    inSystemDatabase: true,
    async get(ip): Promise<FailureWindow | null> {
      const [row] = await runCached<Record<string, unknown>>(
        db,
        [FAILURE_WINDOW],
        () =>
          db
            .selectFrom('auth_failures')
            .select(['failures', 'window_started_at'])
            .where('ip', '=', param('ip')),
        { ip },
      );
      return failureWindow(row?.failures, row?.window_started_at);
    },
    async record(ip, now, windowMs) {
      await database.transaction(async (trx) => {
        const row = await trx
          .selectFrom('auth_failures')
          .select(['failures', 'window_started_at'])
          .where('ip', '=', ip)
          .executeTakeFirst();
        const fresh = { failures: 1, window_started_at: adapter.toTimestamp(new Date(now)) };
        if (!row)
          await trx
            .insertInto('auth_failures')
            .values({ ip, ...fresh })
            .execute();
        else if (now >= (toMillis(row.window_started_at) ?? 0) + windowMs)
          await trx.updateTable('auth_failures').set(fresh).where('ip', '=', ip).execute();
        else
          await trx
            .updateTable('auth_failures')
            .set({ failures: Number(row.failures) + 1 })
            .where('ip', '=', ip)
            .execute();
      });
    },
  };
}
