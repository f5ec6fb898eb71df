// Operator SQL on MariaDB/MySQL (database/raw-sql.ts), on a pool of its own (two connections).
// Every limit is the server's, none comes from reading the SQL:
// - read-only: the session is set READ ONLY and the statement runs inside an XA transaction.
//   A read-only transaction alone is not enough here: DDL (CREATE, DROP, ALTER, TRUNCATE...)
//   commits the transaction implicitly and runs outside it, and MariaDB's
//   `SET STATEMENT tx_read_only=0 FOR <ddl>` lifts the session setting for one statement. An
//   active XA transaction cannot be committed implicitly, so the server refuses every such
//   statement (XAER_RMFAIL), and refuses writes to tables in it (read-only). Always rolled back.
// - one statement: the connection never asks for multi-statement support, so the server's parser
//   refuses a second statement; the statement runs as a server-side prepared statement (the
//   bindings are sent apart, never spliced into the text).
// - row cap: `sql_select_limit` = maxRows + 1 makes the server stop a SELECT there; a SELECT with
//   its own larger LIMIT is cut when the row after the cap arrives: read-only, the connection is
//   killed (the server stops at once); with writes, the rest is read and dropped, then committed.
// - time limit: MariaDB's `max_statement_time` (every statement), MySQL's `max_execution_time`
//   (SELECT only), set for the session per call. Both can be lifted from inside one statement
//   (SET STATEMENT, optimizer hints), and MySQL has none for writes, so a backstop 500 ms later
//   kills the connection from another one (KILL CONNECTION), which also rolls back.
// - nothing outlives a call: the session is reset (COM_RESET_CONNECTION: settings, user
//   variables, temporary tables, locks, prepared statements) before the connection is reused.
import { randomBytes } from 'node:crypto';
import { createConnection, createPool, type PoolConnection } from 'mysql2';
import {
  encodeRawResult,
  RAW_SQL_CHECKOUT_TIMEOUT_MS,
  RAW_SQL_POOL_SIZE,
  type RawBinding,
  type RawColumn,
  type RawSql,
  RawSqlError,
  type RawSqlLimits,
  type RawTable,
  type RawTableColumn,
  refusals,
} from '../../raw-sql.js';
import { checkoutWithin } from './checkout.js';
import { cappedStatement } from './raw-sql-capped-statement.js';
import { COLUMNS, declaredTypes, TABLES } from './raw-sql-catalog.js';
import { refusalOf } from './raw-sql-refusals.js';
import { jsonValue } from './raw-sql-values.js';

/** After the time limit, how long the server has to cancel by itself before the connection is killed. */
const BACKSTOP_MS = 500;

