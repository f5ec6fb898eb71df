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
// Values arrive as PostgreSQL's text and are made JSON-safe here by type (see jsonValue).
import pg from 'pg';
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
import { clientWithStartup } from './client.js';

/** After the time limit, how long the server has to report its own cancel before the connection is closed. */
const BACKSTOP_MS = 2_000;
/**
 * Settings the value conversion relies on, as startup parameters that PgBouncer tracks per client
 * too (DISCARD ALL keeps them: they are the connection's); bytea_output, which it does not
 * track, is set per call with the time limit.
 */
const STARTUP = { TimeZone: 'UTC', DateStyle: 'ISO, YMD' };

// User tables and views of the schema the connection works in.
const TABLES = `select table_name as name, table_type as type from information_schema.tables
  where table_schema = current_schema() and table_type in ('BASE TABLE', 'VIEW')`;
// One relation's columns: the declared type as written (format_type), the default as SQL text
// (none for a generated column, whose expression is not a default), primary key membership.
const COLUMNS = `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, not a.attnotnull as nullable,
    case when a.attgenerated = '' then pg_get_expr(d.adbin, d.adrelid) end as "default",
    coalesce(a.attnum = any(i.indkey), false) as primary_key
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
  left join pg_index i on i.indrelid = c.oid and i.indisprimary
  where n.nspname = current_schema() and c.relname = $1
  order by a.attnum`;
// The declared types of the table columns a result's fields come from.
const DECLARED = `select a.attrelid::text || ':' || a.attnum::text as key, format_type(a.atttypid, a.atttypmod) as type
  from pg_attribute a join unnest($1::oid[], $2::int2[]) as f(rel, num) on a.attrelid = f.rel and a.attnum = f.num`;

/** A result column as the RowDescription message describes it. */
interface Field {
  readonly name: string;
  /** The table the value comes from, 0 for an expression. */
  readonly tableID: number;
  readonly columnID: number;
  readonly dataTypeID: number;
}

/** The part of pg's protocol connection a custom query drives (@types/pg mistypes `rows` as a string). */
interface Wire {
  readonly stream: { cork?: () => void; uncork?: () => void };
  parse(message: { text: string; types: string[] }): void;
  bind(message: { values: Array<string | null> }): void;
  describe(message: { type: 'P' }): void;
  execute(message: { rows: number }): void;
  sync(): void;
  sendCopyFail(message: string): void;
}

/**
 * One statement through the extended protocol, in one pipelined round trip: Parse (which refuses
 * several commands), Bind, Describe, Execute with a row limit, Sync. The client calls the handle*
 * methods as the server answers; `done` settles at ReadyForQuery or at the first error.
 */
class CappedStatement implements pg.Submittable {
  fields: readonly Field[] = [];
  readonly rows: Array<ReadonlyArray<string | null>> = [];
  /** The text held no statement (only comments or blanks). */
  empty = false;
  /** The rows passed the answer's byte bound: none are kept from then on. */
  tooLarge = false;
  private bytes = 0;
  readonly done: Promise<unknown>;
  private settle: (error: unknown) => void = () => {};

  constructor(
    private readonly text: string,
    private readonly values: Array<string | null>,
    private readonly rowLimit: number,
    private readonly maxBytes: number,
  ) {
    this.done = new Promise((resolve) => (this.settle = resolve));
  }

  submit(connection: pg.Connection): void {
    const wire = connection as unknown as Wire;
    wire.stream.cork?.();
    try {
      wire.parse({ text: this.text, types: [] });
      wire.bind({ values: this.values });
      wire.describe({ type: 'P' });
      wire.execute({ rows: this.rowLimit });
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
  }

  handleRowDescription(message: { fields: Field[] }): void {
    this.fields = message.fields;
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    if (this.tooLarge) return;
    // The row past the cap only says there are more: it is not answered, nor counted.
    if (this.rows.length === this.rowLimit - 1) {
      this.rows.push(message.fields);
      return;
    }
    this.bytes += rowBytes(message.fields);
    if (this.bytes <= this.maxBytes) this.rows.push(message.fields);
    else {
      this.tooLarge = true;
      this.rows.length = 0;
    }
  }

  /** The row limit was reached: the portal waits, producing nothing more, until the transaction ends. */
  handlePortalSuspended(): void {}

  handleCommandComplete(): void {}

  handleEmptyQuery(): void {
    this.empty = true;
  }

  handleCopyInResponse(connection: pg.Connection): void {
    (connection as unknown as Wire).sendCopyFail(
      'COPY FROM STDIN is not available through the driver',
    );
  }

  handleCopyData(): void {}

  handleError(error: unknown): void {
    this.settle(error);
  }

  handleReadyForQuery(): void {
    this.settle(null);
  }
}

// Type oids whose text is turned into another JSON type.
const BOOL = 16;
const BYTEA = 17;
const INT8 = 20;
const INT2 = 21;
const INT4 = 23;
const OID = 26;
const FLOAT4 = 700;
const FLOAT8 = 701;
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;

const ISO_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)(\+00)?$/;

