// A check that rides along in another statement (issue 22): where every statement is a round
// trip to a database server, a request's credential check is carried by the request's own read
// as one more column, instead of a statement of its own before it. The read goes first, on the
// credential's last known state; the check's column says whether that state still holds in the
// read's snapshot. The caller settles it before answering (engine/routes.ts). A write carries it
// in its reload and commits only when it holds (engine/context.ts inTransaction): otherwise the
// transaction rolls back (CheckMoved), and the route settles the check and does the write again.
import type { AliasedRawBuilder } from 'kysely';
import type { Db } from './db.js';

export interface CarriedCheck {
  /** The database whose statements can carry it (the one holding the credentials). */
  readonly db: Db;
  /** Part of a carrying statement's key: the check's shape. */
  readonly key: string;
  /** Values of the column's placeholders. */
  readonly values: Readonly<Record<string, unknown>>;
  /** The column a carrying statement adds. */
  column(): AliasedRawBuilder<unknown, string>;
  /** Reads the carrying statement's rows (an empty result carries nothing). */
  read(rows: readonly Record<string, unknown>[]): void;
  /** Without a statement: true once a carrying statement has read the carried state as current. */
  holds(): boolean;
  /**
   * Before the answer: true when the work done on the carried state stands. Otherwise the
   * check has run on its own: it throws when the credential no longer passes, and answers
   * false when it passes with another state, so the work is done again.
   */
  settle(): Promise<boolean>;
}

/** The check `db`'s statements can carry, if any. */
export function carriedOn(check: CarriedCheck | undefined, db: Db): CarriedCheck | null {
  return check && check.db === db ? check : null;
}

/** The same check, carried by statements of `db` (a transaction of the check's database). */
export function carriedWithin(check: CarriedCheck, db: Db): CarriedCheck {
  return { ...check, db };
}

/**
 * Thrown in a write's transaction, before the commit, when its carried check does not hold: the
 * work was done on a credential state that may have moved. The transaction rolls back; the route
 * settles the check (its errors first) and does the write again.
 */
export class CheckMoved extends Error {
  constructor() {
    super('the carried credential check did not hold');
  }
}
