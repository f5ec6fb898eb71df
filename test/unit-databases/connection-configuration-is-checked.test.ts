// DESIGN.md 3.2 and 3.1: DB_CONNECTIONS is checked when the service starts, with messages naming
// the entry (never its URL, which may hold a password); `svc unit:create --connection=` accepts
// only a configured name; and an entry with DATABASE_URL's own URL is the main database itself.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { startService } from '../../src/service.js';
import { runCli } from '../helpers/cli.js';
import { ADMIN_PASSWORD, startTestServer } from '../helpers/test-server.js';
import { ONCE } from '../helpers/unit-databases.js';

describe('DB_CONNECTIONS is checked at start', { skip: ONCE }, () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-units-config-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const refusedConfig = (value: string, message: string) =>
    assert.throws(
      () => loadConfig({ DATA_DIR: dir, DB_CONNECTIONS: value }),
      (error: unknown) => error instanceof ConfigError && error.message === message,
      value,
    );

  it('refuses a DB_CONNECTIONS that is not a JSON object of names to database URLs', () => {
    for (const value of ['east=sqlite:x', '[]', '"sqlite:x"', 'null'])
      refusedConfig(value, 'DB_CONNECTIONS must be a JSON object {"name": "url"}');
    refusedConfig(
      '{"bad name": "sqlite:x"}',
      'DB_CONNECTIONS entry "bad name": a name is 1 to 64 characters of a-z, 0-9, _ or -',
    );
    refusedConfig(
      `{"${'n'.repeat(65)}": "sqlite:x"}`,
      `DB_CONNECTIONS entry "${'n'.repeat(65)}": a name is 1 to 64 characters of a-z, 0-9, _ or -`,
    );
    for (const url of ['""', '1', 'null', '{}']) {
      refusedConfig(
        `{"east": ${url}}`,
        'DB_CONNECTIONS entry "east" must map to a database URL string (sqlite:, postgres:// or mysql://)',
      );
    }
    assert.deepStrictEqual(
      loadConfig({
        DATA_DIR: dir,
        DB_CONNECTIONS: '{"east": "sqlite:e.sqlite", "west_2": "postgres://u@h/db"}',
      }).dbConnections,
      {
        east: 'sqlite:e.sqlite',
        west_2: 'postgres://u@h/db',
      },
    );
  });

  it('stops the start, naming the entry, when a DB_CONNECTIONS database cannot be opened or migrated', async () => {
    const start = (url: string) =>
      startService(
        loadConfig({
          DATA_DIR: path.join(dir, 'refused'),
          ADMIN_PASSWORD,
          DB_CONNECTIONS: JSON.stringify({ east: url }),
        }),
        { logger: false },
      );
    await assert.rejects(start('oracle://secret@db/x'), {
      message:
        'DB_CONNECTIONS entry "east": Database URL scheme "oracle:" is not supported; use sqlite:<file>, postgres://user@host/db or mysql://user@host/db',
    });
    // Nothing listens on port 1: the data migration cannot connect.
    await assert.rejects(start('postgres://postgres:secret@127.0.0.1:1/x'), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.match(error.message, /^DB_CONNECTIONS entry "east": /);
      assert.doesNotMatch(error.message, /secret/);
      return true;
    });
  });

  it("makes an entry with DATABASE_URL's own URL the main database itself", async () => {
    const dataDir = path.join(dir, 'same');
    const server = await startTestServer({
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'svc.sqlite')}`,
      DB_CONNECTIONS: JSON.stringify({ here: `sqlite:${path.join(dataDir, 'svc.sqlite')}` }),
    });
    try {
      assert.equal(server.service.unitDatabases.for('here'), server.service.database);
      assert.equal(server.service.unitDatabases.for(null), server.service.database);
    } finally {
      await server.close();
    }
  });

  it('svc unit:create --connection accepts a configured name and refuses any other with exit 2', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: path.join(dir, 'cli'),
      ADMIN_PASSWORD,
      LOG_LEVEL: 'silent',
      DB_CONNECTIONS: JSON.stringify({ east: `sqlite:${path.join(dir, 'cli-east.sqlite')}` }),
    };
    delete env.DATABASE_URL;
    const refused = await runCli(env, ['unit:create', 'Lost', '--connection=nope']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(refused.stdout, '');
    assert.match(
      refused.stderr,
      /\nsvc: Unknown connection "nope": DB_CONNECTIONS names east\.\n$/,
    );
    const created = await runCli(env, ['unit:create', 'East', '--connection=east']);
    assert.equal(created.code, 0, created.stderr);
    const unit = JSON.parse(created.stdout);
    assert.deepStrictEqual([unit.name, unit.connection], ['East', 'east']);
  });
});
