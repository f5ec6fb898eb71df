// The engine's INSERT, UPDATE and DELETE statements through the query cache (query-cache.ts):
// each shape (table, columns, number of rows or keys) is built and compiled once, later writes
// only bind values. Identifiers come from entity definitions checked at boot, never a request.
import type { Db } from './db.js';
import { param, paramList, paramListValues, runCached, statementSite } from './query-cache.js';

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
 * Inserts rows that share one column list (the first row's), in one statement; with
 * `returning`, answers the inserted rows' values of that column.
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
  const values: Record<string, unknown> = {};
  rows.forEach((row, r) => {
    named(`r${r}c`, columns, row, values);
  });
  return runCached<Record<string, unknown>>(
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
  await runCached(
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

/** `delete from <table> where <column> = <value> and ...`, and, with `keys`, `<column> in (keys)`. */
export async function deleteWhere(
  db: Db,
  table: string,
  where: Values,
  keys?: { readonly column: string; readonly values: readonly unknown[] },
): Promise<void> {
  const conditions = Object.keys(where);
  await runCached(
    db,
    [DELETE, table, keys?.column ?? null, keys?.values.length ?? null, ...conditions],
    () => {
      const query = whereEquals(db.deleteFrom(table), conditions);
      return keys ? query.where(keys.column, 'in', paramList('k', keys.values.length)) : query;
    },
    named('w', conditions, where, keys ? paramListValues('k', keys.values) : {}),
  );
}
