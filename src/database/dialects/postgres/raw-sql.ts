// Operator SQL on PostgreSQL (database/raw-sql.ts), on a pool of its own (two connections, so a
// long statement leaves one for the catalog). Every limit is the server's, none comes from
// reading the SQL:
// - read-only: each call is one transaction, `BEGIN READ ONLY`, always rolled back. Its first
//   query (which sets the time limit) takes the transaction's snapshot, after which PostgreSQL
//   refuses to switch it to read-write (SET TRANSACTION READ WRITE, set_config).
// - one statement: the statement goes through the extended query protocol (Parse, Bind, Execute),
//   whose Parse refuses a string of several commands.
// - row cap: Execute asks for at most maxRows + 1 rows, so the portal is suspended there and the
//   server produces no more rows: exact, as a cursor. (A write with RETURNING runs to completion
//   before its first row comes out, PostgreSQL's rule; only its output is capped.)
// - time limit: `statement_timeout` set for the transaction only; PostgreSQL cancels the statement
//   (57014). A backstop closes the connection if the server has not answered 2 s after that.
// - nothing outlives a call: after the ROLLBACK (or COMMIT with writes), DISCARD ALL drops what a
//   statement may leave on the session (settings, advisory locks, prepared statements, temporary
//   tables), as a connection pooler does.
// Values arrive as PostgreSQL's text and are made JSON-safe by type (raw-sql-values.ts).
import pg from 'pg';
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
import { clientWithStartup } from './client.js';
import { CappedStatement } from './raw-sql-capped-statement.js';
import { COLUMNS, declaredTypes, TABLES } from './raw-sql-catalog.js';
import { refusalOf } from './raw-sql-refusals.js';
import { jsonValue, wireValue } from './raw-sql-values.js';

/** After the time limit, how long the server has to report its own cancel before the connection is closed. */
const BACKSTOP_MS = 2_000;
/**
 * Settings the value conversion relies on, as startup parameters that PgBouncer tracks per client
 * too (DISCARD ALL keeps them: they are the connection's); bytea_output, which it does not
 * track, is set per call with the time limit.
 */
const STARTUP = { TimeZone: 'UTC', DateStyle: 'ISO, YMD' };

export function postgresRawSql(url: string, limits: RawSqlLimits): RawSql {
  const pool = new pg.Pool({
    connectionString: url,
    max: RAW_SQL_POOL_SIZE,
    connectionTimeoutMillis: RAW_SQL_CHECKOUT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    Client: clientWithStartup(STARTUP),
    application_name: 'svc rest-driver',
  });
  // An idle connection whose server went away must not crash the process.
  pool.on('error', () => {});
  const begin = `BEGIN TRANSACTION ${limits.allowWrite ? 'READ WRITE' : 'READ ONLY'}; SELECT set_config('statement_timeout', '${Math.trunc(limits.timeoutMs)}', true), set_config('bytea_output', 'hex', true)`;
  const refused = (error: unknown) => refusalOf(error, limits.timeoutMs);

  // A checked-out client has no listener of the pool's: a connection lost mid-call must not crash
  // the process (the call itself fails through its query).
  const ignore = () => {};
  const checkout = async (): Promise<pg.PoolClient> => {
    try {
      const client = await pool.connect();
      client.on('error', ignore);
      return client;
    } catch (error) {
      throw refused(error);
    }
  };
  /** Back to the pool, or closed (keeping the listener) when its state is unknown. */
  const giveBack = (client: pg.PoolClient, reusable: boolean) => {
    if (!reusable) return client.release(true);
    client.off('error', ignore);
    client.release();
  };

  const run = async (sql: string, bindings: readonly RawBinding[]): Promise<Uint8Array> => {
    const client = await checkout();
    // False once the connection's state is unknown: it is then closed instead of reused.
    let reusable = true;
    try {
      await client.query(begin);
      const statement = new CappedStatement(
        sql,
        bindings.map(wireValue),
        limits.maxRows + 1,
        limits.maxAnswerBytes,
      );
      client.query(statement);
      let backstop: NodeJS.Timeout | undefined;
      const error = await Promise.race([
        statement.done,
        new Promise<never>((_resolve, reject) => {
          backstop = setTimeout(() => {
            reusable = false;
            reject(new RawSqlError('timeout', refusals.timeout(limits.timeoutMs)));
          }, limits.timeoutMs + BACKSTOP_MS);
        }),
      ]).finally(() => clearTimeout(backstop));
      const refusal =
        error !== null
          ? refused(error)
          : statement.empty
            ? new RawSqlError('invalid', refusals.empty)
            : statement.tooLarge
              ? new RawSqlError('too-large', refusals.tooLarge(limits.maxAnswerBytes))
              : null;
      if (refusal) {
        // The statement's refusal is the answer, whatever the clean-up meets: a connection not
        // cleaned up is not reused. A write whose answer is too large is rolled back too.
        await client
          .query('ROLLBACK')
          .then(() => client.query('DISCARD ALL'))
          .catch(() => (reusable = false));
        throw refusal;
      }
      // A deferred constraint can still refuse the COMMIT; PostgreSQL then rolls back.
      await client.query(limits.allowWrite ? 'COMMIT' : 'ROLLBACK');
      const declared = await declaredTypes(client, statement.fields);
      await client.query('DISCARD ALL');
      const columns = statement.fields.map(
        (f): RawColumn => ({
          name: f.name,
          type: declared.get(`${f.tableID}:${f.columnID}`) ?? null,
        }),
      );
      const kept = statement.rows.slice(0, limits.maxRows);
      return encodeRawResult({
        columns,
        rows: kept.map((row) =>
          row.map((text, i) => jsonValue(text, statement.fields[i]?.dataTypeID ?? 0)),
        ),
        truncated: statement.rows.length > limits.maxRows,
      });
    } catch (error) {
      // A refusal of the statement itself left the connection rolled back and discarded.
      if (!(error instanceof RawSqlError) || error.kind === 'unavailable') reusable = false;
      throw refused(error);
    } finally {
      giveBack(client, reusable);
    }
  };

  /** A catalog query on a pooled connection (no transaction needed: one statement that reads). */
  const catalog = async <Row extends pg.QueryResultRow>(
    text: string,
    values: unknown[] = [],
  ): Promise<Row[]> => {
    const client = await checkout();
    let reusable = true;
    try {
      return (await client.query<Row>(text, values)).rows;
    } catch (error) {
      reusable = false;
      throw refused(error);
    } finally {
      giveBack(client, reusable);
    }
  };

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
      return catalog<RawTableColumn>(COLUMNS, [table]);
    },
    async close() {
      await pool.end();
    },
  };
}
