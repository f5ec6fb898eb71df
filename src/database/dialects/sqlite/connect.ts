// Opens an embedded SQLite file with the pragmas svc relies on (docs/database-engines.md "SQLite durability").
// Two connections: Kysely's, for writes, transactions and migrations, and a read-only one that
// answers the cached reads of database/statement-runner directly. WAL lets it read while a write
// transaction is open on the other, and it only ever sees committed data.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { compileObjectLiteral } from '../../../support/object-literal.js';
import type { Database } from '../../database.js';
import type { Db } from '../../db.js';
import { useRunner } from '../../statement-runner.js';
import { sqliteAdapter } from './adapter.js';
import { type Checkpointer, startCheckpointer } from './checkpointer.js';
import type { SqliteOptions } from './options.js';
import { resultMemo, WriteLog, writtenTables } from './result-memo.js';
import { slicedReader } from './sliced-reader.js';
import { type DirectExecutor, sqliteRunner, transactionRunner } from './statement-runner.js';

/**
 * Prepared statements held at most, over all the connections of one database (issue 19). A
 * statement's native memory grows with its SQL: about 13 bytes per character for the list
 * statements (28 KiB for a 2.2 KB list text), so the characters held are its cost. The bound is
 * shared: every read connection keeps statements of its own, and a per-connection bound let the
 * total grow with the connections opened (16 sliced readers, 4 Mi characters each: RSS rose for
 * the whole of a soak). 2 Mi characters is about 26 MiB of statements.
 */
export const STATEMENT_BUDGET_ENTRIES = 2000;
export const STATEMENT_BUDGET_CHARACTERS = 2 * 1024 * 1024;

interface CachedStatement {
  readonly sqlText: string;
  readonly statement: BetterSqlite3.Statement;
  readonly writes: readonly string[] | null;
  readonly cache: Map<string, CachedStatement>;
}

/**
 * The prepared statements of one database's connections, least recently used first: past the
 * budget the oldest go, whichever connection they belong to (better-sqlite3 finalizes a
 * statement once nothing refers to it).
 */
class StatementBudget {
  private readonly order = new Set<CachedStatement>();
  private characters = 0;

  used(entry: CachedStatement): void {
    this.order.delete(entry);
    this.order.add(entry);
  }

  add(entry: CachedStatement): void {
    this.order.add(entry);
    entry.cache.set(entry.sqlText, entry);
    this.characters += entry.sqlText.length;
    while (
      this.order.size > STATEMENT_BUDGET_ENTRIES ||
      (this.characters > STATEMENT_BUDGET_CHARACTERS && this.order.size > 1)
    ) {
      const oldest = this.order.values().next().value as CachedStatement;
      this.order.delete(oldest);
      oldest.cache.delete(oldest.sqlText);
      this.characters -= oldest.sqlText.length;
    }
  }

  get size(): { readonly statements: number; readonly characters: number } {
    return { statements: this.order.size, characters: this.characters };
  }
}

