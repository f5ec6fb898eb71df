// The change log's statements per engine (DESIGN.md 3.9 "Order", issue 32). A reader that has
// read the changes up to seq N must never later find one at or below N, so a change's seq must
// become visible in seq order. A sequence or AUTO_INCREMENT value is taken before its commit,
// and a later value can commit first; so here the seq is taken under a lock held until commit:
//   SQLite      the write transaction holds the database's single write lock from BEGIN
//               IMMEDIATE to COMMIT, so AUTOINCREMENT values are taken in commit order already:
//               one INSERT ... RETURNING.
//   PostgreSQL  one statement: a CTE increments the counter row (svc_change_state `seq`), which
//               locks it until COMMIT, and the INSERT stores the change under that value.
//   MySQL       UPDATE the counter to LAST_INSERT_ID(value + 1) (its OK packet answers the value),
//               then INSERT the change: two statements.
// The change is the write's last statement, so the counter's lock is held from it to COMMIT
// only: writers of one database queue for that moment, not for their whole transaction.
// Identifiers are constants; values are bound.
import { type RawBuilder, sql } from 'kysely';
import type { Db } from './db.js';
import { compiledStatement, param, runCached, statementSite } from './query-cache.js';
import { insertRows } from './write-statements.js';

export const CHANGES_TABLE = 'svc_changes';
export const CHANGE_STATE_TABLE = 'svc_change_state';

/** A change as stored, seq aside (migrations/data/0007-changes.ts describes the columns). */
export type StoredChange = {
  readonly resource: string;
  readonly record_id: string;
  readonly action: 'created' | 'updated' | 'deleted';
  readonly version: number | null;
  readonly at: number;
  readonly user_id: number | null;
  readonly token_id: number | null;
  readonly via: string;
  readonly unit_id: number | null;
  readonly company_id: number | null;
  readonly changes: string;
};

export const CHANGE_COLUMNS = [
  'resource',
  'record_id',
  'action',
  'version',
  'at',
  'user_id',
  'token_id',
  'via',
  'unit_id',
  'company_id',
  'changes',
] as const satisfies ReadonlyArray<keyof StoredChange>;

const PG_APPEND = statementSite('append change (counter CTE)');
const MYSQL_COUNTER = statementSite('take change seq (LAST_INSERT_ID)');

/** SQLite: the AUTOINCREMENT seq, taken under the write lock the transaction holds. */
export async function appendByAutoincrement(db: Db, change: StoredChange): Promise<number> {
  const [row] = await insertRows(db, CHANGES_TABLE, [change], 'seq');
  return Number(row?.seq);
}

/** PostgreSQL: the counter's next value and the change, in one statement. */
export async function appendUnderCounterCte(db: Db, change: StoredChange): Promise<number> {
  const [row] = await runCached<{ seq: unknown }>(
    db,
    [PG_APPEND],
    () =>
      db
        .with('taken', (q) =>
          q
            .updateTable(CHANGE_STATE_TABLE)
            .set({ value: sql`value + 1` })
            .where('name', '=', 'seq')
            .returning('value'),
        )
        .insertInto(CHANGES_TABLE)
        .values({
          seq: sql`(select value from taken)`,
          ...Object.fromEntries(CHANGE_COLUMNS.map((c) => [c, param(c)])),
        })
        .returning('seq'),
    change,
  );
  return Number(row?.seq);
}

/** MySQL: the counter's next value (answered by the UPDATE itself), then the change. */
export async function appendUnderCounterUpdate(db: Db, change: StoredChange): Promise<number> {
  const taken = await db.executeQuery(
    compiledStatement(
      db,
      [MYSQL_COUNTER],
      () =>
        db
          .updateTable(CHANGE_STATE_TABLE)
          .set({ value: sql`last_insert_id(value + 1)` })
          .where('name', '=', 'seq'),
      {},
    ),
  );
  const seq = Number(taken.insertId);
  if (!Number.isSafeInteger(seq) || seq < 1) throw new Error('The change counter is missing');
  await insertRows(db, CHANGES_TABLE, [{ seq, ...change }]);
  return seq;
}

/** PostgreSQL and MySQL: the last seq taken and committed, as a sub-query. */
export const COUNTER_SEQ: RawBuilder<unknown> = sql`(select value from ${sql.table(CHANGE_STATE_TABLE)} where name = 'seq')`;

/** SQLite: the last AUTOINCREMENT value handed out (0 before the first change). */
export const AUTOINCREMENT_SEQ: RawBuilder<unknown> = sql`coalesce((select seq from sqlite_sequence where name = ${sql.lit(CHANGES_TABLE)}), 0)`;
