// Opens a PostgreSQL database through a pg pool. Big integers (ids, counts) come back as
// numbers, timestamps as Date objects in UTC: the casts of src/model then give the same JSON as
// on the other engines.

import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../database.js';
import type { Db } from '../../db.js';
import { registerSlicedReader, registerStatementMemo } from '../../query-cache.js';
import { countingLog, type PoolOptions } from '../pool-options.js';
import { postgresAdapter } from './adapter.js';
import { nameStatements } from './named-statements.js';
import { postgresSlicedReader } from './sliced-reader.js';
import { snapshotMemo } from './snapshot-memo.js';
import { typeParser } from './type-parsers.js';

export function connectPostgres(url: string, options: PoolOptions): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.size,
    connectionTimeoutMillis: options.connectTimeoutMs,
    statement_timeout: options.statementTimeoutMs,
    // Idle connections are closed after 30 s, so a quiet instance holds none for long.
    idleTimeoutMillis: 30_000,
    types: { getTypeParser: typeParser as typeof pg.types.getTypeParser },
    options: '-c TimeZone=UTC',
  });
  // An idle client whose server went away emits 'error' on the pool; without a listener that
  // would be an uncaught exception. The next checkout opens a new connection.
  pool.on('error', () => {});
  // A checked-out client has no listener (pg-pool listens only while a client is idle), yet pg
  // emits 'error' on it when its connection drops mid-query, besides failing the query: without
  // this the process dies. The query's own error answers 503; release drops the broken client.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    nameStatements(client);
  });
  let executed = 0;
  const db: Db = new Kysely({
    dialect: new PostgresDialect({ pool }),
    log: countingLog(() => (executed += 1)),
  });
  registerStatementMemo(db, snapshotMemo(db));
  registerSlicedReader(
    db,
    postgresSlicedReader(pool, () => (executed += 1)),
  );
  return {
    db,
    adapter: postgresAdapter,
    statementCount: () => executed,
    transaction: (work) => db.transaction().execute(work),
    close: () => db.destroy(),
  };
}
