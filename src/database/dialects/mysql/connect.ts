// Opens a MariaDB or MySQL database through a mysql2 pool. The session runs in UTC with
// timestamps read as text, so stored values never pass through the process's local time zone.

import { Kysely, MysqlDialect, type MysqlPool, sql } from 'kysely';
import { createPool, type Pool } from 'mysql2';
import type { Database } from '../../database.js';
import type { Db } from '../../db.js';
import { sendStatement, useRunner } from '../../statement-runner.js';
import { countingLog, type PoolOptions } from '../pool-options.js';
import { mysqlAdapter } from './adapter.js';
import { checkoutWithin } from './checkout.js';
import { MAX_PER_CONNECTION, preparedConnection } from './prepared.js';
import { mysqlSlicedReader } from './sliced-reader.js';

/**
 * Kysely's view of the pool: every checkout bounded by DB_CONNECT_TIMEOUT_MS (checkout.ts), its
 * statements prepared (prepared.ts).
 */
function acquiringWithin(pool: Pool, ms: number): MysqlPool {
  return {
    getConnection(callback) {
      checkoutWithin(pool, ms).then(
        (connection) => callback(null, preparedConnection(connection) as never),
        (error: NodeJS.ErrnoException) => callback(error, undefined as never),
      );
    },
    end: (callback) => pool.end(callback),
  };
}

export function connectMysql(url: string, options: PoolOptions): Database {
  const pool = createPool({
    uri: url,
    connectionLimit: options.size,
    connectTimeout: options.connectTimeoutMs,
    timezone: 'Z',
    dateStrings: true,
    charset: 'utf8mb4_bin',
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: true,
    maxPreparedStatements: MAX_PER_CONNECTION,
  });
  let executed = 0;
  const timeoutSeconds = options.statementTimeoutMs / 1000;
  const db: Db = new Kysely({
    dialect: new MysqlDialect({
      pool: acquiringWithin(pool, options.connectTimeoutMs),
      async onCreateConnection(connection) {
        // MariaDB's max_statement_time (seconds, every statement); MySQL's max_execution_time
        // (milliseconds, SELECT only) where MariaDB's does not exist.
        try {
          await connection.executeQuery(
            sql`set session max_statement_time = ${sql.lit(timeoutSeconds)}`.compile(db),
          );
        } catch {
          await connection.executeQuery(
            sql`set session max_execution_time = ${sql.lit(options.statementTimeoutMs)}`.compile(
              db,
            ),
          );
        }
        // group_concat_max_len: the detail rows a record's select carries (adapter.ts childRows)
        // are never cut at the default 1 MB.
        await connection.executeQuery(
          sql`set session time_zone = '+00:00', group_concat_max_len = 4294967295`.compile(db),
        );
      },
    }),
    log: countingLog(() => (executed += 1)),
  });
  useRunner(db, {
    sliced: mysqlSlicedReader(db),
    run: (statement) => sendStatement(db, statement),
  });
  return {
    db,
    adapter: mysqlAdapter,
    statementCount: () => executed,
    transaction: (work) => db.transaction().execute(work),
    close: () => db.destroy(),
  };
}
