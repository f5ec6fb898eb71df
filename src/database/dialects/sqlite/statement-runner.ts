// How statements run on SQLite (database/statement-runner.ts), decided when the file is opened:
// a SELECT outside a transaction runs synchronously on the read-only connection (from the exact
// result memo when its MemoScope allows), a list page in slices on a connection of its own;
// the rest goes through Kysely's executor. A write transaction runs every statement directly on
// the connection it holds: no executor layers, no await per statement.
import type { Db } from '../../db.js';
import {
  type MemoScope,
  type SlicedReader,
  type StatementRunner,
  sendStatement,
} from '../../statement-runner.js';

/** Runs a compiled statement synchronously; rows for a SELECT or a RETURNING. */
export type DirectExecutor = (
  sql: string,
  parameters: readonly unknown[],
  memo: MemoScope | undefined,
) => unknown[];

/** The runner of a file database: its reads go to `read` (whole) or `sliced` (a list page). */
export function sqliteRunner(db: Db, read: DirectExecutor, sliced: SlicedReader): StatementRunner {
  return {
    sliced,
    run: (statement, memo) =>
      statement.select
        ? read(statement.sql, statement.parameters, memo)
        : sendStatement(db, statement),
  };
}

/** The runner of a write transaction's Db: everything on the connection it holds. */
export function transactionRunner(execute: DirectExecutor): StatementRunner {
  return { run: (statement) => execute(statement.sql, statement.parameters, undefined) };
}
