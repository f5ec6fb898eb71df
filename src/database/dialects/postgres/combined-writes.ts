// PostgreSQL: a record's writes (its master row; its detail rows' deletes, updates and inserts)
// as one statement, one round trip instead of one each, which is most of a write's time here.
// Each write is a data-modifying WITH, and the final SELECT counts each one's rows in turn: a
// data-modifying WITH runs when it is first read, so they run in order, and a row one deletes
// is gone for the uniqueness checks of the next (they see their own transaction's deletes).
// Many rows travel as one JSON parameter read by json_populate_recordset(null::<table>, ...),
// which types them by the table's own columns (PostgREST writes the same way): a statement's
// shape is its table and columns whatever the number of rows, so the compiled shapes stay a
// fixed set (issue 19) however the writes combine.
import { createRequire } from 'node:module';
import { sql } from 'kysely';
import type { Db } from '../../db.js';
import { param, runStatement, type StatementKey, statementSite } from '../../statement-runner.js';
import {
  type Creator,
  type DeleteKeys,
  deleteStatements,
  named,
  runWriteStatement,
  updateStatement,
  type Write,
  type WriteStatement,
  whereEquals,
} from '../../write-statements.js';

/**
 * The text node-postgres sends for a bound value: the JSON rows carry exactly what a parameter
 * would (a Date in the process's time zone, a Buffer as bytea hex), read by the same input functions.
 */
const prepareValue: (value: unknown) => unknown = createRequire(import.meta.url)(
  'pg/lib/utils.js',
).prepareValue;

const COMBINED = statementSite('combined writes');
const INSERT_SET = statementSite('insert json rows');
const UPDATE_SET = statementSite('update json rows');
const DELETE_SET = statementSite('delete json keys');

/** Writes one statement holds at most. */
const COMBINED_WRITES = 16;

type Values = Readonly<Record<string, unknown>>;

/** `rows`' values of `columns` as a JSON array of objects, each value as it would be bound. */
function jsonRows(columns: readonly string[], rows: readonly Values[]): string {
  return JSON.stringify(
    rows.map((row) => Object.fromEntries(columns.map((c) => [c, prepareValue(row[c] ?? null)]))),
  );
}

/** `json_populate_recordset(null::<table>, <placeholder>::json) as x`, rows typed as `table`'s. */
function rowsOf(table: string, placeholder: string) {
  return sql`json_populate_recordset(null::${sql.table(table)}, ${param(placeholder)}::json)`.as(
    'x',
  );
}

/** `insert into <table> (<columns>) select <columns> from <json rows>`: any number of rows. */
function insertSet(table: string, rows: readonly Values[]): WriteStatement {
  const columns = Object.keys(rows[0] ?? {});
  return {
    key: [INSERT_SET, table, ...columns],
    build: (creator, p) =>
      creator
        .insertInto(table)
        .columns(columns)
        .expression(
          creator.selectFrom(rowsOf(table, `${p}rows`)).select(columns.map((c) => `x.${c}`)),
        ),
    values: (p) => ({ [`${p}rows`]: jsonRows(columns, rows) }),
  };
}

/** Updates of `table`'s rows that set the same columns by the same key columns, as one. */
function updateSet(
  table: string,
  updates: ReadonlyArray<{ readonly set: Values; readonly where: Values }>,
): WriteStatement {
  const first = updates[0];
  const columns = Object.keys(first?.set ?? {});
  const keys = Object.keys(first?.where ?? {});
  return {
    key: [UPDATE_SET, table, columns.length, ...columns, ...keys],
    build: (creator, p) =>
      keys.reduce(
        (query, k) => query.whereRef(`${table}.${k}`, '=', `x.${k}`),
        creator
          .updateTable(table)
          .set(Object.fromEntries(columns.map((c) => [c, sql.ref(`x.${c}`)])))
          .from(rowsOf(table, `${p}rows`)),
      ),
    values: (p) => ({
      [`${p}rows`]: jsonRows(
        [...columns, ...keys],
        updates.map((u) => ({ ...u.set, ...u.where })),
      ),
    }),
  };
}

