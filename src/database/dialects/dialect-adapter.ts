// The one place engine differences are described: every dialect folder exports an adapter with
// the same capabilities (STYLE.md example 3). The engine asks the adapter; it never checks names.
import type { CompiledQuery, Expression, RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import type { StoredChange } from '../change-statements.js';
import type { Db } from '../db.js';
import type { Write } from '../write-statements.js';

export type DialectName = 'sqlite' | 'postgres' | 'mysql';

/**
 * The escape character of an `escaped` likeInsensitive pattern, the same on every engine. Not a
 * backslash: its quoting differs between engines and SQL modes, and `!` needs none.
 */
export const LIKE_ESCAPE = '!';

/** `text` as a LIKE pattern that matches it literally: `%`, `_` and LIKE_ESCAPE escaped. */
export function escapeLike(text: string): string {
  return text.replace(/[%_!]/g, `${LIKE_ESCAPE}$&`);
}

/** Driver errors that the service reports as something other than a 500. */
export type TranslatedError =
  | { kind: 'unique'; column: string | null }
  | { kind: 'foreign-key' }
  | { kind: 'not-null'; column: string | null }
  /** A value the column's type cannot read, e.g. a word compared with a number (PostgreSQL). */
  | { kind: 'invalid-value' }
  /** Text longer than its column (engines that enforce sizes: PostgreSQL, MySQL). */
  | { kind: 'too-long'; column: string | null }
  /** The server cannot be reached, refused or dropped the connection, or is shutting down. */
  | { kind: 'unavailable' }
  /** The statement was cancelled: it ran past the statement timeout or waited too long for a lock. */
  | { kind: 'timeout' }
  /**
   * The server chose this transaction as a deadlock's victim and rolled it back: the whole
   * transaction may run again (engine/context.ts inTransaction does, a few times).
   */
  | { kind: 'deadlock' };

export interface DialectAdapter {
  readonly name: DialectName;
  /**
   * Case-insensitive LIKE on every engine (DESIGN.md 3.5). `unicode` says the pattern holds
   * non-ASCII characters, for engines whose plain LIKE folds ASCII only. Without `escaped` the
   * pattern has no escape character (`%` and `_` are always wildcards, a backslash is itself: the
   * list's `like` filter); with it, LIKE_ESCAPE escapes (a pattern made with escapeLike).
   */
  likeInsensitive(
    column: string,
    pattern: Expression<unknown>,
    negate: boolean,
    unicode: boolean,
    escaped?: boolean,
  ): Expression<SqlBool>;
  /** Inserts one row and returns its generated primary key. */
  insertReturningId(
    db: Db,
    table: string,
    values: Record<string, unknown>,
    primaryKey: string,
  ): Promise<number>;
  /**
   * A JSON object built in SQL from named expressions: one column that carries a whole related
   * row, far cheaper to read than the columns of a join. Read it back with readCasts.json.
   */
  jsonObject(fields: Readonly<Record<string, Expression<unknown>>>): RawBuilder<unknown>;
  /**
   * A child table's rows as one column of the parent's select: `columns` of the rows matching
   * `where`, in `orderBy` order, as JSON (text or parsed) of an array of arrays whose values
   * `childValue` turns back into what a plain select of the column gives (read it with
   * eager-load.embeddedRowsReader). Where the engine has it (SQLite, PostgreSQL, MariaDB/MySQL),
   * a has-many relation in the parent's database costs no statement of its own; elsewhere it is
   * one batched `where in`.
   */
  childRows?(
    table: string,
    columns: readonly string[],
    where: ReadonlyArray<Expression<SqlBool>>,
    orderBy: string,
  ): RawBuilder<unknown>;
  /**
   * A JSON value as text, on an engine where a read's own statement carries the bearer token's
   * check (issue 22, auth/tokens/carried-token-check.ts): a round trip less per request where
   * every statement is one (PostgreSQL, MariaDB/MySQL). Absent where the check is as cheap on its
   * own (SQLite).
   */
  jsonText?(json: Expression<unknown>): RawBuilder<string>;
  /** One value of a childRows row -> the value a plain select of its column gives. */
  childValue?(value: unknown): unknown;
  /**
   * True when childRows in the statement that locks the parent row (lockForUpdate) see the
   * children as they are once the lock is held, so a write reads its stored detail rows with its
   * master row. SQLite: one writer, yes. PostgreSQL (READ COMMITTED): a statement that waited for
   * the lock re-reads the locked row, but its sub-queries keep the snapshot taken before the
   * wait, missing what the write it waited for committed: the rows come by a statement after it,
   * unless the master's version the sub-queries saw is the locked row's (engine/write/stored-details.ts).
   */
  readonly childRowsUnderLock: boolean;
  /**
   * Runs a record's writes (its master row, its detail rows) in order, better than a statement
   * each (PostgreSQL: as one statement, dialects/postgres/combined-writes.ts). Absent: one each.
   */
  runWrites?(db: Db, writes: readonly Write[]): Promise<void>;
  /**
   * True when the engine sorts NULL below every value (SQLite, MySQL). Otherwise sorting says
   * NULLS FIRST / NULLS LAST, so every engine gives the same order.
   */
  readonly nullsSortLow: boolean;
  /**
   * The row a write transaction is about to change, locked until the transaction ends, so two
   * writes of one record (its master row and its detail diff) run one after the other.
   */
  // biome-ignore lint/suspicious/noExplicitAny: tables are declared at run time, the query builder is untyped
  lockForUpdate<Q extends SelectQueryBuilder<any, any, any>>(query: Q): Q;
  /**
   * count=estimated above its threshold (issue 21): the rows `query` (the filtered list's select
   * of `table`) would answer, from the engine's statistics without reading them, or null when the
   * estimate is unusable; null for an engine that keeps no such estimate (SQLite: the engine
   * extrapolates a sample instead). One statement.
   */
  readonly estimateCount:
    | ((db: Db, query: CompiledQuery, table: string) => Promise<number | null>)
    | null;
  /**
   * Appends one change (DESIGN.md 3.9) in a write's transaction; answers its seq where the seq
   * is given at once in commit order (SQLite), else null: numberChanges gives it once committed
   * (database/change-statements.ts says why).
   */
  appendChange(db: Db, change: StoredChange): Promise<number | null>;
  /**
   * Gives committed changes without a seq their seqs, in a transaction of its own on `db` (or
   * one statement, its own transaction); answers the changes numbered (the feed's columns).
   * Absent where appendChange gives the seq.
   */
  numberChanges?(db: Db): Promise<Record<string, unknown>[]>;
  /** The last seq of a committed change, as a sub-query (0 before the first change). */
  readonly lastChangeSeq: RawBuilder<unknown>;
  /** A timestamp value as this engine stores it. */
  toTimestamp(date: Date): unknown;
  /** Maps a driver error to a known kind, or null when it is not one. */
  translateError(error: unknown): TranslatedError | null;
}
