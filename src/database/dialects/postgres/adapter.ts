// PostgreSQL capabilities: ILIKE folds case (Unicode too), RETURNING gives generated ids,
// timestamps are timestamptz, errors carry SQLSTATE codes.

import { sql } from 'kysely';
import { appendUnnumbered, COUNTER_SEQ, numberChangesInOne } from '../../change-statements.js';
import { insertRows } from '../../write-statements.js';
import { type DialectAdapter, LIKE_ESCAPE, type TranslatedError } from '../dialect-adapter.js';
import { runWritesCombined } from './combined-writes.js';
import { estimateCount } from './count-estimate.js';
import { typeParser } from './type-parsers.js';

/** SQLSTATE classes that mean "the server cannot be reached or is going away". */
const UNAVAILABLE = /^(08|53|57P0[1-3])/;
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
/** pg's own pool and socket failures carry no SQLSTATE, only these messages. */
const DRIVER_UNAVAILABLE =
  /timeout exceeded when trying to connect|Connection terminated|not queryable|Cannot use a pool after calling end/;
/** query_canceled (statement_timeout) and lock_not_available (lock_timeout). */
const CANCELLED = new Set(['57014', '55P03']);
/** A value the column's type cannot hold: a word for a number (22P02), a bad date or time
 * (22007, 22008), a number out of range (22003), a NUL character in text (22021). */
const INVALID_VALUE = new Set(['22P02', '22007', '22008', '22003', '22021']);
/** Types whose values to_json writes as JSON that reads back as pg's parser reads their text. */
const JSON_EXACT = sql.lit('{int2,int4,int8,bool,text,varchar}');

export const postgresAdapter: DialectAdapter = {
  name: 'postgres',
  likeInsensitive(column, pattern, negate, unicode, escaped = false) {
    // Backslash is LIKE's default escape in PostgreSQL; SQLite has none, so neither has one here
    // unless the pattern is `escaped`. Numbers and timestamps match as text, as they do on SQLite.
    const text = sql`cast(${sql.ref(column)} as text)`;
    const escapeClause = sql.lit(escaped ? LIKE_ESCAPE : '');
    const not = negate ? sql`not ` : sql``;
    // ILIKE folds by the collation's character classes, and the C locale docs ask for folds
    // ASCII only: a non-ASCII pattern compares both sides lowered under ICU's root collation,
    // which folds letters as SQLite's svc_casefold (toLowerCase) does. Lowering and LIKE take
    // two thirds of the time ICU's ILIKE takes; ASCII patterns keep the plain ILIKE.
    if (unicode)
      return sql<boolean>`lower(${text} collate "und-x-icu") ${not}like lower(${pattern} collate "und-x-icu") escape ${escapeClause}`;
    return sql<boolean>`${text} ${not}ilike ${pattern} escape ${escapeClause}`;
  },
  async insertReturningId(db, table, values, primaryKey) {
    const [row] = await insertRows(db, table, [values], primaryKey);
    return Number(row?.[primaryKey]);
  },
  jsonObject(fields) {
    const pairs = Object.entries(fields).map(
      ([name, value]) => sql`${sql.lit(name)}::text, ${value}`,
    );
    return sql`json_build_object(${sql.join(pairs)})`;
  },
  childRows(table, columns, where, orderBy) {
    // Integers, booleans and text are exact in JSON; any other value travels as [type oid, its
    // output text] (what a select sends: format's %s, where ::text would trim a char(n)), parsed
    // back by pg's parser for that type (childValue), so numeric stays a string, timestamps Date
    // objects, bytea bytes, json its parsed value.
    const values = columns.map((c) => {
      const value = sql.ref(`${table}.${c}`);
      return sql`case when ${value} is null or pg_typeof(${value}) = any(${JSON_EXACT}::regtype[]) then to_json(${value}) else json_build_array(pg_typeof(${value})::oid::int, format('%s', ${value})) end`;
    });
    const order = sql.ref(`${table}.${orderBy}`);
    return sql`(select coalesce(json_agg(json_build_array(${sql.join(values)}) order by ${order}), '[]') from ${sql.table(table)} where ${sql.join(where, sql` and `)})`;
  },
  jsonText: (json) => sql<string>`${json}::text`,
  childValue: (value) =>
    Array.isArray(value) ? typeParser(value[0] as number)(value[1] as string) : value,
  childRowsUnderLock: false,
  runWrites: runWritesCombined,
  nullsSortLow: false,
  lockForUpdate: (query) => query.forUpdate() as typeof query,
  estimateCount,
  appendChange: appendUnnumbered,
  numberChanges: numberChangesInOne,
  lastChangeSeq: COUNTER_SEQ,
  toTimestamp: (date) => date,
  translateError(error): TranslatedError | null {
    if (!(error instanceof Error)) return null;
    const { code, column, detail } = error as Error & {
      code?: string;
      column?: string;
      detail?: string;
    };
    if (code === undefined)
      return DRIVER_UNAVAILABLE.test(error.message) ? { kind: 'unavailable' } : null;
    if (code === '23505')
      return { kind: 'unique', column: /^Key \(([\w]+)\)=/.exec(detail ?? '')?.[1] ?? null };
    if (code === '23503') return { kind: 'foreign-key' };
    // SQLite and MySQL compare a word with a number as unequal, and store a NUL character;
    // PostgreSQL refuses both.
    if (INVALID_VALUE.has(code)) return { kind: 'invalid-value' };
    if (code === '22001') return { kind: 'too-long', column: null };
    if (code === '23502') return { kind: 'not-null', column: column ?? null };
    if (CANCELLED.has(code)) return { kind: 'timeout' };
    // deadlock_detected, serialization_failure
    if (code === '40P01' || code === '40001') return { kind: 'deadlock' };
    if (UNAVAILABLE.test(code) || NETWORK.has(code)) return { kind: 'unavailable' };
    return null;
  },
};
