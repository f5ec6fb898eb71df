// What the driver suites expect that differs by engine (docs/rest-driver.md "Signed-request driver", "How the
// limits hold"): placeholders, the catalog's names for declared types, what "the schema" is, and
// statements only one engine has.
import { sql } from 'kysely';
import type { Db } from '../../src/database/db.js';
import { testEngine } from './engines.js';

/** The n-th positional placeholder (from 1): `?` on SQLite and MariaDB/MySQL, `$n` on PostgreSQL. */
export const param = (n: number): string => (testEngine === 'postgres' ? `$${n}` : '?');

interface DeclaredTypes {
  /** The generated integer key of the service's tables. */
  readonly id: string;
  varchar(length: number): string;
  /** The service's timestamp columns. */
  readonly timestamp: string;
}

/** Declared types as each engine's catalog writes them (MariaDB's, for the mysql pass). */
export const declared: DeclaredTypes = {
  sqlite: { id: 'INTEGER', varchar: (n: number) => `varchar(${n})`, timestamp: 'TEXT' },
  postgres: {
    id: 'bigint',
    varchar: (n: number) => `character varying(${n})`,
    timestamp: 'timestamp(3) with time zone',
  },
  mysql: { id: 'bigint(20)', varchar: (n: number) => `varchar(${n})`, timestamp: 'datetime(3)' },
}[testEngine];

/** Every table, view, index and column of the database (and SQLite's header version): what a write could change. */
export async function schemaSnapshot(db: Db): Promise<unknown[]> {
  const rows = async (query: ReturnType<typeof sql>) => (await query.execute(db)).rows;
  if (testEngine === 'postgres') {
    return rows(sql`select c.relname, c.relkind, a.attname, format_type(a.atttypid, a.atttypmod) as type
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where n.nspname = current_schema() order by c.relname, a.attnum`);
  }
  if (testEngine === 'mysql') {
    return [
      ...(await rows(
        sql`select TABLE_NAME, TABLE_TYPE from information_schema.TABLES where TABLE_SCHEMA = database() order by TABLE_NAME`,
      )),
      ...(await rows(
        sql`select TABLE_NAME, COLUMN_NAME, COLUMN_TYPE from information_schema.COLUMNS where TABLE_SCHEMA = database() order by TABLE_NAME, ORDINAL_POSITION`,
      )),
      ...(await rows(
        sql`select TABLE_NAME, INDEX_NAME, COLUMN_NAME from information_schema.STATISTICS where TABLE_SCHEMA = database() order by TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`,
      )),
    ];
  }
  return [
    ...(await rows(sql`select type, name, sql from sqlite_schema order by name`)),
    ...(await rows(sql`pragma user_version`)),
  ];
}

/** A SELECT that runs for seconds before its first row. */
export const SLOW_SELECT = {
  // A row every few million steps: far slower than the tests' time limits.
  sqlite:
    'with recursive c(x) as (select 1 union all select x + 1 from c) select x from c where x % 5000000 = 0',
  postgres: 'select pg_sleep(5) as slept',
  mysql: 'select sleep(5) as slept',
}[testEngine];
