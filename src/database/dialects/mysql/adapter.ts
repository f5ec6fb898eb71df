// MariaDB/MySQL capabilities: tables use a binary collation (migrations/column-types.ts) so
// equality and sorting match the other engines, so LIKE folds case explicitly; generated ids
// come from the insert result; timestamps are DATETIME(3) in UTC.
import { sql } from 'kysely';
import type { DialectAdapter, TranslatedError } from '../dialect-adapter.js';

const UNAVAILABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN', 'POOL_CLOSED',
]);

/** A DATETIME(3) literal in UTC: 2026-11-21 10:00:00.123. */
function utcDatetime(date: Date): string {
  return date.toISOString().slice(0, 23).replace('T', ' ');
}

export const mysqlAdapter: DialectAdapter = {
  name: 'mysql',
  likeInsensitive(column, pattern, negate) {
    // Backslash is LIKE's escape in MySQL (ESCAPE '' does not turn it off in MariaDB) and SQLite
    // has none: doubling every backslash makes it match itself, as on the other engines.
    const left = sql`lower(${sql.ref(column)})`;
    const right = sql`lower(replace(${pattern}, '\\\\', '\\\\\\\\'))`;
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
  nullsSortLow: true,
  lockForUpdate: (query) => query.forUpdate() as typeof query,
  toTimestamp: utcDatetime,
  translateError(error): TranslatedError | null {
    if (!(error instanceof Error)) return null;
    const { code } = error as Error & { code?: string };
    if (code === 'ER_DUP_ENTRY') {
      // "Duplicate entry 'x' for key 'users_login_unique'" (or 'users.login', 'login').
      const key = /for key '(?:\w+\.)?(\w+)'/.exec(error.message)?.[1] ?? null;
      return { kind: 'unique', column: key?.replace(/^\w+?_(\w+)_unique$/, '$1') ?? null };
    }
    if (code === 'ER_ROW_IS_REFERENCED_2' || code === 'ER_NO_REFERENCED_ROW_2' || code === 'ER_ROW_IS_REFERENCED' || code === 'ER_NO_REFERENCED_ROW') {
      return { kind: 'foreign-key' };
    }
    if (code === 'ER_DATA_TOO_LONG') return { kind: 'too-long', column: /column '(\w+)'/.exec(error.message)?.[1] ?? null };
    if (code === 'ER_BAD_NULL_ERROR' || code === 'ER_NO_DEFAULT_FOR_FIELD') {
      return { kind: 'not-null', column: /(?:Column|Field) '(\w+)'/.exec(error.message)?.[1] ?? null };
    }
    if (code !== undefined && UNAVAILABLE.has(code)) return { kind: 'unavailable' };
    return null;
  },
};
