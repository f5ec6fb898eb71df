// The engine the suites run on: SQLite by default, PostgreSQL or MariaDB/MySQL when test/run.mjs
// sets SVC_TEST_ENGINE (it does when TEST_POSTGRES_URL / TEST_MYSQL_URL are set). Every test
// server gets a database of its own, made here and dropped when the server closes.
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';

export type TestEngine = 'sqlite' | 'postgres' | 'mysql';

export const testEngine: TestEngine =
  (process.env.SVC_TEST_ENGINE as TestEngine | undefined) ?? 'sqlite';

/**
 * A suite's `skip` for what does not depend on the engine (or is SQLite's own): false in the
 * SQLite pass of test/run.mjs, `why` with the engine in the others, so it runs exactly once.
 */
export function sqlitePassOnly(why: string): string | false {
  return testEngine === 'sqlite' ? false : `${why} (this run is ${testEngine})`;
}

export interface TestDatabase {
  /** DATABASE_URL for the server; undefined means the default SQLite file in DATA_DIR. */
  readonly url: string | undefined;
  drop(): Promise<void>;
}

function serverUrl(engine: 'postgres' | 'mysql'): string {
  const url = engine === 'postgres' ? process.env.TEST_POSTGRES_URL : process.env.TEST_MYSQL_URL;
  if (!url)
    throw new Error(
      `SVC_TEST_ENGINE=${engine} needs ${engine === 'postgres' ? 'TEST_POSTGRES_URL' : 'TEST_MYSQL_URL'}`,
    );
  return url;
}

/**
 * The pass of test/run.mjs through PgBouncer in transaction mode (TEST_POSTGRES_POOLER_URL): the
 * engine is PostgreSQL, databases are made on TEST_POSTGRES_URL and the servers reach them
 * through the pooler.
 */
export const testPoolerUrl: string | undefined =
  testEngine === 'postgres' ? process.env.SVC_TEST_POOLER_URL || undefined : undefined;

/** The URL of database `name` on the same server as `url`. */
function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Runs admin statements on a connection of its own, closed at once (no handle keeps the test alive). */
function admin(engine: 'postgres' | 'mysql', statements: readonly string[]): Promise<void> {
  return runStatements(engine, serverUrl(engine), statements);
}

/** Runs statements on the database at `url` (a server URL of `engine`), on a connection of its own. */
export async function runStatements(
  engine: 'postgres' | 'mysql',
  url: string,
  statements: readonly string[],
): Promise<void> {
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const statement of statements) await client.query(statement);
    } finally {
      await client.end();
    }
    return;
  }
  const connection = await mysql.createConnection(url);
  try {
    for (const statement of statements) await connection.query(statement);
  } finally {
    await connection.end();
  }
}

/**
 * A new empty database on the engine under test. `postgresLocale`: a PostgreSQL database of that
 * collation and character classification (`C`: ASCII-only case folding, as docs ask for).
 */
export async function createTestDatabase(
  engine: TestEngine = testEngine,
  options: { readonly postgresLocale?: 'C' } = {},
): Promise<TestDatabase> {
  if (engine === 'sqlite') return { url: undefined, drop: async () => {} };
  // Named after the run (test/run.mjs's pid), so the runner can drop what an interrupted run left.
  const run = process.env.SVC_TEST_RUN ?? String(process.pid);
  const name = `svc_t_${run}_${randomBytes(4).toString('hex')}`;
  const locale =
    engine === 'postgres' && options.postgresLocale
      ? ` template template0 lc_collate '${options.postgresLocale}' lc_ctype '${options.postgresLocale}'`
      : '';
  await admin(engine, [`create database ${name}${locale}`]);
  return {
    url: withDatabase(
      engine === 'postgres' && testPoolerUrl ? testPoolerUrl : serverUrl(engine),
      name,
    ),
    drop: () =>
      admin(engine, [
        engine === 'postgres'
          ? `drop database if exists ${name} with (force)`
          : `drop database if exists ${name}`,
      ]),
  };
}
