// Issue 31, 13: what svc keeps on disk is its owner's alone. A DATA_DIR that svc creates is 0700;
// the SQLite database it creates is 0600, and so are its -wal and -shm files (SQLite gives them
// the database file's mode) and the generated secrets. A DATA_DIR the operator made keeps the
// mode they gave it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { sqlitePassOnly } from '../helpers/engines.js';
import { ServeProcess } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD } from '../helpers/test-server.js';

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);

describe('the files svc creates are private', { skip: sqlitePassOnly('SQLite files') }, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-modes-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const migrate = (dataDir: string) => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ADMIN_PASSWORD };
    delete env.DATABASE_URL;
    return runCli(env, ['migrate']);
  };

  it('svc migrate on a fresh DATA_DIR creates it 0700 and the database 0600', async () => {
    const dataDir = path.join(root, 'fresh', 'data');
    const run = await migrate(dataDir);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(modeOf(dataDir), '700');
    assert.equal(modeOf(path.join(dataDir, 'svc.sqlite')), '600');
  });

  it('svc migrate leaves a DATA_DIR the operator made as it is, and still creates the database 0600', async () => {
    const dataDir = path.join(root, 'operator');
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    const run = await migrate(dataDir);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(modeOf(dataDir), '755');
    assert.equal(modeOf(path.join(dataDir, 'svc.sqlite')), '600');
  });

  it('svc serve on a fresh DATA_DIR keeps the database, its WAL and SHM and the secrets 0600', async () => {
    const dataDir = path.join(root, 'served');
    const serve = await ServeProcess.start([], { DATA_DIR: dataDir });
    try {
      assert.equal(modeOf(dataDir), '700');
      const files = fs.readdirSync(dataDir).sort();
      for (const name of ['svc.sqlite', 'svc.sqlite-wal', 'svc.sqlite-shm', 'app.secret'])
        assert.ok(files.includes(name), `${name} among ${files.join(', ')}`);
      for (const name of files) assert.equal(modeOf(path.join(dataDir, name)), '600', name);
    } finally {
      await serve.dispose();
    }
  });
});
