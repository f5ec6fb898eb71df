// One open database: the Kysely instance, the adapter of its dialect, and how to close it.
import type { Kysely } from 'kysely';
import type { DialectAdapter } from './dialects/dialect-adapter.js';

/**
 * Tables are declared at run time by entities (src/model), so the query builder is untyped
 * here; every identifier that reaches it comes from an entity or resource definition checked
 * at boot, never from a request.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Db = Kysely<any>;

export interface Database {
  readonly db: Db;
  readonly adapter: DialectAdapter;
  /** Statements executed since the database was opened (tests assert fixed counts per request). */
  statementCount(): number;
  /** Runs `work` in one transaction; the transaction's Db is passed in. */
  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
