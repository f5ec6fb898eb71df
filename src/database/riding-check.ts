// A check that rides along in another statement as one more column, instead of a statement of
// its own before it (issue 22: where every statement is a round trip to a database server). The
// database layer only runs what it is handed: the caller (auth/bearer-guard.ts carryBearerCheck,
// the bearer token's) says what the column tests, how its rows are read and what settling does. A
// read goes first, on the state the check last saw; the column says whether that state still
// holds in the read's own view of the database. The route settles the check before answering
// (engine/routes.ts). A write carries it in its reload and commits only when it holds
// (engine/context.ts inTransaction): otherwise the transaction rolls back (CheckMoved), and the
// route settles the check and does the write again.
import type { AliasedRawBuilder } from 'kysely';
import type { Db } from './db.js';

export interface RidingCheck {
  /** The database whose statements can carry it. */
  readonly db: Db;
  /** Part of a carrying statement's key: the check's shape. */
  readonly key: string;
  /** Values of the column's placeholders. */
  readonly values: Readonly<Record<string, unknown>>;
  /** The column a carrying statement adds. */
  column(): AliasedRawBuilder<unknown, string>;
  /** Reads the carrying statement's rows (an empty result carries nothing). */
  read(rows: readonly Record<string, unknown>[]): void;
  /** Without a statement: true once a carrying statement has read the checked state as current. */
  holds(): boolean;
  /**
   * Before the answer: true when the work done on the checked state stands. Otherwise the
   * check has run on its own: it throws when it no longer passes, and answers false when it
   * passes with another state, so the work is done again.
   */
  settle(): Promise<boolean>;
}

/** The check `db`'s statements can carry, if any. */
export function ridingOn(check: RidingCheck | undefined, db: Db): RidingCheck | null {
  return check && check.db === db ? check : null;
}

/** The same check, carried by statements of `db` (a transaction of the check's database). */
export function ridingWithin(check: RidingCheck, db: Db): RidingCheck {
  return { ...check, db };
}

/**
 * Thrown in a write's transaction, before the commit, when its riding check does not hold: the
 * work was done on a state that may have moved. The transaction rolls back; the route settles
 * the check (its errors first) and does the write again.
 */
export class CheckMoved extends Error {
  constructor() {
    super('the riding check did not hold');
  }
}
