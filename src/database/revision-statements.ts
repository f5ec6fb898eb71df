// The revisions' statements (DESIGN.md 3.11, migrations/data/0008-revisions.ts): a revision is
// appended right after its change, in the same transaction, by one INSERT that names its change
// without a round trip: SQLite hands the change's seq back already; PostgreSQL's lastval() and
// MySQL's last_insert_id() are the id the change's INSERT just took on this connection.
// Identifiers are constants; values are bound.
import { type RawBuilder, sql } from 'kysely';
import type { Db } from './db.js';
import { param, runCached, statementSite } from './query-cache.js';

export const REVISIONS_TABLE = 'svc_revisions';

/**
 * A revision as stored: its change's columns (change-statements.ts StoredChange) and `record`,
 * the record after the write (JSON, or null).
 */
export type StoredRevision = Readonly<Record<string, unknown>> & { readonly record: string | null };

const APPEND = statementSite('append revision');
const NUMBER = statementSite('number revisions');

/** The id the change's INSERT just took on this connection, per engine (SQLite: its seq). */
function lastChangeId(engine: string): RawBuilder<unknown> {
  return engine === 'postgres' ? sql`lastval()` : sql`last_insert_id()`;
}

/**
 * Appends the revision of the change just appended on `db`: `seq` is the change's where the
 * engine gave it at once, else null until numberRevisions.
 */
export async function appendRevision(
  db: Db,
  engine: string,
  revision: StoredRevision,
  seq: number | null,
): Promise<void> {
  const columns = Object.keys(revision);
  const numbered = seq !== null;
  await runCached(
    db,
    [APPEND, engine, numbered, ...columns],
    () =>
      db.insertInto(REVISIONS_TABLE).values({
        ...Object.fromEntries(columns.map((c) => [c, param(c)])),
        change_id: numbered ? param('seq') : lastChangeId(engine),
        seq: numbered ? param('seq') : sql`null`,
      }),
    numbered ? { ...revision, seq } : revision,
  );
}

/**
 * In the numbering transaction of the changes with ids `lo` to `hi` (seq = id + offset): their
 * revisions get the same seqs.
 */
export async function numberRevisions(
  trx: Db,
  values: { offset: number; lo: number; hi: number },
): Promise<void> {
  await runCached(
    trx,
    [NUMBER],
    () =>
      trx
        .updateTable(REVISIONS_TABLE)
        .set({ seq: sql`change_id + ${param('offset')}` })
        .where('seq', 'is', null)
        .where('change_id', '>=', param('lo'))
        .where('change_id', '<=', param('hi')),
    values,
  );
}
