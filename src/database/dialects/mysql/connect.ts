// Opens a MariaDB or MySQL database through a mysql2 pool. The session runs in UTC with
// timestamps read as text, so stored values never pass through the process's local time zone.
import { createPool, type Pool } from 'mysql2';
import { Kysely, MysqlDialect, sql, type MysqlPool } from 'kysely';
import type { Database, Db } from '../../database.js';
import { countingLog, type PoolOptions } from '../pool-options.js';
import { ACQUIRE_TIMEOUT, mysqlAdapter } from './adapter.js';

/**
 * mysql2's pool queues a request for a connection without a time limit (each waiter in turn
 * then tries its own connect), where pg's gives up after connectionTimeoutMillis. This gives
 * mysql2 the same limit, so a server that hangs answers 503 in DB_CONNECT_TIMEOUT_MS however
 * many requests wait. A connection that arrives too late goes back to the pool.
 */
function acquiringWithin(pool: Pool, ms: number): MysqlPool {
  return {
    getConnection(callback) {
      let waiting = true;
      const timer = setTimeout(() => {
        waiting = false;
        const error = Object.assign(new Error(`No database connection within ${ms} ms`), { code: ACQUIRE_TIMEOUT });
        callback(error, undefined as never);
      }, ms);
      pool.getConnection((error, connection) => {
        if (!waiting) {
          connection?.release();
          return;
        }
        waiting = false;
        clearTimeout(timer);
        callback(error, connection);
      });
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
          await connection.executeQuery(sql`set session max_statement_time = ${sql.lit(timeoutSeconds)}`.compile(db));
        } catch {
          await connection.executeQuery(sql`set session max_execution_time = ${sql.lit(options.statementTimeoutMs)}`.compile(db));
        }
        await connection.executeQuery(sql`set session time_zone = '+00:00'`.compile(db));
      },
    }),
    log: countingLog(() => (executed += 1)),
  });
  return {
    db,
    adapter: mysqlAdapter,
    statementCount: () => executed,
    transaction: (work) => db.transaction().execute(work),
    close: () => db.destroy(),
  };
}