/** `2026-01-02 03:04:05.678+00` (DateStyle ISO, UTC) as ISO-8601; infinity, BC and other zones as sent. */
function isoTimestamp(text: string): string {
  const match = ISO_TEXT.exec(text);
  return match ? `${match[1]}T${match[2]}${match[3] ? 'Z' : ''}` : text;
}

/**
 * JSON-safe values: booleans, integers (past 2^53 as decimal strings), floats (NaN and infinities
 * as text), bytea as base64, timestamps as ISO-8601; everything else as PostgreSQL's own text
 * (numeric exactly, json as written, arrays, intervals, dates).
 */
function jsonValue(text: string | null, type: number): RawValue {
  if (text === null) return null;
  switch (type) {
    case BOOL:
      return text === 't';
    case INT2:
    case INT4:
    case OID:
      return Number(text);
    case INT8: {
      const value = Number(text);
      return Number.isSafeInteger(value) ? value : text;
    }
    case FLOAT4:
    case FLOAT8: {
      const value = Number(text);
      return Number.isFinite(value) ? value : text;
    }
    case BYTEA:
      return Buffer.from(text.slice(2), 'hex').toString('base64');
    case TIMESTAMP:
    case TIMESTAMPTZ:
      return isoTimestamp(text);
    default:
      return text;
  }
}

/** A binding as parameter text; PostgreSQL infers each parameter's type from where it is used. */
const wireValue = (value: RawBinding): string | null => (value === null ? null : String(value));

/** PgBouncer's answers when no server connection can be had (it sends them as 08P01). */
const POOLER_UNAVAILABLE =
  /query_wait_timeout|server login has been failing|no more connections allowed|server conn crashed/;

const PROGRAMMING_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError];

/** pg's errors as refusals: the server's SQLSTATE decides; anything without one is the connection. */
function refusalOf(error: unknown, timeoutMs: number): unknown {
  if (error instanceof RawSqlError || PROGRAMMING_ERRORS.some((type) => error instanceof type))
    return error;
  const message = error instanceof Error ? error.message : String(error);
  if (!(error instanceof pg.DatabaseError)) return new RawSqlError('unavailable', message);
  const code = error.code ?? '';
  if (code === '57014') return new RawSqlError('timeout', refusals.timeout(timeoutMs));
  if (code === '25006') return new RawSqlError('read-only', refusals.readOnly);
  // 42601 is every syntax error; this one is Parse refusing a second command.
  if (code === '42601' && /multiple commands/.test(message))
    return new RawSqlError('multiple-statements', refusals.oneStatement);
  // Connection exceptions, shutdowns, resources, authorization, a database that does not exist;
  // not 08P01, which is also a Bind with the wrong number of parameters (the session goes on).
  // PgBouncer's own refusals are 08P01 too: a server it cannot reach or log in to.
  if (code === '08P01' && POOLER_UNAVAILABLE.test(message))
    return new RawSqlError('unavailable', message);
  if ((/^(08|53|57P|28)/.test(code) && code !== '08P01') || code === '3D000')
    return new RawSqlError('unavailable', message);
  return new RawSqlError('invalid', message);
}

export function postgresRawSql(url: string, limits: RawSqlLimits): RawSql {
  const pool = new pg.Pool({
    connectionString: url,
    max: DRIVER_POOL_SIZE,
    connectionTimeoutMillis: DRIVER_CHECKOUT_TIMEOUT_MS,
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

  /** Declared types by "tableID:columnID"; a lookup that fails leaves the types null. */
  const declaredTypes = async (
    client: pg.PoolClient,
    fields: readonly Field[],
  ): Promise<Map<string, string>> => {
    const sourced = fields.filter((f) => f.tableID !== 0);
    if (sourced.length === 0) return new Map();
    try {
      const { rows } = await client.query<{ key: string; type: string }>(DECLARED, [
        sourced.map((f) => f.tableID),
        sourced.map((f) => f.columnID),
      ]);
      return new Map(rows.map((r) => [r.key, r.type]));
    } catch {
      return new Map();
    }
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
