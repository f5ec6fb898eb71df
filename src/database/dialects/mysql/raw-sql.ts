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
import {
  createConnection,
  createPool,
  type FieldPacket,
  type PoolConnection,
  type QueryError,
} from 'mysql2';
import { rowBytes } from '../../../support/answer-budget.js';
import {
  DRIVER_CHECKOUT_TIMEOUT_MS,
  DRIVER_POOL_SIZE,
  encodeRawResult,
  type RawBinding,
  type RawColumn,
  type RawSql,
  RawSqlError,
  type RawSqlLimits,
  type RawTable,
  type RawTableColumn,
  type RawValue,
  refusals,
} from '../../raw-sql.js';
import { checkoutWithin } from './checkout.js';

/** After the time limit, how long the server has to cancel by itself before the connection is killed. */
const BACKSTOP_MS = 500;

const TABLES = `select TABLE_NAME as name, TABLE_TYPE as type from information_schema.TABLES
  where TABLE_SCHEMA = database() and TABLE_TYPE in ('BASE TABLE', 'VIEW', 'SYSTEM VERSIONED')`;
const COLUMNS = `select c.TABLE_NAME as tbl, c.COLUMN_NAME as name, c.COLUMN_TYPE as type, c.IS_NULLABLE as nullable,
    c.COLUMN_DEFAULT as dflt,
    exists(select 1 from information_schema.STATISTICS s where s.TABLE_SCHEMA = c.TABLE_SCHEMA and s.TABLE_NAME = c.TABLE_NAME
      and s.COLUMN_NAME = c.COLUMN_NAME and s.INDEX_NAME = 'PRIMARY') as pk
  from information_schema.COLUMNS c where c.TABLE_SCHEMA = database() and c.TABLE_NAME = ?
  order by c.ORDINAL_POSITION`;

// Column types (mysql2's numbering, the protocol's) whose values are converted.
const FLOAT = 4;
const TIMESTAMP = 7;
const DATETIME = 12;

const DATETIME_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)$/;

/** A FLOAT as the shortest decimal that is the same single-precision number (0.1, not 0.10000000149011612). */
function float32(value: number): number {
  for (let precision = 1; precision <= 9; precision += 1) {
    const shorter = Number(value.toPrecision(precision));
    if (Math.fround(shorter) === value) return shorter;
  }
  return value;
}

/**
 * JSON-safe values: integers (past 2^53 as decimal strings), DECIMAL exactly as text, FLOAT as its
 * shortest text, DATETIME as ISO-8601 (TIMESTAMP with Z: the session runs in UTC), binary strings
 * and BIT as base64, JSON as written; zero dates as the server writes them.
 */
function jsonValue(value: unknown, field: FieldPacket | undefined): RawValue {
  if (value === null || value === undefined) return null;
  const type = field?.columnType;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value);
    return type === FLOAT ? float32(value) : value;
  }
  if (typeof value === 'bigint')
    return value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER
      ? Number(value)
      : value.toString();
  if (typeof value === 'string') {
    const match = type === DATETIME || type === TIMESTAMP ? DATETIME_TEXT.exec(value) : null;
    if (!match || value.startsWith('0000-')) return value;
    return `${match[1]}T${match[2]}${type === TIMESTAMP ? 'Z' : ''}`;
  }
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

/**
 * True when `sql` has text after a top-level `;`: used only to word a syntax error the server
 * has already raised (MySQL reports a second statement as ER_PARSE_ERROR like any other).
 * Skips quoted strings and identifiers and comments; `/*!...*\/` comments are code to MySQL.
 */
function hasSecondStatement(sql: string): boolean {
  let i = 0;
  let afterSemicolon = false;
  while (i < sql.length) {
    const c = sql[i] as string;
    const next = sql[i + 1] ?? '';
    if (/\s/.test(c)) i += 1;
    else if (c === '#' || (c === '-' && next === '-' && /[\s]|^$/.test(sql[i + 2] ?? ''))) {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === '/' && next === '*' && sql[i + 2] !== '!' && !sql.startsWith('/*M!', i)) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (afterSemicolon) return true;
    else if (c === ';') {
      afterSemicolon = true;
      i += 1;
    } else if (c === "'" || c === '"' || c === '`') {
      i += 1;
      while (i < sql.length) {
        if (sql[i] === '\\' && c !== '`') i += 2;
        else if (sql[i] === c && sql[i + 1] === c) i += 2;
        else if (sql[i] === c) break;
        else i += 1;
      }
      i += 1;
    } else i += 1;
  }
  return false;
}

/** Server errors carry an SQL message; errors without one are the network's. */
const serverError = (error: unknown): error is QueryError & { sqlMessage: string } =>
  error instanceof Error && typeof (error as { sqlMessage?: unknown }).sqlMessage === 'string';

const PROGRAMMING_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError];

