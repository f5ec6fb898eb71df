// A check that rides along in another statement (issue 22): where every statement is a round
// trip to a database server, a request's credential check is carried by the request's own read
// as one more column, instead of a statement of its own before it. The read goes first, on the
// credential's last known state; the check's column says whether that state still holds in the
// read's snapshot. The caller settles it before answering (engine/routes.ts).
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
