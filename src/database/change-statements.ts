// The change log's statements per engine (DESIGN.md 3.9 "Order", issue 32). A reader that has
// read the changes up to seq N must never later find one at or below N, so seqs must become
// visible in seq order. A sequence or AUTO_INCREMENT value is taken before its commit, and a
// later value can commit first; so:
//   SQLite      the write transaction holds the database's single write lock from BEGIN
//               IMMEDIATE to COMMIT, so AUTOINCREMENT values are taken in commit order already:
//               the change is one INSERT ... RETURNING seq.
//   PostgreSQL, MySQL
//               the write inserts its change without a seq (one INSERT, no lock beyond the
//               row), and a change gets its seq only once committed: numberChanges, one short
//               transaction of its own, locks the counter row (svc_change_state `seq`), gives
//               every committed change still without one a seq above the counter, moves the
//               counter past them and commits (PostgreSQL: one statement, numberChangesInOne, which
//               is its own transaction: one round trip);
//               Numberings run one after the other (the lock), each above the last, and only
//               committed changes are numbered, so what a reader sees never gains a seq below
//               one it has seen. One numbering serves every write committed before it: writers
//               never queue for one another's COMMIT.
// Identifiers are constants; values are bound.
import { type RawBuilder, sql } from 'kysely';
import type { Db } from './db.js';
import { param, runStatement, statementSite } from './statement-runner.js';
import { insertRows } from './write-statements.js';

type Row = Record<string, unknown>;

export const CHANGES_TABLE = 'svc_changes';
export const CHANGE_STATE_TABLE = 'svc_change_state';

/**
 * A change as stored, seq aside (migrations/data/0007-changes.ts and 0010 describe the columns):
 * `record` is its revision's (DESIGN.md 3.11), the record after the write, JSON or null.
 */
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
  readonly record: string | null;
};

/** The columns the feed answers: a change's, its revision's `record` aside. */
export const FEED_COLUMNS = [
  'seq',
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
] as const;

/**
 * The column that orders one record's changes (its history): the key of the log's rows, taken
 * in the write's transaction. SQLite: the seq itself; elsewhere `id`, as `seq` comes later (a
 * record's writes hold its lock, so its ids follow its seqs).
 */
export function changeOrder(engine: string): 'seq' | 'id' {
  return engine === 'sqlite' ? 'seq' : 'id';
}

/** Names of the marks in svc_change_state below which the feed and the history keep nothing. */
export const FEED_PRUNED = 'pruned';
export const HISTORY_PRUNED = 'history_pruned';

const LOCK_COUNTER = statementSite('lock change counter');
const PENDING = statementSite('changes without seq');
const NUMBER = statementSite('number changes');
const NUMBERED = statementSite('numbered changes');
const MOVE_COUNTER = statementSite('move change counter');

/** Changes one numbering gives a seq at most. */
export const NUMBER_BATCH = 1000;

/** SQLite: the AUTOINCREMENT seq, taken under the write lock the transaction holds. */
export async function appendByAutoincrement(db: Db, change: StoredChange): Promise<number> {
  const [row] = await insertRows(db, CHANGES_TABLE, [change], 'seq');
  return Number(row?.seq);
}

/** PostgreSQL and MySQL: the change without its seq (numberChanges gives it once committed). */
export async function appendUnnumbered(db: Db, change: StoredChange): Promise<null> {
  await insertRows(db, CHANGES_TABLE, [change]);
  return null;
}

/**
 * Gives the committed changes without a seq (at most NUMBER_BATCH, oldest first) a seq each,
 * in `trx`, a transaction of its own: the counter row is locked first, then the changes read
 * after the lock are numbered `id + offset`, above the counter, and the counter moves past
 * them. Answers the changes numbered, with their seqs.
 */
