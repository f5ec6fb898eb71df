// The engine's INSERT, UPDATE and DELETE statements through the statement runner
// (statement-runner.ts): each shape (table, columns, number of rows or keys) is built and compiled once, later writes
// only bind values. Identifiers come from entity definitions checked at boot, never a request.
// The number of shapes is bounded whatever the input (issue 19): many rows are inserted in
// chunks from a fixed set of sizes, key lists are compiled for a power-of-two length.
import type { Compilable, QueryCreator } from 'kysely';
import type { Db } from './db.js';
import {
  type KeyPart,
  listLength,
  param,
  paramList,
  paramListValues,
  runStatement,
  type StatementKey,
  statementSite,
} from './statement-runner.js';

type Values = Readonly<Record<string, unknown>>;
// biome-ignore lint/suspicious/noExplicitAny: tables are declared at run time, the query builder is untyped
export type Creator = QueryCreator<any>;

const INSERT = statementSite('insert rows');
const UPDATE = statementSite('update where');
const DELETE = statementSite('delete where');

/**
 * One statement of a write: what its SQL is built from (`key`), how (`build`, on a query creator,
 * its placeholders' names prefixed by `prefix`) and its values for that prefix.
 */
export interface WriteStatement {
  readonly key: readonly KeyPart[];
  build(creator: Creator, prefix: string): Compilable<unknown> & Returnable;
  values(prefix: string): Record<string, unknown>;
}

/** An INSERT, UPDATE or DELETE builder, which can answer a column of its rows. */
export interface Returnable {
  // biome-ignore lint/suspicious/noExplicitAny: any of the three builders
  returning(selection: any): Compilable<unknown>;
}

/** Adds the columns' values, in order, to `into` as `<prefix>0..`. */
export function named(
  prefix: string,
  columns: readonly string[],
  values: Values,
  into: Record<string, unknown> = {},
): Record<string, unknown> {
  for (let i = 0; i < columns.length; i += 1)
    into[prefix + i] = values[columns[i] as string] ?? null;
  return into;
}

/** The equality conditions of `where`, in key order, as placeholders `<prefix>w0..`. */
export function whereEquals<Q extends { where(column: string, op: '=', value: unknown): Q }>(
  query: Q,
  columns: readonly string[],
  prefix: string,
): Q {
  return columns.reduce((q, c, i) => q.where(c, '=', param(`${prefix}w${i}`)), query);
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
  const inserted: Array<Record<string, unknown>> = [];
  for (const statement of insertStatements(table, rows)) {
    inserted.push(
      ...(await runStatement<Record<string, unknown>>(
        db,
        [...(statement.key as StatementKey), returning ?? null],
        () => {
          const query = statement.build(db, '');
          return returning ? query.returning(returning) : query;
        },
        statement.values(''),
      )),
    );
  }
  return inserted;
}

/** One INSERT of `rows` with `columns`. */
function insertChunk(
  table: string,
  columns: readonly string[],
  rows: readonly Values[],
): WriteStatement {
  return {
    key: [INSERT, table, rows.length, ...columns],
    build: (creator, p) =>
      creator
        .insertInto(table)
        .values(
          rows.map((_, r) =>
            Object.fromEntries(columns.map((c, i) => [c, param(`${p}r${r}c${i}`)])),
          ),
        ),
    values: (p) => {
      const values: Record<string, unknown> = {};
      rows.forEach((row, r) => {
        named(`${p}r${r}c`, columns, row, values);
      });
      return values;
    },
  };
}

/** The INSERTs of `rows`, which share one column list (the first row's), as insertChunks cuts them. */
function insertStatements(table: string, rows: readonly Values[]): WriteStatement[] {
  const [first] = rows;
  if (!first) return [];
  const columns = Object.keys(first);
  let start = 0;
  return insertChunks(rows.length, columns.length).map((size) => {
    start += size;
    return insertChunk(table, columns, rows.slice(start - size, start));
  });
}

/** `update <table> set <changes> where <column> = <value> and ...` */
export function updateStatement(table: string, changes: Values, where: Values): WriteStatement {
  const columns = Object.keys(changes);
  const conditions = Object.keys(where);
  return {
    key: [UPDATE, table, columns.length, ...columns, ...conditions],
    build: (creator, p) =>
      whereEquals(
        creator
          .updateTable(table)
          .set(Object.fromEntries(columns.map((c, i) => [c, param(`${p}s${i}`)]))),
        conditions,
        p,
      ),
    values: (p) => named(`${p}w`, conditions, where, named(`${p}s`, columns, changes)),
  };
}

/** Keys one DELETE lists at most; more are deleted in several statements. */
const DELETE_KEYS = 1024;

/** A DELETE's keys: `<column> in (values)`. */
export interface DeleteKeys {
  readonly column: string;
  readonly values: readonly unknown[];
}

/** `delete from <table> where <column> = <value> and ...`, and, with `keys`, `<column> in (keys)`. */
export function deleteStatements(
  table: string,
  where: Values,
  keys?: DeleteKeys,
): WriteStatement[] {
  if (keys && keys.values.length > DELETE_KEYS) {
    const statements: WriteStatement[] = [];
    for (let start = 0; start < keys.values.length; start += DELETE_KEYS)
      statements.push(
        ...deleteStatements(table, where, {
          column: keys.column,
          values: keys.values.slice(start, start + DELETE_KEYS),
        }),
      );
    return statements;
  }
  const conditions = Object.keys(where);
  return [
    {
      key: [
        DELETE,
        table,
        keys?.column ?? null,
        keys ? listLength(keys.values.length) : null,
        ...conditions,
      ],
      build: (creator, p) => {
        const query = whereEquals(creator.deleteFrom(table), conditions, p);
        return keys
          ? query.where(keys.column, 'in', paramList(`${p}k`, keys.values.length))
          : query;
      },
      values: (p) =>
        named(`${p}w`, conditions, where, keys ? paramListValues(`${p}k`, keys.values) : {}),
    },
  ];
}

/** One write of a record's aggregate (its master row or a relation's detail rows). */
export type Write =
  | { readonly insert: string; readonly rows: readonly Values[] }
  | { readonly update: string; readonly set: Values; readonly where: Values }
  | { readonly delete: string; readonly where: Values; readonly keys?: DeleteKeys };

function statementsOf(write: Write): WriteStatement[] {
  if ('insert' in write) return insertStatements(write.insert, write.rows);
  if ('update' in write) return [updateStatement(write.update, write.set, write.where)];
  return deleteStatements(write.delete, write.where, write.keys);
}

/** Runs `writes` on `db`, in order, a statement each (DialectAdapter.runWrites may do better). */
export async function runWrites(db: Db, writes: readonly Write[]): Promise<void> {
  for (const statement of writes.flatMap(statementsOf)) await runWriteStatement(db, statement);
}

/** Runs one write statement on its own. */
export function runWriteStatement(db: Db, statement: WriteStatement): Promise<unknown[]> {
  return runStatement(
    db,
    statement.key as StatementKey,
    () => statement.build(db, ''),
    statement.values(''),
  );
}
