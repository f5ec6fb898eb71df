// SQLite capabilities: LIKE folds ASCII (and Unicode through svc_casefold), RETURNING exists (3.35+),
// timestamps are stored as ISO-8601 text so they sort as strings.

import { sql } from 'kysely';
import { AUTOINCREMENT_SEQ, appendByAutoincrement } from '../../change-statements.js';
import { insertRows } from '../../write-statements.js';
import { type DialectAdapter, LIKE_ESCAPE, type TranslatedError } from '../dialect-adapter.js';
import { estimateCount } from './count-estimate.js';

export const sqliteAdapter: DialectAdapter = {
  name: 'sqlite',
  likeInsensitive(column, pattern, negate, unicode, escaped = false) {
    // SQLite's LIKE folds ASCII letters only; a non-ASCII pattern compares both sides folded by
    // svc_casefold (registered in connect.ts), still with LIKE, whose escape it leaves as it is.
    // ASCII patterns keep the faster built-in path. SQLite's LIKE has no escape unless told one.
    const left = unicode ? sql`svc_casefold(${sql.ref(column)})` : sql.ref(column);
    const right = unicode ? sql`svc_casefold(${pattern})` : pattern;
    const escapeClause = escaped ? sql` escape ${sql.lit(LIKE_ESCAPE)}` : sql``;
    return negate
      ? sql<boolean>`${left} not like ${right}${escapeClause}`
      : sql<boolean>`${left} like ${right}${escapeClause}`;
  },
  async insertReturningId(db, table, values, primaryKey) {
    const [row] = await insertRows(db, table, [values], primaryKey);
    return Number(row?.[primaryKey]);
  },
  jsonObject(fields) {
    const pairs = Object.entries(fields).map(([name, value]) => sql`${sql.lit(name)}, ${value}`);
    return sql`json_object(${sql.join(pairs)})`;
  },
  childRows(table, columns, where, orderBy) {
    // JSON holds every SQLite value but a BLOB: one travels as {"blob": <hex>} (the reader turns
    // it back into bytes). Doubles print in a form that reads back exactly.
    const values = columns.map((c) => {
      const value = sql.ref(c);
      return sql`iif(typeof(${value}) = 'blob', json_object('blob', hex(${value})), ${value})`;
    });
    // The ordered derived table feeds the aggregate in that order (SQLite does not flatten an
    // ordered subquery into an aggregate); the foreign key index gives the order without a sort.
    const rows = sql`select ${sql.join(columns.map((c) => sql.ref(`${table}.${c}`)))} from ${sql.table(table)} where ${sql.join(where, sql` and `)} order by ${sql.ref(`${table}.${orderBy}`)}`;
    return sql`(select json_group_array(json_array(${sql.join(values)})) from (${rows}))`;
  },
  // A BLOB came as {"blob": <hex>}; no other value of a row is an object.
  childValue: (value) =>
    typeof value === 'object' && value !== null
      ? Buffer.from((value as { blob: string }).blob, 'hex')
      : value,
  childRowsUnderLock: true,
  nullsSortLow: true,
  // One writer at a time already: a write transaction holds the only write connection.
  lockForUpdate: (query) => query,
  estimateCount,
  appendChange: appendByAutoincrement,
  lastChangeSeq: AUTOINCREMENT_SEQ,
  toTimestamp: (date) => date.toISOString(),
  translateError(error): TranslatedError | null {
    if (!(error instanceof Error) || !('code' in error)) return null;
    const code = String((error as { code: unknown }).code);
    const column = /: [\w]+\.(\w+)/.exec(error.message)?.[1] ?? null;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
      return { kind: 'unique', column };
    // ON DELETE RESTRICT reports itself as a trigger constraint.
    if (
      code === 'SQLITE_CONSTRAINT_FOREIGNKEY' ||
      (code === 'SQLITE_CONSTRAINT_TRIGGER' && /FOREIGN KEY/.test(error.message))
    )
      return { kind: 'foreign-key' };
    if (code === 'SQLITE_CONSTRAINT_NOTNULL') return { kind: 'not-null', column };
    // SQLITE_BUSY: another connection (another process) held the write lock past busy_timeout.
    if (code === 'SQLITE_BUSY') return { kind: 'timeout' };
    if (code === 'SQLITE_CANTOPEN') return { kind: 'unavailable' };
    return null;
  },
};
