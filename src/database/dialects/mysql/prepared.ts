// Statements run as server-side prepared statements (mysql2 `execute`, issue 33), as
// PostgreSQL's run named (../postgres/named-statements.ts): the server parses and plans a text
// once per connection, where a text-protocol query is parsed at every run. mysql2 keeps each
// connection's statements by text, the least recently used closed past MAX_PER_CONNECTION (the
// server's max_prepared_stmt_count is shared by every client). What the binary protocol would
// change is put back, so answers stay those of the text protocol:
// - values: an integer is bound as BIGINT and a decimal as DECIMAL text, as the text protocol's
//   literals are typed (mysql2 binds every number as DOUBLE);
// - FLOAT columns: the binary protocol gives the single-precision number (0.10000000149011612),
//   the text one MariaDB's text of it (%g: 6 significant digits, or its declared decimals);
// - fractional seconds: the binary protocol sends none when they are zero, and mysql2 writes a
//   TIME's without trailing zeros; the text one gives as many digits as the column declares
//   (2024-02-29 10:00:00.000 for a DATETIME(3)).
// Other statements (BEGIN, SET, EXPLAIN, DDL) and a statement the server cannot prepare (its
// statement limit reached) run as before.
import mysql, { type FieldPacket, type PoolConnection, type QueryError } from 'mysql2';

/** Per connection: 10 connections hold at most 1,280 of the server's 16,382 (its default). */
export const MAX_PER_CONNECTION = 128;

/** Reads and writes: the texts the query cache compiles; the rest gain nothing from a plan. */
const PREPARED = /^\s*(select|insert|update|delete|with|replace)\s/i;

/** MySQL's ER_MAX_PREPARED_STMT_COUNT_REACHED and ER_UNSUPPORTED_PS. */
const NOT_PREPARED = new Set([1461, 1295]);

const FLOAT = 4;
const TIMESTAMP = 7;
const TIME = 11;
const DATETIME = 12;
/** A column's `decimals` when it declares none (NOT_FIXED_DEC). */
const NOT_FIXED = 31;

type Callback = (error: QueryError | null, result?: unknown) => void;

/** What Kysely's MysqlDriver asks of a pooled connection. */
export interface KyselyConnection {
  query(sql: string, values: readonly unknown[], callback?: Callback): unknown;
  release(): void;
}

function bound(value: unknown): unknown {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return mysql.TypedParameter.LONGLONG(value);
    const text = String(value);
    return Number.isFinite(value) && !text.includes('e')
      ? mysql.TypedParameter.NEWDECIMAL(text)
      : value;
  }
  if (typeof value === 'bigint') return mysql.TypedParameter.LONGLONG(value);
  return value;
}

/** FLOAT as the text protocol gives it. */
function textFloat(value: number, decimals: number): number {
  return Number(decimals >= NOT_FIXED ? value.toPrecision(6) : value.toFixed(decimals));
}

/** A time's text with the `decimals` digits of fraction the text protocol gives. */
function textTime(value: string, decimals: number): string {
  const dot = value.indexOf('.');
  const digits = dot < 0 ? 0 : value.length - dot - 1;
  return digits >= decimals
    ? value
    : `${value}${dot < 0 ? '.' : ''}${'0'.repeat(decimals - digits)}`;
}

type Fix = (row: Record<string, unknown>) => void;

/** What puts back the text protocol's values in a result's rows, or null when nothing differs. */
function textFix(fields: readonly FieldPacket[] | undefined): Fix | null {
  const fixes: Fix[] = [];
  for (const { name, columnType, decimals = NOT_FIXED } of fields ?? []) {
    if (columnType === FLOAT)
      fixes.push((row) => {
        const value = row[name];
        if (typeof value === 'number') row[name] = textFloat(value, decimals);
      });
    else if (
      (columnType === DATETIME || columnType === TIMESTAMP || columnType === TIME) &&
      decimals > 0 &&
      decimals < NOT_FIXED
    )
      fixes.push((row) => {
        const value = row[name];
        if (typeof value === 'string') row[name] = textTime(value, decimals);
      });
  }
  if (fixes.length === 0) return null;
  return (row) => {
    for (const fix of fixes) fix(row);
  };
}

function preparing(connection: PoolConnection): KyselyConnection {
  const text = (sql: string, values: readonly unknown[], callback?: Callback) =>
    connection.query(sql, values as unknown[], callback as never);
  return {
    query(sql, values, callback) {
      if (!PREPARED.test(sql)) return text(sql, values, callback);
      const parameters = values.map(bound);
      if (callback)
        return connection.execute(sql, parameters as never, (error, result, fields) => {
          if (error && NOT_PREPARED.has(error.errno ?? 0)) return text(sql, values, callback);
          const fix = !error && Array.isArray(result) ? textFix(fields) : null;
          if (fix) for (const row of result as Record<string, unknown>[]) fix(row);
          callback(error, result);
        });
      // Streamed (a list page, sliced-reader.ts): rows are fixed before the stream takes them,
      // this listener being the first.
      const command = connection.execute(sql, parameters as never);
      let fix: Fix | null = null;
      command.on('fields', (fields: FieldPacket[]) => (fix = textFix(fields)));
      command.on('result', (row: unknown) => fix?.(row as Record<string, unknown>));
      return command;
    },
    release: () => connection.release(),
  };
}

const wrapped = new WeakMap<PoolConnection, KyselyConnection>();

/** The connection as Kysely sees it: the same object every time, which Kysely keys its state by. */
export function preparedConnection(connection: PoolConnection): KyselyConnection {
  let view = wrapped.get(connection);
  if (!view) wrapped.set(connection, (view = preparing(connection)));
  return view;
}