function open(file: string, options: SqliteOptions): BetterSqlite3.Database {
  const raw = new BetterSqlite3(file);
  raw.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: a commit survives a crash of the process; only an OS crash or power
  // loss can roll back the last commits. FULL also fsyncs every commit.
  raw.pragma(`synchronous = ${options.synchronous}`);
  raw.pragma(`cache_size = -${options.cacheSizeKib}`);
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  raw.defaultSafeIntegers(false);
  raw.function('svc_casefold', { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
  return raw;
}

/**
 * Prepared statements kept by SQL text: the same text always has the same shape. On the write
 * connection, `log` hears the tables each execution may write (result-memo.ts). All of a
 * database's caches share `budget`.
 */
function statementCache(
  raw: BetterSqlite3.Database,
  budget: StatementBudget,
  counted: () => void,
  log?: WriteLog,
): (sqlText: string) => BetterSqlite3.Statement {
  const statements = new Map<string, CachedStatement>();
  return (sqlText) => {
    counted();
    let entry = statements.get(sqlText);
    if (entry) budget.used(entry);
    else {
      const statement = raw.prepare(sqlText);
      entry = { sqlText, statement, writes: writtenTables(statement), cache: statements };
      budget.add(entry);
    }
    // Kysely and the direct executor both run a statement right after preparing it.
    if (log && (entry.writes === null || entry.writes.length > 0)) log.noteWrite(entry.writes);
    return entry.statement;
  };
}

/** Per statement: its raw arrays -> row objects (a generated object literal). */
const rowBuilders = new WeakMap<
  BetterSqlite3.Statement,
  (values: unknown[]) => Record<string, unknown>
>();

/** Switches `statement` to raw arrays and gives the function that makes its rows objects. */
function rowBuilder(
  statement: BetterSqlite3.Statement,
): (values: unknown[]) => Record<string, unknown> {
  let build = rowBuilders.get(statement);
  if (!build) {
    statement.raw(true);
    build = compileObjectLiteral<unknown[], Record<string, unknown>>(
      statement.columns().map((c) => c.name),
      (i) => `source[${i}]`,
    );
    rowBuilders.set(statement, build);
  }
  return build;
}

/**
 * Rows as objects built in JavaScript from better-sqlite3's raw arrays: faster than its own
 * objects on the many-row eager loads of a list page.
 */
function rowsOf(
  statement: BetterSqlite3.Statement,
  parameters: readonly unknown[],
): Array<Record<string, unknown>> {
  const build = rowBuilder(statement);
  const arrays = statement.all(parameters as unknown[]) as unknown[][];
  const rows = new Array<Record<string, unknown>>(arrays.length);
  for (let r = 0; r < arrays.length; r += 1) rows[r] = build(arrays[r] as unknown[]);
  return rows;
}

/**
 * The database's directory and file, created private when svc creates them: the directory 0700
 * (one that exists keeps the mode the operator gave it), the file 0600 before SQLite opens it,
 * which gives its -wal and -shm files the same mode.
 */
function createPrivate(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

export function connectSqlite(file: string, options: SqliteOptions): Database {
  if (file !== ':memory:') createPrivate(file);
  const raw = open(file, options);
  let executed = 0;
  const count = () => {
    executed += 1;
  };
  // Kysely prepares once per execution, so the cache also counts the statements run.
  const writes = new WriteLog(raw);
  const budget = new StatementBudget();
  const prepare = statementCache(raw, budget, count, writes);
  const db: Db = new Kysely({
    dialect: new SqliteDialect({ database: { close: () => raw.close(), prepare } }),
  });

  // An in-memory database is private to its connection: it gets no reader.
  const reader = file === ':memory:' ? null : open(file, options);
  const sliced = reader
    ? slicedReader({
        open(fullCache) {
          const raw = open(file, options);
          raw.pragma('query_only = ON');
          // Used only while reads overlap: a small cache, the OS keeps the file's pages.
          if (!fullCache) raw.pragma(`cache_size = -${Math.min(options.cacheSizeKib, 2048)}`);
          return raw;
        },
        statements: (raw) => statementCache(raw, budget, count),
        rowBuilder,
      })
    : null;
  if (reader && sliced) {
    reader.pragma('query_only = ON');
    const prepareRead = statementCache(reader, budget, count);
    const memo = resultMemo(reader, raw, writes, count);
    const read: DirectExecutor = (sqlText, parameters, scope) =>
      scope
        ? memo(sqlText, parameters, scope, () => rowsOf(prepareRead(sqlText), parameters))
        : rowsOf(prepareRead(sqlText), parameters);
    useRunner(db, sqliteRunner(db, read, sliced.read));
  }
  // A write transaction holds Kysely's only connection (its mutex) from begin to commit, and
  // runs its statements on it directly (transactionRunner). Its own statement objects, since rowsOf switches them to raw arrays, which Kysely would not expect.
  const prepareDirect = statementCache(raw, budget, count, writes);
  const execute: DirectExecutor = (sqlText, parameters) => {
    const statement = prepareDirect(sqlText);
    if (statement.reader) return rowsOf(statement, parameters);
    statement.run(parameters as unknown[]);
    return [];
  };
  // Started by the first write transaction: a command that only reads does not need the thread.
  let checkpointer: Checkpointer | null = null;
  const checkpointInBackground = options.backgroundCheckpoint && reader !== null;
  return {
    db,
    adapter: sqliteAdapter,
    statementCount: () => executed,
    preparedStatements: () => budget.size,
    // IMMEDIATE takes the write lock at begin: a transaction that reads and then writes cannot
    // fail with SQLITE_BUSY_SNAPSHOT when another process committed in between.
    transaction: (work) =>
      db.connection().execute(async (connection) => {
        if (checkpointInBackground) checkpointer ??= startCheckpointer(raw, file, options);
        useRunner(connection, transactionRunner(execute));
        execute('begin immediate', [], undefined);
        try {
          const result = await work(connection);
          execute('commit', [], undefined);
          return result;
        } catch (error) {
          if (raw.inTransaction) execute('rollback', [], undefined);
          throw error;
        }
      }),
    async close() {
      await checkpointer?.stop();
      await db.destroy();
      reader?.close();
      sliced?.close();
    },
  };
}
