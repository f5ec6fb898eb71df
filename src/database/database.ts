// One open database: the Kysely instance, the adapter of its dialect, and how to close it.
import type { Db } from './db.js';
import type { DialectAdapter } from './dialects/dialect-adapter.js';

export interface Database {
  readonly db: Db;
  readonly adapter: DialectAdapter;
  /** Statements executed since the database was opened (tests assert fixed counts per request). */
  statementCount(): number;
  /**
   * Prepared statements the driver keeps, over all its connections, and the characters of their
   * SQL (SQLite; tests: the cache stays within its bound).
   */
  preparedStatements?(): { readonly statements: number; readonly characters: number };
  /** PostgreSQL: whether the pool runs behind a pooler in transaction mode (set or detected). */
  behindPooler?(): boolean;
  /** Runs `work` in one transaction; the transaction's Db is passed in. */
  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
