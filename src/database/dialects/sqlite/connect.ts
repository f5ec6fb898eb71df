// Opens an embedded SQLite file with the pragmas svc relies on (README "SQLite durability").
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database, Db } from '../../database.js';
import { sqliteAdapter } from './adapter.js';

export interface SqliteOptions {
  readonly synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
  readonly cacheSizeKib: number;
}

const STATEMENT_CACHE_LIMIT = 1000;

export function connectSqlite(file: string, options: SqliteOptions): Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
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

  // Kysely prepares every query it runs; keeping the prepared statements by SQL text turns
  // that into a map lookup. The same SQL text always has the same shape, so reuse is safe.
  const statements = new Map<string, BetterSqlite3.Statement>();
  let executed = 0;
  const cached = {
    close: () => raw.close(),
    prepare(sqlText: string) {
      executed += 1; // Kysely prepares once per execution, so this counts statements run
      let statement = statements.get(sqlText);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_LIMIT) statements.clear();
        statement = raw.prepare(sqlText);
        statements.set(sqlText, statement);
      }
      return statement;
    },
  };

  const db: Db = new Kysely({ dialect: new SqliteDialect({ database: cached }) });
  return {
    db,
    adapter: sqliteAdapter,
    statementCount: () => executed,
    transaction: (work) => db.transaction().execute(work),
    close: () => db.destroy(),
  };
}
