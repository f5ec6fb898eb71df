// DATABASE_URL -> an open Database. Only this file chooses among the dialect folders.
import type { Database } from './database.js';
import { connectSqlite, type SqliteOptions } from './dialects/sqlite/connect.js';

export interface ConnectOptions {
  readonly sqlite: SqliteOptions;
}

export function connectDatabase(url: string, options: ConnectOptions): Database {
  if (url.startsWith('sqlite:')) return connectSqlite(url.slice('sqlite:'.length) || ':memory:', options.sqlite);
  const scheme = url.split(':')[0];
  throw new Error(`DATABASE_URL scheme "${scheme}:" is not supported yet; use sqlite:<file>`);
}
