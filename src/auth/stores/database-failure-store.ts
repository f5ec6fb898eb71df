// Failure counters in the auth_failures table: one row per IP holding the current window.
import { sql } from 'kysely';
import type { Database } from '../../database/database.js';
import { param, runStatement, statementSite } from '../../database/statement-runner.js';
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
      const [row] = await runStatement<Record<string, unknown>>(
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
    // One atomic statement per failure: concurrent failures from one IP each count (a read
    // then a write lost increments on PostgreSQL and MariaDB, and two first failures raced to
    // insert the row: a 422 "ip has already been taken" instead of the 401).
    async record(ip, now, windowMs) {
      const started = adapter.toTimestamp(new Date(now));
      const ended = sql<boolean>`window_started_at <= ${adapter.toTimestamp(new Date(now - windowMs))}`;
      const count = () =>
        db
          .updateTable('auth_failures')
          .set({
            failures: sql`case when ${ended} then 1 else failures + 1 end`,
            window_started_at: sql`case when ${ended} then ${started} else window_started_at end`,
          })
          .where('ip', '=', ip)
          .executeTakeFirst();
      if (Number((await count()).numUpdatedRows) > 0) return;
      try {
        await db
          .insertInto('auth_failures')
          .values({ ip, failures: 1, window_started_at: started })
          .execute();
      } catch (error) {
        // Another request's first failure from this IP inserted the row meanwhile: count on it.
        if (adapter.translateError(error)?.kind !== 'unique') throw error;
        await count();
      }
    },
  };
}
