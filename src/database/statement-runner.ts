// The statement runner: every statement svc runs goes through runStatement. A query of a given
// shape is built once with named placeholders, compiled by Kysely, and its SQL kept (issue 7:
// query building once, not per request); later requests only fill in the parameter values, and
// the statement runs the way its database runs statements (directly, sliced, from an exact memo).
// Kysely's prepared-statement cache (see dialects/sqlite/connect.ts) then finds the same SQL text
// every time.
import { type Compilable, CompiledQuery, type RawBuilder, sql } from 'kysely';
import { type AnswerShare, rowsBytes } from '../support/answer-budget.js';
import type { Db } from './db.js';

const SENTINEL = '\u0000svc-param:';
/**
 * The cache is bounded by size, not only by entries (issue 19): the characters of SQL it holds
 * stand for a statement's cost (its text, its parameter slots and its compiled query node grow
 * together). Past either bound it starts again empty.
 */
const LIMIT = 2000;
const SQL_CHARACTERS_LIMIT = 4 * 1024 * 1024;

/**
 * When the engine may answer a query from the result of the same query earlier: exact, never a
 * time-based cache. `true`: while no commit at all has happened since (SQLite, PostgreSQL).
 * `{tables}`: while no commit may have changed one of `tables` (the engine adds what can change
 * them, such as a cascading delete); for a hot lookup over tables that the common writes do not
 * touch (SQLite only).
 */
export type MemoScope = true | { readonly tables: readonly string[] };

/** Rows kept by a StatementMemo, with the snapshot of the statement that read them. */
export interface KeptRows {
  readonly snapshot: string;
  readonly rows: readonly unknown[];
}

/**
 * The memo of an engine that checks it inside the statement itself (PostgreSQL:
 * dialects/postgres/snapshot-memo.ts): a memoised SELECT (MemoScope `true`) is still one
 * statement, and another statement may carry the check for it (a list's page, its total).
 */
export interface StatementMemo {
  /** The snapshot of the statement it is in, as text (equal texts: the same commits seen). */
  readonly snapshot: RawBuilder<string>;
  run(sql: string, parameters: readonly unknown[]): Promise<unknown[]>;
  /** What is kept for the statement `sql` with `parameters`. */
  kept(sql: string, parameters: readonly unknown[]): KeptRows | undefined;
  keep(sql: string, parameters: readonly unknown[], kept: KeptRows): void;
}

/**
 * Runs a SELECT that may be large in slices, serving the event loop between them, and charging
 * its rows to `share` as it reads them.
 */
export type SlicedReader = (
  sql: string,
  parameters: readonly unknown[],
  share?: AnswerShare,
) => Promise<unknown[]>;

/** A compiled statement with its values, as a runner gets it. */
export interface Statement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** A SELECT (not a write with RETURNING). */
  readonly select: boolean;
}

/**
 * How statements run on one database (or one transaction): decided once, when it is opened, by
 * its dialect (dialects/<engine>/statement-runner.ts) and set with useRunner. A Db without one
 * sends every statement through Kysely's executor (sendStatement).
 */
export interface StatementRunner {
  /** Runs `statement`; `memo` lets its rows come from an exact memo (MemoScope). */
  run(statement: Statement, memo: MemoScope | undefined): unknown[] | Promise<unknown[]>;
  /**
   * Reads a SELECT the caller marks `sliced` (a list page) in slices, each row charged to the
   * answer's share as it is read (SQLite steps its statement; PostgreSQL and MariaDB take rows
   * as they arrive and pause the socket). Without it, the read waits for admission and its
   * rows are charged once all are read.
   */
  readonly sliced?: SlicedReader;
  /** The memo that is checked inside the statement (PostgreSQL), if it applies now. */
  memo?(): StatementMemo | undefined;
}

const runners = new WeakMap<Db, StatementRunner>();

