// Opens an embedded SQLite file with the pragmas svc relies on (README "SQLite durability").
// Two connections: Kysely's, for writes, transactions and migrations, and a read-only one that
// answers the cached reads of database/query-cache directly. WAL lets it read while a write
// transaction is open on the other, and it only ever sees committed data.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database, Db } from '../../database.js';
import { registerDirectReader, registerDirectTransaction, type DirectExecutor } from '../../query-cache.js';
import { compileObjectLiteral } from '../../../model/object-literal.js';
import { sqliteAdapter } from './adapter.js';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';

export interface SqliteOptions {
  readonly synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
  readonly cacheSizeKib: number;
  /** WAL checkpoints in a thread of their own instead of in the committing connection. */
  readonly backgroundCheckpoint: boolean;
}

const STATEMENT_CACHE_LIMIT = 1000;

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
  raw.function('svc_casefold', { deterministic: true }, (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value));
  return raw;
}

/** Prepared statements kept by SQL text: the same text always has the same shape. */
function statementCache(raw: BetterSqlite3.Database, counted: () => void): (sqlText: string) => BetterSqlite3.Statement {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return (sqlText) => {
    counted();
    let statement = statements.get(sqlText);
    if (!statement) {
      if (statements.size >= STATEMENT_CACHE_LIMIT) statements.clear();
      statement = raw.prepare(sqlText);
      statements.set(sqlText, statement);
    }
    return statement;
  };
}

/** Per statement: its raw arrays -> row objects (a generated object literal). */
const rowBuilders = new WeakMap<BetterSqlite3.Statement, (values: unknown[]) => Record<string, unknown>>();

/**
 * Rows as objects built in JavaScript from better-sqlite3's raw arrays: faster than its own
 * objects on the many-row eager loads of a list page.
 */
function rowsOf(statement: BetterSqlite3.Statement, parameters: readonly unknown[]): Array<Record<string, unknown>> {
  let build = rowBuilders.get(statement);
  if (!build) {
    statement.raw(true);
    build = compileObjectLiteral<unknown[], Record<string, unknown>>(statement.columns().map((c) => c.name), (i) => `source[${i}]`);
    rowBuilders.set(statement, build);
  }
  const arrays = statement.all(parameters as unknown[]) as unknown[][];
  const rows = new Array<Record<string, unknown>>(arrays.length);
  for (let r = 0; r < arrays.length; r += 1) rows[r] = build(arrays[r] as unknown[]);
  return rows;
}

const MEMO_LIMIT = 500;

/**
 * Results kept while the database is unchanged: PRAGMA data_version, read on this connection,
 * moves whenever any other connection (ours or another process's) commits, so an answer from
 * the memo is exactly what the query would return now. Used for list totals, whose count(*) is
 * the costly part of a filtered list on a large table.
 */
function resultMemo(reader: BetterSqlite3.Database, counted: () => void) {
  const version = reader.prepare('PRAGMA data_version').pluck();
  const results = new Map<string, Array<Record<string, unknown>>>();
  let seen: unknown = null;
  return (sqlText: string, parameters: readonly unknown[], run: () => Array<Record<string, unknown>>) => {
    const now = version.get();
    if (now !== seen) {
      results.clear();
      seen = now;
    }
    const key = `${sqlText}\u0000${JSON.stringify(parameters)}`;
    let rows = results.get(key);
    // A hit still ran one statement (the version check), so statement counts stay fixed.
    if (rows) counted();
    else {
      if (results.size >= MEMO_LIMIT) results.clear();
      rows = run();
      results.set(key, rows);
    }
    return rows;
  };
}

export function connectSqlite(file: string, options: SqliteOptions): Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const raw = open(file, options);
  let executed = 0;
  const count = () => {
    executed += 1;
  };
  // Kysely prepares once per execution, so the cache also counts the statements run.
  const prepare = statementCache(raw, count);
  const db: Db = new Kysely({ dialect: new SqliteDialect({ database: { close: () => raw.close(), prepare } }) });

  // An in-memory database is private to its connection: it gets no reader.
  const reader = file === ':memory:' ? null : open(file, options);
  if (reader) {
    reader.pragma('query_only = ON');
    const prepareRead = statementCache(reader, count);
    const memo = resultMemo(reader, count);
    registerDirectReader(db, (sqlText, parameters, memoize) =>
      memoize ? memo(sqlText, parameters, () => rowsOf(prepareRead(sqlText), parameters)) : rowsOf(prepareRead(sqlText), parameters),
    );
  }
  // A write transaction holds Kysely's only connection (its mutex) from begin to commit, and
  // runs the cached statements on it directly: no executor layers, no await per statement. Its
  // own statement objects, since rowsOf switches them to raw arrays, which Kysely would not expect.
  const prepareDirect = statementCache(raw, count);
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
    // IMMEDIATE takes the write lock at begin: a transaction that reads and then writes cannot
    // fail with SQLITE_BUSY_SNAPSHOT when another process committed in between.
    transaction: (work) =>
      db.connection().execute(async (connection) => {
        if (checkpointInBackground) checkpointer ??= startCheckpointer(raw, file, options);
        registerDirectTransaction(connection, execute);
        execute('begin immediate', [], false);
        try {
          const result = await work(connection);
          execute('commit', [], false);
          return result;
        } catch (error) {
          if (raw.inTransaction) execute('rollback', [], false);
          throw error;
        }
      }),
    async close() {
      await checkpointer?.stop();
      await db.destroy();
      reader?.close();
    },
  };
}