/** `delete from <table> where <where> and <column> in (<json keys>)`: any number of keys. */
function deleteSet(table: string, where: Values, keys: DeleteKeys): WriteStatement {
  const conditions = Object.keys(where);
  const { column } = keys;
  return {
    key: [DELETE_SET, table, column, ...conditions],
    build: (creator, p) =>
      whereEquals(creator.deleteFrom(table), conditions, p).where(
        column,
        'in',
        creator.selectFrom(rowsOf(table, `${p}keys`)).select(`x.${column}`),
      ),
    values: (p) =>
      named(`${p}w`, conditions, where, {
        [`${p}keys`]: jsonRows(
          [column],
          keys.values.map((value) => ({ [column]: value })),
        ),
      }),
  };
}

/** Two updates that one updateSet can carry: the same table, columns set and key columns. */
function sameUpdate(a: Write, b: Write): boolean {
  if (!('update' in a) || !('update' in b) || a.update !== b.update) return false;
  const same = (x: Values, y: Values) => {
    const xs = Object.keys(x);
    const ys = Object.keys(y);
    return xs.length === ys.length && xs.every((k, i) => k === ys[i]);
  };
  return same(a.set, b.set) && same(a.where, b.where);
}

/** `writes` as statements of fixed shapes: a set form for many rows, the plain one for one. */
function statementsOf(writes: readonly Write[]): WriteStatement[] {
  const statements: WriteStatement[] = [];
  for (let i = 0; i < writes.length; ) {
    const write = writes[i] as Write;
    if ('insert' in write) {
      if (write.rows.length > 0) statements.push(insertSet(write.insert, write.rows));
      i += 1;
    } else if ('update' in write) {
      let end = i + 1;
      while (end < writes.length && sameUpdate(write, writes[end] as Write)) end += 1;
      const updates = writes.slice(i, end) as Array<Extract<Write, { update: string }>>;
      statements.push(
        updates.length === 1
          ? updateStatement(write.update, write.set, write.where)
          : updateSet(write.update, updates),
      );
      i = end;
    } else {
      statements.push(
        ...(write.keys
          ? [deleteSet(write.delete, write.where, write.keys)]
          : deleteStatements(write.delete, write.where)),
      );
      i += 1;
    }
  }
  return statements;
}

/** Runs `writes` on `db`, in order, in as few statements as their number allows (one, mostly). */
export async function runWritesCombined(db: Db, writes: readonly Write[]): Promise<void> {
  const statements = statementsOf(writes);
  for (let start = 0; start < statements.length; start += COMBINED_WRITES) {
    const group = statements.slice(start, start + COMBINED_WRITES);
    if (group.length === 1 && group[0]) await runWriteStatement(db, group[0]);
    else await runCombined(db, group);
  }
}

/** `with w0 as (<write> returning 1), w1 as (...) select (select count(*) from w0), ...` */
function runCombined(db: Db, group: readonly WriteStatement[]): Promise<unknown[]> {
  // Each statement's key after its length: the parts of two keys never run into each other.
  const key: StatementKey = [COMBINED, ...group.flatMap((s) => [s.key.length, ...s.key])];
  const values: Record<string, unknown> = {};
  group.forEach((statement, i) => {
    Object.assign(values, statement.values(`o${i}_`));
  });
  return runStatement(
    db,
    key,
    () => {
      let creator: Creator = db;
      group.forEach((statement, i) => {
        // The builders' union is not one the WITH's types take: each is an INSERT, UPDATE or DELETE.
        creator = creator.with(
          `w${i}`,
          (c) => statement.build(c, `o${i}_`).returning(sql<number>`1`.as('one')) as never,
        );
      });
      return creator.selectNoFrom((eb) =>
        group.map((_, i) => eb.selectFrom(`w${i}`).select(eb.fn.countAll().as('n')).as(`c${i}`)),
      );
    },
    values,
  );
}
