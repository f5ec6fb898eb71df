// The engine's INSERT, UPDATE and DELETE statements through the statement runner (statement-runner.ts):
// each shape (table, columns, number of rows or keys) is built and compiled once, later writes
// only bind values. Identifiers come from entity definitions checked at boot, never a request.
// The number of shapes is bounded whatever the input (issue 19): many rows are inserted in
// chunks from a fixed set of sizes, key lists are compiled for a power-of-two length.
import type { Db } from './db.js';
import {
  listLength,
  param,
  paramList,
  paramListValues,
  runStatement,
  statementSite,
} from './statement-runner.js';

type Values = Readonly<Record<string, unknown>>;

const INSERT = statementSite('insert rows');
const UPDATE = statementSite('update where');
const DELETE = statementSite('delete where');

/** Adds the columns' values, in order, to `into` as `<prefix>0..`. */
function named(
  prefix: string,
  columns: readonly string[],
  values: Values,
  into: Record<string, unknown> = {},
): Record<string, unknown> {
  for (let i = 0; i < columns.length; i += 1)
    into[prefix + i] = values[columns[i] as string] ?? null;
  return into;
}

/** The equality conditions of `where`, in key order, as placeholders `w0..`. */
function whereEquals<Q extends { where(column: string, op: '=', value: unknown): Q }>(
  query: Q,
  columns: readonly string[],
): Q {
  return columns.reduce((q, c, i) => q.where(c, '=', param(`w${i}`)), query);
}

/**
 * Parameters one INSERT binds at most: far below every engine's limit (SQLite 32,766, PostgreSQL
 * and MySQL 65,535), and rows per INSERT at most, so a statement's text stays small.
 */
const INSERT_PARAMETERS = 2048;
const INSERT_ROWS = 256;
/** Up to this many rows go in one INSERT of exactly that many (the common writes: one statement). */
const EXACT_ROWS = 64;

/** The largest power of two of rows of `columns` columns one INSERT takes. */
function insertChunkRows(columns: number): number {
  let rows = INSERT_ROWS;
  while (rows > 1 && rows * Math.max(columns, 1) > INSERT_PARAMETERS) rows /= 2;
  return rows;
}

/**
 * The row counts `count` rows are inserted in, from a fixed set per column count: any count up
 * to 64 (within the chunk size) as it is, larger ones as powers of two up to the chunk size.
 * 1,000 rows of 2 columns are 256 + 256 + 256 + 128 + 64 + 40.
 */
export function insertChunks(count: number, columns: number): number[] {
  const chunk = insertChunkRows(columns);
  const exact = Math.min(EXACT_ROWS, chunk);
  const sizes: number[] = [];
  for (let left = count; left > 0; ) {
    let size = chunk;
    if (left <= exact) size = left;
    else while (size > left) size /= 2;
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

/**
 * Inserts rows that share one column list (the first row's), in the statements insertChunks
 * gives; with `returning`, answers the inserted rows' values of that column, in order.
 */
export async function insertRows(
  db: Db,
  table: string,
  rows: readonly Values[],
  returning?: string,
): Promise<Array<Record<string, unknown>>> {
  const [first] = rows;
  if (!first) return [];
  const columns = Object.keys(first);
  const inserted: Array<Record<string, unknown>> = [];
  let start = 0;
  for (const size of insertChunks(rows.length, columns.length)) {
    const part = rows.slice(start, start + size);
    inserted.push(...(await insertChunk(db, table, columns, part, returning)));
    start += size;
  }
  return inserted;
}

/** One INSERT of `rows` with `columns`. */
function insertChunk(
  db: Db,
  table: string,
  columns: readonly string[],
  rows: readonly Values[],
  returning: string | undefined,
): Promise<Array<Record<string, unknown>>> {
  const values: Record<string, unknown> = {};
  rows.forEach((row, r) => {
    named(`r${r}c`, columns, row, values);
  });
  return runStatement<Record<string, unknown>>(
    db,
    [INSERT, table, rows.length, returning ?? null, ...columns],
    () => {
      const query = db
        .insertInto(table)
        .values(
          rows.map((_, r) => Object.fromEntries(columns.map((c, i) => [c, param(`r${r}c${i}`)]))),
        );
      return returning ? query.returning(returning) : query;
    },
    values,
  );
}

/** `update <table> set <changes> where <column> = <value> and ...` */
export async function updateWhere(
  db: Db,
  table: string,
  changes: Values,
  where: Values,
): Promise<void> {
  const columns = Object.keys(changes);
  const conditions = Object.keys(where);
  await runStatement(
    db,
    [UPDATE, table, columns.length, ...columns, ...conditions],
    () =>
      whereEquals(
        db.updateTable(table).set(Object.fromEntries(columns.map((c, i) => [c, param(`s${i}`)]))),
        conditions,
      ),
    named('w', conditions, where, named('s', columns, changes)),
  );
}

/** Keys one DELETE lists at most; more are deleted in several statements. */
const DELETE_KEYS = 1024;

/** `delete from <table> where <column> = <value> and ...`, and, with `keys`, `<column> in (keys)`. */
export async function deleteWhere(
  db: Db,
  table: string,
  where: Values,
  keys?: { readonly column: string; readonly values: readonly unknown[] },
): Promise<void> {
  if (keys && keys.values.length > DELETE_KEYS) {
    for (let start = 0; start < keys.values.length; start += DELETE_KEYS)
      await deleteWhere(db, table, where, {
        column: keys.column,
        values: keys.values.slice(start, start + DELETE_KEYS),
      });
    return;
  }
  const conditions = Object.keys(where);
  await runStatement(
    db,
    [
      DELETE,
      table,
      keys?.column ?? null,
      keys ? listLength(keys.values.length) : null,
      ...conditions,
    ],
    () => {
      const query = whereEquals(db.deleteFrom(table), conditions);
      return keys ? query.where(keys.column, 'in', paramList('k', keys.values.length)) : query;
    },
    named('w', conditions, where, keys ? paramListValues('k', keys.values) : {}),
  );
}
