// DATABASE_URL -> an open Database. Only this file chooses among the dialect folders.
import { MysqlAdapter, PostgresAdapter } from 'kysely';
import type { Database } from './database.js';
import type { Db } from './db.js';
import type { DialectAdapter } from './dialects/dialect-adapter.js';
import { mysqlAdapter } from './dialects/mysql/adapter.js';
import { connectMysql } from './dialects/mysql/connect.js';
import { mysqlRawSql } from './dialects/mysql/raw-sql.js';
import type { PoolOptions } from './dialects/pool-options.js';
import { postgresAdapter } from './dialects/postgres/adapter.js';
import { connectPostgres, type ReplicaOptions } from './dialects/postgres/connect.js';
import { postgresRawSql } from './dialects/postgres/raw-sql.js';
import { sqliteAdapter } from './dialects/sqlite/adapter.js';
import { connectSqlite } from './dialects/sqlite/connect.js';
import type { SqliteOptions } from './dialects/sqlite/options.js';
import { sqliteRawSql } from './dialects/sqlite/raw-sql.js';
import type { RawSql, RawSqlLimits } from './raw-sql.js';

export interface ConnectOptions {
  readonly sqlite: SqliteOptions;
  readonly pool: PoolOptions;
  /** Read replicas of a PostgreSQL `url` (DATABASE_URL's only: DATABASE_READ_URL). */
  readonly replicas?: ReplicaOptions;
}

const SCHEMES = 'sqlite:<file>, postgres://user@host/db or mysql://user@host/db';

function unsupported(url: string): Error {
  const scheme = url.split(':')[0];
  return new Error(`Database URL scheme "${scheme}:" is not supported; use ${SCHEMES}`);
}

export function connectDatabase(url: string, options: ConnectOptions): Database {
  if (url.startsWith('sqlite:'))
    return connectSqlite(url.slice('sqlite:'.length) || ':memory:', options.sqlite);
  if (/^postgres(ql)?:\/\//.test(url)) return connectPostgres(url, options.pool, options.replicas);
  if (/^(mysql|mariadb):\/\//.test(url))
    return connectMysql(url.replace(/^mariadb:/, 'mysql:'), options.pool);
  throw unsupported(url);
}

/** Operator SQL on the database at `url` (the signed-request driver), on connections of its own. */
export function openRawSql(url: string, limits: RawSqlLimits): RawSql {
  if (url.startsWith('sqlite:'))
    return sqliteRawSql(url.slice('sqlite:'.length) || ':memory:', limits);
  if (/^postgres(ql)?:\/\//.test(url)) return postgresRawSql(url, limits);
  if (/^(mysql|mariadb):\/\//.test(url))
    return mysqlRawSql(url.replace(/^mariadb:/, 'mysql:'), limits);
  throw unsupported(url);
}

/** The adapter of the engine behind a bare Kysely instance (migrations and tests get only that). */
export function adapterOf(db: Db): DialectAdapter {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof PostgresAdapter) return postgresAdapter;
  if (adapter instanceof MysqlAdapter) return mysqlAdapter;
  return sqliteAdapter;
}