/** Sets how statements run on `db` (a database when it is opened, or a transaction's Db). */
export function useRunner(db: Db, runner: StatementRunner): void {
  runners.set(db, runner);
}

/** Runs `statement` through Kysely's executor: its connection pool, plugins and log. */
export async function sendStatement(db: Db, statement: Statement): Promise<unknown[]> {
  const result = await db.executeQuery(CompiledQuery.raw(statement.sql, [...statement.parameters]));
  return result.rows as unknown[];
}

/** The StatementMemo of `db`, if its engine has one and it applies now; none on a transaction. */
export function statementMemoOf(db: Db): StatementMemo | undefined {
  if (db.isTransaction) return undefined;
  return runners.get(db)?.memo?.();
}

/** A named placeholder for a value that changes from one execution to the next. */
export function param<T = unknown>(name: string): RawBuilder<T> {
  return sql<T>`${SENTINEL + name}`;
}

/**
 * The length a list of `count` values is compiled for: the next power of two, so lists of any
 * length share a dozen statement shapes instead of one each (issue 19). Part of statement keys.
 */
export function listLength(count: number): number {
  let length = 1;
  while (length < count) length *= 2;
  return length;
}

/** Placeholders `<prefix>0..` for a list of `count` values: listLength(count) of them. */
export function paramList(prefix: string, count: number): Array<RawBuilder<unknown>> {
  return Array.from({ length: listLength(count) }, (_, i) => param(`${prefix}${i}`));
}

/**
 * The values of `paramList(prefix, values.length)`: the list, its last value repeated up to the
 * compiled length (for `in` and `not in`, a repeated value changes nothing).
 */
export function paramListValues(
  prefix: string,
  values: readonly unknown[],
): Record<string, unknown> {
  const named: Record<string, unknown> = {};
  const length = listLength(values.length);
  for (let i = 0; i < length; i += 1) named[prefix + i] = values[Math.min(i, values.length - 1)];
  return named;
}

/**
 * One place in the code that builds a family of statements; the first part of every statement
 * key, so two call sites never share a compiled statement even when the rest of their keys agree.
 */
export interface StatementSite {
  readonly name: string;
}

export function statementSite(name: string): StatementSite {
  return Object.freeze({ name });
}

/**
 * A definition object the SQL is built from (a resource, relation, entity or layout: compared by
 * identity, so everything it declares is part of the key) or a true variable of the statement (a
 * list length, a scope id, a filter shape, a column name).
 */
export type KeyPart = object | string | number | boolean | null;

/** What a compiled statement is cached under: its site, then what its SQL is built from. */
export type StatementKey = readonly [StatementSite, ...KeyPart[]];

const objectIds = new WeakMap<object, number>();
let nextObjectId = 0;

/** The statement key as a map key: objects by identity, other parts by value (JSON keeps them apart). */
function encodeKey(key: StatementKey): string {
  let text = '';
  for (const part of key) {
    if (typeof part === 'object' && part !== null) {
      let id = objectIds.get(part);
      if (id === undefined) objectIds.set(part, (id = nextObjectId += 1));
      text += `#${id},`;
    } else {
      text += `${JSON.stringify(part)},`;
    }
  }
  return text;
}

interface Template {
  readonly sql: string;
  readonly select: boolean;
  /** Per compiled parameter: the placeholder's name, or the literal value the builder bound. */
  readonly slots: ReadonlyArray<{ readonly name: string } | { readonly value: unknown }>;
}

/** Per dialect adapter (the same shape compiles differently per dialect), by encoded statement key. */
const templates = new WeakMap<object, Map<string, Template>>();
/** Characters of SQL held, per dialect adapter's map. */
const heldCharacters = new WeakMap<Map<string, Template>, number>();

/** How many compiled statements the cache holds for `db`'s dialect (tests: the shapes stay bounded). */
export function compiledStatementCount(db: Db): number {
  return templates.get(db.getExecutor().adapter)?.size ?? 0;
}

