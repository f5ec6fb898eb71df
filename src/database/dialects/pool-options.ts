// Settings shared by the engines that talk to a server through a connection pool.

export interface PoolOptions {
  /** Connections per pool (per process: each worker has its own pool). */
  readonly size: number;
  /** Milliseconds a statement may run before the server cancels it. */
  readonly statementTimeoutMs: number;
  /** Milliseconds to wait for a connection before answering 503. */
  readonly connectTimeoutMs: number;
  /**
   * DB_POOLER: `transaction` when the URL is a pooler that lends a server connection per
   * transaction (PgBouncer's pool_mode=transaction); null: direct, unless a pooler is detected.
   */
  readonly pooler: 'transaction' | null;
}

/**
 * Kysely's log hook sees every statement a connection runs, transaction control included, so
 * the statement count (tests assert fixed counts per request) is the same on every engine.
 */
export function countingLog(counted: () => void): (event: unknown) => void {
  return () => counted();
}