export async function numberChanges(trx: Db, returning: boolean): Promise<Row[]> {
  const [counter] = await runStatement<Row>(
    trx,
    [LOCK_COUNTER],
    () => trx.selectFrom(CHANGE_STATE_TABLE).select('value').where('name', '=', 'seq').forUpdate(),
    {},
  );
  const [pending] = await runStatement<Row>(
    trx,
    [PENDING],
    () =>
      trx
        .selectFrom(
          trx
            .selectFrom(CHANGES_TABLE)
            .select('id')
            .where('seq', 'is', null)
            .orderBy('id')
            .limit(NUMBER_BATCH)
            .as('pending'),
        )
        .select((eb) => [eb.fn.min('id').as('lo'), eb.fn.max('id').as('hi')]),
    {},
  );
  if (pending?.lo == null || pending.hi == null) return [];
  const base = Number(counter?.value ?? 0);
  const lo = Number(pending.lo);
  const top = base + Number(pending.hi) - lo + 1;
  const values = { offset: base - lo + 1, lo, hi: Number(pending.hi) };
  const numbered = await runStatement<Row>(
    trx,
    [NUMBER, returning],
    () => {
      const update = trx
        .updateTable(CHANGES_TABLE)
        .set({ seq: sql`id + ${param('offset')}` })
        .where('seq', 'is', null)
        .where('id', '>=', param('lo'))
        .where('id', '<=', param('hi'));
      return returning ? update.returning([...FEED_COLUMNS]) : update;
    },
    values,
  );
  await runStatement(
    trx,
    [MOVE_COUNTER],
    () =>
      trx
        .updateTable(CHANGE_STATE_TABLE)
        .set({ value: param('top') })
        .where('name', '=', 'seq'),
    { top },
  );
  if (returning) return numbered;
  return runStatement<Row>(
    trx,
    [NUMBERED],
    () =>
      trx
        .selectFrom(CHANGES_TABLE)
        .select([...FEED_COLUMNS])
        .where('seq', '>', param('base'))
        .where('seq', '<=', param('top'))
        .orderBy('seq'),
    { base, top },
  );
}

const NUMBER_IN_ONE = statementSite('number changes (one statement)');

/**
 * numberChanges in one statement (PostgreSQL): its CTEs lock the counter row, read the changes
 * waiting, number them and move the counter. The statement's snapshot may be older than the
 * lock it waited for, but no less correct: `FOR UPDATE` answers the counter as the numbering it
 * waited for left it, a change that numbering gave a seq fails `seq is null` when rechecked and
 * is skipped, and every seq given is `id + counter - lo + 1` with `lo` at most the lowest id
 * numbered: above the counter, and at most where the counter moves.
 */
export async function numberChangesInOne(trx: Db): Promise<Row[]> {
  return runStatement<Row>(
    trx,
    [NUMBER_IN_ONE],
    () =>
      trx
        .with('counter', (q) =>
          q.selectFrom(CHANGE_STATE_TABLE).select('value').where('name', '=', 'seq').forUpdate(),
        )
        .with('pending', (q) =>
          q
            .selectFrom(
              q
                .selectFrom(CHANGES_TABLE)
                .select('id')
                .where('seq', 'is', null)
                .orderBy('id')
                .limit(NUMBER_BATCH)
                .as('waiting'),
            )
            .select((eb) => [eb.fn.min('id').as('lo'), eb.fn.max('id').as('hi')]),
        )
        .with('numbered', (q) =>
          q
            .updateTable(CHANGES_TABLE)
            .from(['counter', 'pending'])
            .set({ seq: sql`${sql.ref(`${CHANGES_TABLE}.id`)} + counter.value - pending.lo + 1` })
            .where(`${CHANGES_TABLE}.seq`, 'is', null)
            .where(
              sql<boolean>`${sql.ref(`${CHANGES_TABLE}.id`)} between pending.lo and pending.hi`,
            )
            .returning(FEED_COLUMNS.map((c) => `${CHANGES_TABLE}.${c}`) as never),
        )
        .with('moved', (q) =>
          q
            .updateTable(CHANGE_STATE_TABLE)
            .from(['counter', 'pending'])
            .set({ value: sql`counter.value + pending.hi - pending.lo + 1` })
            .where(`${CHANGE_STATE_TABLE}.name`, '=', 'seq')
            .where(sql<boolean>`pending.lo is not null`),
        )
        .selectFrom('numbered')
        .selectAll(),
    {},
  );
}

/** PostgreSQL and MySQL: the counter, the last seq given by a committed numbering. */
export const COUNTER_SEQ: RawBuilder<unknown> = sql`(select value from ${sql.table(CHANGE_STATE_TABLE)} where name = 'seq')`;

/** SQLite: the last AUTOINCREMENT value handed out (0 before the first change). */
export const AUTOINCREMENT_SEQ: RawBuilder<unknown> = sql`coalesce((select seq from sqlite_sequence where name = ${sql.lit(CHANGES_TABLE)}), 0)`;
