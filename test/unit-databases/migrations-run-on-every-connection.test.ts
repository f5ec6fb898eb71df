// Issue 8, deliverable 2: migrations run on every configured database. DATABASE_URL gets both
// sets (system and data tables); each DB_CONNECTIONS database gets the data set only, at the
// service's start and through `svc migrate`; the service closes them all at shutdown.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { migrationNames } from '../../src/database/migrator.js';
import { type Run, runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { ADMIN_PASSWORD, startTestServer } from '../helpers/test-server.js';
import { ONCE, UNIT_SETUPS } from '../helpers/unit-databases.js';

const DATA_TABLES = [
  // The Idempotency-Keys of creates live beside the records they answer for (data migration 0006).
  'idempotency_keys',
  'import_template_groups',
  'import_template_logs',
  'import_template_users',
  'import_templates',
  // The change log and its counters live beside the records they describe (data migration 0007).
  'svc_change_state',
  'svc_changes',
];
const DATA_MIGRATIONS = await migrationNames('data');

/** The tables of a SQLite file, without SQLite's own, by name. */
function tablesOf(file: string): string[] {
  const reader = new BetterSqlite3(file, { readonly: true });
  try {
    const rows = reader
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
      )
      .all() as Array<{ name: string }>;
    return rows.map((r) => r.name);
  } finally {
    reader.close();
  }
}

function appliedIn(file: string): string[] {
  const reader = new BetterSqlite3(file, { readonly: true });
  try {
    return (
      reader.prepare('select name from svc_migrations_data order by name').all() as Array<{
        name: string;
      }>
    ).map((r) => r.name);
  } finally {
    reader.close();
  }
}

/** Asserts a successful run and returns its stdout parsed as JSON. */
function json(run: Run): any {
  assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

for (const setup of UNIT_SETUPS) {
  describe(`migrations run on every configured database (${setup.name})`, {
    skip: ONCE || setup.skip,
  }, () => {
    let dir: string;
    let files: { east: string; west: string };
    let connections: string;
    let main: TestDatabase;
    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-units-migrate-'));
      files = { east: path.join(dir, 'east.sqlite'), west: path.join(dir, 'west', 'west.sqlite') };
      connections = JSON.stringify({ east: `sqlite:${files.east}`, west: `sqlite:${files.west}` });
      main = await createTestDatabase(setup.main);
    });
    after(async () => {
      await main?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('svc migrate applies the data set to every DB_CONNECTIONS database and reports each by name', async () => {
      const dataDir = path.join(dir, 'cli');
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATA_DIR: dataDir,
        ADMIN_PASSWORD,
        LOG_LEVEL: 'silent',
        DB_CONNECTIONS: connections,
      };
      delete env.DATABASE_URL;
      if (main.url) env.DATABASE_URL = main.url;
      const first = json(await runCli(env, ['migrate']));
      assert.deepStrictEqual(
        first.migrations.map((r: { set: string }) => r.set),
        ['system', 'data'],
      );
      assert.deepStrictEqual(first.migrations[1].applied, DATA_MIGRATIONS);
      assert.deepStrictEqual(first.connections, {
        east: [{ set: 'data', applied: DATA_MIGRATIONS }],
        west: [{ set: 'data', applied: DATA_MIGRATIONS }],
      });
      for (const file of [files.east, files.west]) {
        assert.deepStrictEqual(tablesOf(file), [
          ...DATA_TABLES,
          'svc_migrations_data',
          'svc_migrations_data_lock',
        ]);
        assert.deepStrictEqual(appliedIn(file), DATA_MIGRATIONS);
      }
      assert.deepStrictEqual(json(await runCli(env, ['migrate'])), {
        migrations: [
          { set: 'system', applied: [] },
          { set: 'data', applied: [] },
        ],
        connections: { east: [{ set: 'data', applied: [] }], west: [{ set: 'data', applied: [] }] },
      });
    });

    it('the service migrates a new DB_CONNECTIONS database at start, and keeps system tables out of it', async () => {
      const north = path.join(dir, 'north.sqlite');
      const server = await startTestServer({
        DB_CONNECTIONS: JSON.stringify({ east: `sqlite:${files.east}`, north: `sqlite:${north}` }),
        ...(main.url ? { DATABASE_URL: main.url } : {}),
      });
      try {
        assert.deepStrictEqual(tablesOf(north), [
          ...DATA_TABLES,
          'svc_migrations_data',
          'svc_migrations_data_lock',
        ]);
        assert.deepStrictEqual(appliedIn(north), DATA_MIGRATIONS);
        assert.deepStrictEqual(server.service.unitDatabases.names(), ['east', 'north']);
        assert.deepStrictEqual(server.service.unitDatabases.reports, {
          east: [{ set: 'data', applied: [] }],
          north: [{ set: 'data', applied: DATA_MIGRATIONS }],
        });
      } finally {
        await server.close();
      }
    });

    it('closes every DB_CONNECTIONS database when the service closes', async () => {
      const server = await startTestServer({
        DB_CONNECTIONS: JSON.stringify({ east: `sqlite:${files.east}` }),
        ...(main.url ? { DATABASE_URL: main.url } : {}),
      });
      const east = server.service.unitDatabases.for('east');
      assert.ok(!('unknownConnection' in east));
      await east.db.selectFrom('import_templates').select('id').execute();
      await server.close();
      await assert.rejects(() => east.db.selectFrom('import_templates').select('id').execute());
    });
  });
}
