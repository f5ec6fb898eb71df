// One open database: the Kysely instance, the adapter of its dialect, and how to close it.
import type { Db } from './db.js';
import type { DialectAdapter } from './dialects/dialect-adapter.js';

export interface Database {
  readonly db: Db;
  readonly adapter: DialectAdapter;
  /** Statements executed since the database was opened (tests assert fixed counts per request). */
  statementCount(): number;
  /** Runs `work` in one transaction; the transaction's Db is passed in. */
  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
