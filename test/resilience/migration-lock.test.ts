// DESIGN.md 3.12: behind PgBouncer in transaction mode svc keeps no session state, migrations
// included: their lock is PostgreSQL's transaction-scoped advisory lock, taken inside the
// migration's transaction, so it is taken and released on the one server connection the pooler
// lends for that transaction, and nothing stays held on a connection it lends to others.
// A session-level lock (Kysely's own, pg_advisory_lock) is three statements outside any
// transaction, which the pooler may send to three server connections. Runs in the PostgreSQL
// pass and in the pass through PgBouncer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../src/config/config.js';
import { connectDatabase } from '../../src/database/connect.js';
import { migrate } from '../../src/database/migrator.js';
import {
  createTestDatabase,
  type TestDatabase,
  testEngine,
  testPoolerUrl,
} from '../helpers/engines.js';

/** Kysely's migration lock id, which svc keeps. */
const LOCK_ID = '3853314791062309107';

/** `url`'s database on the PostgreSQL server itself (not through the pooler). */
function directUrl(url: string): string {
  const direct = new URL(String(process.env.TEST_POSTGRES_URL));
  direct.pathname = new URL(url).pathname;
  return direct.toString();
}

describe('the migration lock (DESIGN.md 3.12)', {
  skip: testEngine === 'postgres' ? false : 'PostgreSQL only (the pooler is PgBouncer)',
}, () => {
  let database: TestDatabase;
  const holder = () => new pg.Client({ connectionString: directUrl(String(database.url)) });

  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    await database?.drop();
  });

  it('is taken inside the migration transaction (pg_advisory_xact_lock), and nothing stays held once migrated', async () => {
    const other = holder();
    const watcher = holder();
    await other.connect();
    await watcher.connect();
    const config = loadConfig({
      DATABASE_URL: String(database.url),
      ...(testPoolerUrl ? { DB_POOLER: 'transaction' } : {}),
    });
    const svc = connectDatabase(config.databaseUrl, config);
    let migrated: Promise<unknown> = Promise.resolve();
    try {
      // Another instance is migrating: svc's migration waits for its lock.
      await other.query('begin');
      await other.query(`select pg_advisory_xact_lock(${LOCK_ID})`);
      migrated = migrate(svc.db, ['system', 'data']);
      let waiting: { query: string } | undefined;
      for (let tries = 0; tries < 200 && !waiting; tries += 1) {
        // From a connection of its own: inside `other`'s transaction the view keeps one snapshot.
        const { rows } = await watcher.query(
          `select query from pg_stat_activity
            where datname = current_database() and pid <> pg_backend_pid()
              and wait_event_type = 'Lock' and query ilike '%pg_advisory%'`,
        );
        waiting = rows[0];
        if (!waiting) await new Promise((resolve) => setTimeout(resolve, 25));
      }
      assert.ok(waiting, 'svc never waited for the migration lock');
      assert.match(waiting.query, /pg_advisory_xact_lock/);
      await other.query('commit');
      await migrated;
      const { rows } = await watcher.query(
        `select count(*)::int as held from pg_locks l join pg_database d on d.oid = l.database
          where l.locktype = 'advisory' and d.datname = current_database()`,
      );
      assert.equal(rows[0].held, 0);
    } finally {
      // Whatever failed, the migration is let finish before its database is closed.
      await other.query('commit').catch(() => undefined);
      await migrated.catch(() => undefined);
      await other.end();
      await watcher.end();
      await svc.close();
    }
  });
});
