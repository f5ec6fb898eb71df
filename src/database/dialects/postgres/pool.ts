// svc's pg pool for one PostgreSQL URL, direct or behind a pooler in transaction mode
// (client.ts). With DB_POOLER unset the pool starts direct, and turns to pooler mode the first
// time a connection is refused for a startup parameter: PgBouncer's answer to `statement_timeout`
// ("unsupported startup parameter"), which no PostgreSQL server gives (the service says so in its log).
import pg from 'pg';
import type { PoolOptions } from '../pool-options.js';
import { type ClientMode, clientClass } from './client.js';
import { typeParser } from './type-parsers.js';

const POOLER_REFUSAL = /unsupported startup parameter/;

export interface PostgresPool {
  readonly pool: pg.Pool;
  readonly mode: Readonly<ClientMode>;
}

export function openPostgresPool(url: string, options: PoolOptions): PostgresPool {
  const mode: ClientMode = {
    pooler: options.pooler === 'transaction',
    statementTimeoutMs: options.statementTimeoutMs,
  };
  const pool = new pg.Pool({
    connectionString: url,
    max: options.size,
    connectionTimeoutMillis: options.connectTimeoutMs,
    // Idle connections are closed after 30 s, so a quiet instance holds none for long.
    idleTimeoutMillis: 30_000,
    types: { getTypeParser: typeParser as typeof pg.types.getTypeParser },
    Client: clientClass(mode),
  });
  // An idle client whose server went away emits 'error' on the pool; without a listener that
  // would be an uncaught exception. The next checkout opens a new connection.
  pool.on('error', () => {});
  // A checked-out client has no listener (pg-pool listens only while a client is idle), yet pg
  // emits 'error' on it when its connection drops mid-query, besides failing the query: without
  // this the process dies. The query's own error answers 503; release drops the broken client.
  pool.on('connect', (client) => client.on('error', () => {}));
  if (options.pooler === null) detectPooler(pool, mode);
  return { pool, mode };
}

function detectPooler(pool: pg.Pool, mode: ClientMode): void {
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const detecting = async (): Promise<pg.PoolClient> => {
    try {
      return await connect();
    } catch (error) {
      if (mode.pooler || !(error instanceof Error) || !POOLER_REFUSAL.test(error.message))
        throw error;
      mode.pooler = true;
      return connect();
    }
  };
  // pg's pool.query calls connect with a callback; Kysely and the readers without.
  pool.connect = ((
    callback?: (error: Error | undefined, client?: pg.PoolClient, done?: () => void) => void,
  ) => {
    if (!callback) return detecting();
    detecting().then(
      (client) => callback(undefined, client, () => client.release()),
      (error: Error) => callback(error),
    );
  }) as typeof pool.connect;
}