export function mysqlRawSql(url: string, limits: RawSqlLimits): RawSql {
  const pool = createPool({
    uri: url,
    connectionLimit: RAW_SQL_POOL_SIZE,
    maxIdle: RAW_SQL_POOL_SIZE,
    idleTimeout: 30_000,
    connectTimeout: RAW_SQL_CHECKOUT_TIMEOUT_MS,
    multipleStatements: false,
    charset: 'utf8mb4',
    dateStrings: true,
    jsonStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: false,
  });
  const timeoutMs = Math.trunc(limits.timeoutMs);
  const timedOut = () => new RawSqlError('timeout', refusals.timeout(timeoutMs));
  /** The statement's own refusals; `sql` words a parse error (see hasSecondStatement). */
  const refused = (error: unknown, sql = ''): unknown => refusalOf(error, limits, sql);

  const ignore = () => {};
  const listening = new WeakSet<PoolConnection>();
  const checkout = async (): Promise<PoolConnection> => {
    let connection: PoolConnection;
    try {
      connection = await checkoutWithin(pool, RAW_SQL_CHECKOUT_TIMEOUT_MS);
    } catch (error) {
      // No free connection in time, a refused login, an unknown database: no statement's fault.
      throw new RawSqlError('unavailable', error instanceof Error ? error.message : String(error));
    }
    // A connection lost mid-call must not crash the process; the call fails through its command.
    if (!listening.has(connection)) {
      connection.on('error', ignore);
      listening.add(connection);
    }
    return connection;
  };

  /** One of our own statements; a failure leaves the session in an unknown state: 503. */
  const control = (connection: PoolConnection, sql: string): Promise<unknown> =>
    new Promise((resolve, reject) => {
      connection.query(sql, (error, result) =>
        error ? reject(new RawSqlError('unavailable', error.message)) : resolve(result),
      );
    });
  const reset = (connection: PoolConnection): Promise<void> =>
    new Promise((resolve, reject) =>
      connection.reset((error) =>
        error ? reject(new RawSqlError('unavailable', error.message)) : resolve(),
      ),
    );
  const execute = <Row>(
    connection: PoolConnection,
    sql: string,
    values: string[],
  ): Promise<Row[]> =>
    new Promise((resolve, reject) => {
      connection.execute(sql, values, (error, rows) =>
        error ? reject(refused(error)) : resolve(rows as Row[]),
      );
    });

  /** Kills a connection's server thread from another connection (best effort), and drops it here. */
  const abandon = (connection: PoolConnection) => {
    const threadId = connection.threadId;
    connection.destroy();
    const killer = createConnection({ uri: url, connectTimeout: RAW_SQL_CHECKOUT_TIMEOUT_MS });
    killer.on('error', ignore);
    killer.query(`KILL CONNECTION ${Number(threadId)}`, () => killer.destroy());
  };

  // MariaDB and MySQL name their statement time limits differently; asked once.
  let flavor: Promise<'mariadb' | 'mysql'> | null = null;
  const flavorOf = (connection: PoolConnection) =>
    (flavor ??= control(connection, 'select version() as v').then(
      (rows) =>
        /mariadb/i.test(String((rows as Array<{ v: string }>)[0]?.v)) ? 'mariadb' : 'mysql',
      (error: unknown) => {
        flavor = null; // asked again by the next call
        throw error;
      },
    ));

  const run = async (sql: string, bindings: readonly RawBinding[]): Promise<Uint8Array> => {
    const connection = await checkout();
    let reusable = true;
    try {
      const timeLimit =
        (await flavorOf(connection)) === 'mariadb'
          ? `max_statement_time = ${timeoutMs / 1000}`
          : `max_execution_time = ${timeoutMs}`;
      await control(
        connection,
        `SET SESSION TRANSACTION ${limits.allowWrite ? 'READ WRITE' : 'READ ONLY'}`,
      );
      await control(
        connection,
        `SET SESSION ${timeLimit}, sql_select_limit = ${limits.maxRows + 1}, time_zone = '+00:00'`,
      );
      // Random, so that no statement can name the transaction to end it.
      const xid = `svc-driver-${randomBytes(8).toString('hex')}`;
      await control(connection, limits.allowWrite ? 'START TRANSACTION' : `XA START '${xid}'`);
      let backstop: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        cappedStatement(connection, sql, bindings, limits),
        new Promise<never>((_resolve, reject) => {
          backstop = setTimeout(() => {
            reusable = false;
            reject(timedOut());
          }, timeoutMs + BACKSTOP_MS);
        }),
      ]).finally(() => clearTimeout(backstop));
      if (outcome.error || outcome.tooLarge) {
        // The statement's refusal is the answer, whatever the clean-up meets (a deadlock may
        // have ended the transaction already): a connection not cleaned up is not reused. A
        // write whose answer is too large is rolled back too.
        if (outcome.cut) reusable = false;
        else
          await control(connection, limits.allowWrite ? 'ROLLBACK' : `XA END '${xid}'`)
            .then(() =>
              limits.allowWrite ? undefined : control(connection, `XA ROLLBACK '${xid}'`),
            )
            .then(() => reset(connection))
            .catch(() => (reusable = false));
        throw outcome.error
          ? refused(outcome.error, sql)
          : new RawSqlError('too-large', refusals.tooLarge(limits.maxAnswerBytes));
      }
      if (outcome.cut) reusable = false;
      else if (limits.allowWrite) await control(connection, 'COMMIT');
      else {
        await control(connection, `XA END '${xid}'`);
        await control(connection, `XA ROLLBACK '${xid}'`);
      }
      const fields = outcome.fields;
      let declared: Map<string, string>;
      if (reusable) {
        await reset(connection);
        declared = await declaredTypes(execute, connection, fields);
      } else
        declared = await withConnection((other) => declaredTypes(execute, other, fields)).catch(
          () => new Map<string, string>(),
        );
      const columns = fields.map(
        (f): RawColumn => ({
          name: f.name,
          type: declared.get(`${f.schema}\u0000${f.orgTable}\u0000${f.orgName}`) ?? null,
        }),
      );
      return encodeRawResult({
        columns,
        rows: outcome.rows.map((row) => row.map((value, i) => jsonValue(value, fields[i]))),
        truncated: outcome.truncated,
      });
    } catch (error) {
      // A refusal of the statement itself left the session rolled back and reset.
      if (!(error instanceof RawSqlError) || error.kind === 'unavailable') reusable = false;
      throw refused(error, sql);
    } finally {
      if (reusable) connection.release();
      else abandon(connection);
    }
  };

  /** Our own reads (the catalog) on a pooled connection, dropped if anything fails. */
  async function withConnection<T>(work: (connection: PoolConnection) => Promise<T>): Promise<T> {
    const connection = await checkout();
    let reusable = true;
    try {
      return await work(connection);
    } catch (error) {
      reusable = false;
      throw error;
    } finally {
      if (reusable) connection.release();
      else connection.destroy();
    }
  }
  const catalog = <Row>(sql: string, values: string[] = []): Promise<Row[]> =>
    withConnection((connection) => execute<Row>(connection, sql, values));

  const tables = async (): Promise<RawTable[]> => {
    const rows = await catalog<{ name: string; type: string }>(TABLES);
    return rows
      .map((r): RawTable => ({ name: r.name, type: r.type === 'VIEW' ? 'view' : 'table' }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  };

  return {
    run,
    tables,
    async columns(table) {
      if (!(await tables()).some((t) => t.name === table)) return null;
      const rows = await catalog<{
        tbl: string;
        name: string;
        type: string;
        nullable: string;
        dflt: string | null;
        pk: number;
      }>(COLUMNS, [table]);
      // information_schema compares names without regard to case; the name must be exact.
      return rows
        .filter((r) => r.tbl === table)
        .map(
          (r): RawTableColumn => ({
            name: r.name,
            type: r.type,
            nullable: r.nullable === 'YES',
            // MariaDB writes "no default" of a nullable column as the text NULL (a string default is quoted).
            default: r.dflt === 'NULL' ? null : r.dflt,
            primary_key: Number(r.pk) === 1,
          }),
        );
    },
    close: () => new Promise((resolve) => pool.end(() => resolve())),
  };
}