function templateOf(db: Db, key: string, build: () => Compilable<unknown>): Template {
  const dialect = db.getExecutor().adapter;
  let shapes = templates.get(dialect);
  if (!shapes) templates.set(dialect, (shapes = new Map()));
  let template = shapes.get(key);
  if (!template) {
    const compiled = build().compile();
    template = {
      sql: compiled.sql,
      // Not the query tree itself: kept for every shape, it held far more heap than the SQL.
      select: compiled.query.kind === 'SelectQueryNode',
      slots: compiled.parameters.map((p) =>
        typeof p === 'string' && p.startsWith(SENTINEL)
          ? { name: p.slice(SENTINEL.length) }
          : { value: p },
      ),
    };
    const held = (heldCharacters.get(shapes) ?? 0) + template.sql.length;
    if (shapes.size >= LIMIT || held > SQL_CHARACTERS_LIMIT) {
      shapes.clear();
      heldCharacters.set(shapes, template.sql.length);
    } else heldCharacters.set(shapes, held);
    shapes.set(key, template);
  }
  return template;
}

function parametersOf(
  template: Template,
  key: StatementKey,
  values: Readonly<Record<string, unknown>>,
): unknown[] {
  return template.slots.map((slot) => {
    if (!('name' in slot)) return slot.value;
    if (!(slot.name in values))
      throw new Error(`Query "${key[0].name}" needs a value for "${slot.name}"`);
    return values[slot.name];
  });
}

/**
 * The statement runStatement would run for `key` and `values`, for a caller that sends it wrapped
 * (count=estimated's EXPLAIN of a list's select).
 */
export function compiledStatement<R>(
  db: Db,
  key: StatementKey,
  build: () => Compilable<R>,
  values: Readonly<Record<string, unknown>>,
): CompiledQuery<R> {
  const template = templateOf(db, encodeKey(key), build);
  return CompiledQuery.raw(template.sql, parametersOf(template, key, values)) as CompiledQuery<R>;
}

/** The answer's share of the memory budget a read's rows are charged to (runStatement). */
export interface Charged {
  readonly share?: AnswerShare;
}

export interface RunOptions extends Charged {
  readonly reuse?: MemoScope;
  readonly sliced?: boolean;
}

/**
 * Runs the query of `key` (built by `build` the first time, with `param(name)` for every varying
 * value) with `values` for its placeholders. Every placeholder must have a value. The key holds
 * what `build` reads: the definition objects themselves and the variables, never a description
 * of them, so it cannot drift from the SQL.
 * `reuse` lets the result of the same query be answered again while the database still holds
 * what it was computed from (a list's total; the token check), from an exact memo: MemoScope.
 * `sliced`: the result may be large (a list page), see StatementRunner.sliced. `share`: the answer's
 * share of the memory budget (support/answer-budget.ts) that its rows are charged to: row by row
 * by a sliced reader; else (a database without one) the read waits for admission while the
 * budget is spent, and the rows are charged once the driver has them all.
 */
export async function runStatement<R>(
  db: Db,
  key: StatementKey,
  build: () => Compilable<R>,
  values: Readonly<Record<string, unknown>>,
  options: RunOptions = {},
): Promise<R[]> {
  const template = templateOf(db, encodeKey(key), build);
  const statement: Statement = {
    sql: template.sql,
    parameters: parametersOf(template, key, values),
    select: template.select,
  };
  const runner = runners.get(db);
  const sliced = options.sliced && template.select && runner?.sliced;
  if (sliced) return (await sliced(statement.sql, statement.parameters, options.share)) as R[];
  const run = () =>
    (runner ? runner.run(statement, options.reuse) : sendStatement(db, statement)) as
      | R[]
      | Promise<R[]>;
  const { share } = options;
  if (!share) return run();
  const admitted = share.admission();
  if (admitted) await admitted;
  const rows = await run();
  const granted = share.charge(rowsBytes(rows));
  if (granted) await granted;
  return rows;
}