export function mysqlRawSql(url: string, limits: RawSqlLimits): RawSql {
  const pool = createPool({
    uri: url,
    connectionLimit: DRIVER_POOL_SIZE,
    maxIdle: DRIVER_POOL_SIZE,
    idleTimeout: 30_000,
    connectTimeout: DRIVER_CHECKOUT_TIMEOUT_MS,
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
  const refused = (error: unknown, sql = ''): unknown => {
    if (error instanceof RawSqlError || PROGRAMMING_ERRORS.some((type) => error instanceof type))
      return error;
    const message = error instanceof Error ? error.message : String(error);
    // Lost connections, refused logins, an unknown database: the server is not there for us.
    if (!serverError(error) || error.fatal) return new RawSqlError('unavailable', message);
    switch (error.errno) {
      case 1792: // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
        return new RawSqlError('read-only', refusals.readOnly);
      case 1399: // ER_XAER_RMFAIL: a statement that would commit the XA transaction (DDL, LOCK, COMMIT)
        return limits.allowWrite
          ? new RawSqlError('invalid', error.sqlMessage)
          : new RawSqlError('read-only', refusals.readOnly);
      case 1969: // ER_STATEMENT_TIMEOUT (MariaDB's max_statement_time)
      case 3024: // ER_QUERY_TIMEOUT (MySQL's max_execution_time)
        return timedOut();
      case 1064: // ER_PARSE_ERROR
        return hasSecondStatement(sql)
          ? new RawSqlError('multiple-statements', refusals.oneStatement)
          : new RawSqlError('invalid', error.sqlMessage);
      case 1065: // ER_EMPTY_QUERY
        return new RawSqlError('invalid', refusals.empty);
      default:
        return new RawSqlError('invalid', error.sqlMessage);
    }
  };

  const ignore = () => {};
  const listening = new WeakSet<PoolConnection>();
  const checkout = async (): Promise<PoolConnection> => {
    let connection: PoolConnection;
    try {
      connection = await checkoutWithin(pool, DRIVER_CHECKOUT_TIMEOUT_MS);
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
    const killer = createConnection({ uri: url, connectTimeout: DRIVER_CHECKOUT_TIMEOUT_MS });
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

  /** The declared types (COLUMN_TYPE) of the table columns the fields come from. */
  const declaredTypes = async (
    connection: PoolConnection,
    fields: readonly FieldPacket[],
  ): Promise<Map<string, string>> => {
    const key = (schema: string, table: string, column: string) =>
      `${schema}\u0000${table}\u0000${column}`;
    const tables = new Map<string, [string, string]>();
    for (const f of fields)
      if (f.orgTable && f.orgName && f.schema)
        tables.set(`${f.schema}\u0000${f.orgTable}`, [f.schema, f.orgTable]);
    if (tables.size === 0) return new Map();
    const where = [...tables.values()]
      .map(() => '(TABLE_SCHEMA = ? and TABLE_NAME = ?)')
      .join(' or ');
    try {
      const rows = await execute<{ s: string; t: string; c: string; type: string }>(
        connection,
        `select TABLE_SCHEMA as s, TABLE_NAME as t, COLUMN_NAME as c, COLUMN_TYPE as type from information_schema.COLUMNS where ${where}`,
        [...tables.values()].flat(),
      );
      return new Map(rows.map((r) => [key(r.s, r.t, r.c), r.type]));
    } catch {
      return new Map();
    }
  };

  interface Outcome {
    readonly error: unknown;
    readonly fields: readonly FieldPacket[];
    readonly rows: unknown[][];
    readonly truncated: boolean;
    /** The rows passed the answer's byte bound: none are kept. */
    readonly tooLarge: boolean;
    /** Read-only and cut at the row after the cap: the statement is still running on the server. */
    readonly cut: boolean;
  }

  /** Runs the statement, keeping the first result set's rows up to the cap. */
  const stream = (
    connection: PoolConnection,
    sql: string,
    values: readonly RawBinding[],
  ): Promise<Outcome> =>
    new Promise((resolve) => {
      let fields: FieldPacket[] | null = null;
      let firstSet: unknown;
      const rows: unknown[][] = [];
      let truncated = false;
      let tooLarge = false;
      let bytes = 0;
      const finish = (error: unknown, cut = false) =>
        resolve({ error, fields: fields ?? [], rows, truncated, tooLarge, cut });
      const query = connection.execute({ sql, values: [...values], rowsAsArray: true });
      query.on('fields', (received: FieldPacket[], index: unknown) => {
        if (fields !== null) return;
        fields = received;
        firstSet = index;
      });
      query.on('result', (row: unknown, index: unknown) => {
        // An OK packet (a statement without rows) or a later result set (CALL) is not kept.
        if (fields === null || index !== firstSet || !Array.isArray(row) || tooLarge) return;
        if (rows.length < limits.maxRows) {
          bytes += rowBytes(row);
          if (bytes <= limits.maxAnswerBytes) rows.push(row);
          else {
            tooLarge = true;
            rows.length = 0;
            if (!limits.allowWrite) finish(null, true);
          }
        } else if (!truncated) {
          truncated = true;
          if (!limits.allowWrite) finish(null, true);
        }
      });
      query.on('error', (error: unknown) => finish(error));
      query.on('end', () => finish(null));
    });

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
        stream(connection, sql, bindings),
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
        declared = await declaredTypes(connection, fields);
      } else
        declared = await withConnection((other) => declaredTypes(other, fields)).catch(
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
