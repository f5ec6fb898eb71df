// Exact result memos on PostgreSQL (statement-runner MemoScope `true`: a list's total, issue 22). A
// statement's snapshot (pg_current_snapshot(): xmin, xmax and the transactions in progress)
// fixes which commits it sees, so two statements with equal snapshots read the same data, on any
// instance. A memoised statement is sent wrapped: it answers its snapshot, and runs the query
// only when that snapshot differs from the one of the rows kept (the scalar sub-query is an
// init plan, which PostgreSQL runs only when the CASE reaches it). Still one statement per call;
// a commit that wrote anything moves the snapshot, so the query runs again. Outside transactions
// only (statement-runner): a transaction's own writes are not in its snapshot.
import { CompiledQuery, sql } from 'kysely';
import { rowsBytes } from '../../../support/answer-budget.js';
import type { Db } from '../../db.js';
import type { KeptRows, StatementMemo } from '../../statement-runner.js';

/** The snapshot of the statement it is in, as text (equal texts: the same commits seen). */
export const SNAPSHOT = sql<string>`pg_current_snapshot()::text`;

/** Results kept per process, and what their values hold; past either the memo starts again empty. */
const LIMIT = 500;
const BYTES_LIMIT = 32 * 1024 * 1024;
/** A larger result (a list page of long texts) is not kept: it would empty the memo at once. */
const LARGEST_KEPT = BYTES_LIMIT / 16;

interface Wrapped {
  readonly snapshot: string;
  /** null when the snapshot was the one given: the rows kept are the answer. */
  readonly rows: unknown[] | null;
}

/** The rows come back through json_agg: numbers and text as JSON has them (counts, here). */
function wrap(text: string, parameterCount: number): string {
  return (
    `select s.snapshot, case when s.snapshot = $${parameterCount + 1} then null` +
    ` else (select coalesce(json_agg(q), '[]'::json) from (${text}) as q) end as rows` +
    ' from (select pg_current_snapshot()::text as snapshot) as s'
  );
}

export function snapshotMemo(db: Db): StatementMemo {
  const store = new Map<string, KeptRows>();
  let held = 0;
  const keyOf = (text: string, parameters: readonly unknown[]) =>
    `${text}\u0000${JSON.stringify(parameters)}`;
  const memo: StatementMemo = {
    snapshot: SNAPSHOT,
    kept: (text, parameters) => store.get(keyOf(text, parameters)),
    keep(text, parameters, kept) {
      const key = keyOf(text, parameters);
      const bytes = rowsBytes(kept.rows);
      if (bytes > LARGEST_KEPT) {
        store.delete(key);
        return;
      }
      if (store.size >= LIMIT || held + bytes > BYTES_LIMIT) {
        store.clear();
        held = 0;
      }
      store.set(key, kept);
      // An entry replaced still counts until the next clear: a bound, not an exact sum.
      held += bytes;
    },
    async run(text, parameters) {
      const known = memo.kept(text, parameters);
      const { rows } = await db.executeQuery<Wrapped>(
        CompiledQuery.raw(wrap(text, parameters.length), [...parameters, known?.snapshot ?? '']),
      );
      const [answer] = rows;
      if (!answer) throw new Error('the memoised statement answered no row');
      if (answer.rows === null && known) return [...known.rows];
      const fresh = answer.rows ?? [];
      memo.keep(text, parameters, { snapshot: answer.snapshot, rows: fresh });
      return fresh;
    },
  };
  return memo;
}
