// MariaDB/MySQL capabilities: tables use a binary collation (migrations/column-types.ts) so
// equality and sorting match the other engines, so LIKE folds case explicitly; generated ids
// come from the insert result; timestamps are DATETIME(3) in UTC; a record's detail rows ride in
// its own select as JSON text (childRows).
import { sql } from 'kysely';
import { appendUnnumbered, COUNTER_SEQ, numberChanges } from '../../change-statements.js';
import { type DialectAdapter, LIKE_ESCAPE, type TranslatedError } from '../dialect-adapter.js';
import { estimateCount } from './count-estimate.js';

/** No pooled connection within DB_CONNECT_TIMEOUT_MS (connect.ts; mysql2's own pool has no limit). */
export const ACQUIRE_TIMEOUT = 'POOL_ACQUIRE_TIMEOUT';

const UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  ACQUIRE_TIMEOUT,
]);
/** MariaDB's "Connection was killed" has no name in mysql2's table of codes, only a number. */
const ER_CONNECTION_KILLED = 1927;
/**
 * Statements cut short: MariaDB's max_statement_time (1969, also nameless in mysql2), MySQL's
 * max_execution_time (ER_QUERY_TIMEOUT) and innodb_lock_wait_timeout (ER_LOCK_WAIT_TIMEOUT).
 */
const CANCELLED = new Set([1969, 3024, 1205]);

/** A DATETIME(3) literal in UTC: 2026-11-21 10:00:00.123. */
function utcDatetime(date: Date): string {
  return date.toISOString().slice(0, 23).replace('T', ' ');
}

export const mysqlAdapter: DialectAdapter = {
  name: 'mysql',
  likeInsensitive(column, pattern, negate, _unicode, escaped = false) {
    // Backslash is LIKE's escape in MySQL (ESCAPE '' does not turn it off in MariaDB) and SQLite
    // has none: doubling every backslash makes it match itself, as on the other engines. An
    // `escaped` pattern names its escape, which makes a backslash an ordinary character.
    const left = sql`lower(${sql.ref(column)})`;
    const right = escaped
      ? sql`lower(${pattern}) escape ${sql.lit(LIKE_ESCAPE)}`
      : sql`lower(replace(${pattern}, '\\\\', '\\\\\\\\'))`;
    return negate ? sql<boolean>`${left} not like ${right}` : sql<boolean>`${left} like ${right}`;
  },
  async insertReturningId(db, table, values) {
    const result = await db.insertInto(table).values(values).executeTakeFirstOrThrow();
    return Number(result.insertId);
  },
  jsonObject(fields) {
    const pairs = Object.entries(fields).map(([name, value]) => sql`${sql.lit(name)}, ${value}`);
    return sql`json_object(${sql.join(pairs)})`;
  },
  // Text, not MariaDB's JSON (which mysql2 parses) nor MySQL's (which compares as JSON): the
  // bearer token's check rides in a read's own statement (auth/bearer-guard.ts carryBearerCheck).
  jsonText: (json) => sql<string>`cast(${json} as char)`,
  childRows(table, columns, where, orderBy) {
    // Each value as a JSON array of its own, read back by childValue: `[value]` as JSON_ARRAY
    // writes it (numbers, text, DATETIME text, a json column's value: what a plain select
    // reads), or, for a binary string (CONCAT of it stays binary; of a number or a date it does
    // not), `["base64", text]`: JSON_ARRAY cannot hold its bytes. group_concat, not
    // json_arrayagg: MySQL's has no ORDER BY; its length limit is lifted per connection
    // (connect.ts). A binary column makes the text binary: read as utf8mb4, which it is.
    const values = columns.map((c) => {
      const value = sql.ref(`${table}.${c}`);
      return sql`if(charset(concat(${value})) = 'binary', json_array('base64', to_base64(${value})), json_array(${value}))`;
    });
    const row = sql`concat('[', ${sql.join(values, sql`, ',', `)}, ']')`;
    const order = sql.ref(`${table}.${orderBy}`);
    return sql`(select convert(coalesce(concat('[', group_concat(${row} order by ${order} separator ','), ']'), '[]') using utf8mb4) from ${sql.table(table)} where ${sql.join(where, sql` and `)})`;
  },
  childValue(value) {
    if (!Array.isArray(value)) return value;
    if (value.length === 1) return value[0];
    return value[1] === null ? null : Buffer.from(String(value[1]), 'base64');
  },
  nullsSortLow: true,
  childRowsUnderLock: false,
  lockForUpdate: (query) => query.forUpdate() as typeof query,
  estimateCount,
  appendChange: appendUnnumbered,
  numberChanges: (db) => db.transaction().execute((trx) => numberChanges(trx, false)),
  lastChangeSeq: COUNTER_SEQ,
  toTimestamp: utcDatetime,
  translateError(error): TranslatedError | null {
    if (!(error instanceof Error)) return null;
    const { code, errno, fatal } = error as Error & {
      code?: string;
      errno?: number;
      fatal?: boolean;
    };
    if (code === 'ER_DUP_ENTRY') {
      // "Duplicate entry 'x' for key 'users_login_unique'" (or 'users.login', 'login').
      const key = /for key '(?:\w+\.)?(\w+)'/.exec(error.message)?.[1] ?? null;
      return { kind: 'unique', column: key?.replace(/^\w+?_(\w+)_unique$/, '$1') ?? null };
    }
    if (
      code === 'ER_ROW_IS_REFERENCED_2' ||
      code === 'ER_NO_REFERENCED_ROW_2' ||
      code === 'ER_ROW_IS_REFERENCED' ||
      code === 'ER_NO_REFERENCED_ROW'
    ) {
      return { kind: 'foreign-key' };
    }
    if (code === 'ER_DATA_TOO_LONG')
      return { kind: 'too-long', column: /column '(\w+)'/.exec(error.message)?.[1] ?? null };
    if (code === 'ER_BAD_NULL_ERROR' || code === 'ER_NO_DEFAULT_FOR_FIELD') {
      return {
        kind: 'not-null',
        column: /(?:Column|Field) '(\w+)'/.exec(error.message)?.[1] ?? null,
      };
    }
    if (errno !== undefined && CANCELLED.has(errno)) return { kind: 'timeout' };
    if (code === 'ER_LOCK_DEADLOCK') return { kind: 'deadlock' };
    // mysql2 marks every error that ends the connection (network, protocol, closed) as fatal.
    if (
      fatal === true ||
      errno === ER_CONNECTION_KILLED ||
      (code !== undefined && UNAVAILABLE.has(code))
    )
      return { kind: 'unavailable' };
    return null;
  },
};
