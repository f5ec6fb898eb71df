// How statements run on PostgreSQL (database/statement-runner.ts), decided when the database is
// opened: a SELECT that may be memoised (MemoScope `true`) goes through the snapshot memo, a
// list page is read as its rows arrive (sliced-reader.ts), the rest is sent through Kysely's
// executor (named or not: client.ts).
import type { Db } from '../../db.js';
import {
  type SlicedReader,
  type StatementMemo,
  type StatementRunner,
  sendStatement,
} from '../../statement-runner.js';

/** `applies`: whether the memo applies now (not while reads go to a replica: it is the primary's). */
export function postgresRunner(
  db: Db,
  memo: StatementMemo,
  sliced: SlicedReader,
  applies?: () => boolean,
): StatementRunner {
  const memoNow = () => (!applies || applies() ? memo : undefined);
  return {
    sliced,
    memo: memoNow,
    run(statement, scope) {
      const memo = scope === true && memoNow();
      return memo ? memo.run(statement.sql, statement.parameters) : sendStatement(db, statement);
    },
  };
}
