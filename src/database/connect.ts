// DATABASE_URL -> an open Database. Only this file chooses among the dialect folders.
import type { Database } from './database.js';
import { connectSqlite, type SqliteOptions } from './dialects/sqlite/connect.js';
import { sqliteRawSql } from './dialects/sqlite/raw-sql.js';
import type { RawSql, RawSqlLimits } from './raw-sql.js';

export interface ConnectOptions {
  readonly sqlite: SqliteOptions;
}

function unsupported(url: string): Error {
  const scheme = url.split(':')[0];
  return new Error(`DATABASE_URL scheme "${scheme}:" is not supported yet; use sqlite:<file>`);
}

export function connectDatabase(url: string, options: ConnectOptions): Database {
  if (url.startsWith('sqlite:')) return connectSqlite(url.slice('sqlite:'.length) || ':memory:', options.sqlite);
  throw unsupported(url);
}

/** Operator SQL on the database at `url` (the signed-request driver), on connections of its own. */
export function openRawSql(url: string, limits: RawSqlLimits): RawSql {
  if (url.startsWith('sqlite:')) return sqliteRawSql(url.slice('sqlite:'.length) || ':memory:', limits);
  throw unsupported(url);
}
