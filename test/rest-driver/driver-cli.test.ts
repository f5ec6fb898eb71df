// `svc driver:query "<sql>" [--bindings=<json>] [--connection=<name>]` signs with
// REST_DRIVER_SECRET and sends to the service at HOST:PORT: the answer's JSON on stdout; a
// refusal on stderr with exit 1, bad input exit 2. And `svc serve` refuses a short secret.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Run, runCli } from '../helpers/cli.js';
import { DRIVER_SECRET, driverEnv } from '../helpers/rest-driver-client.js';
import { declared, param } from '../helpers/rest-driver-engine.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Runs the real CLI from source with `env` on top of a clean environment. */
function svc(env: Record<string, string>, ...args: string[]): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent' };
  for (const name of Object.keys(base))
    if (/^(REST_DRIVER_|DATABASE_URL|DB_CONNECTIONS|HOST|PORT)/.test(name)) delete base[name];
  return runCli({ ...base, ...env }, args);
}

describe('svc driver:query', { concurrency: true }, () => {
  let server: TestServer;
  let env: Record<string, string>;
  before(async () => {
    server = await startTestServer(driverEnv(), { anonymous: true });
    // The command reads the service's own settings: HOST, PORT and the secret.
    env = {
      HOST: '127.0.0.1',
      PORT: new URL(server.url).port,
      REST_DRIVER_SECRET: DRIVER_SECRET,
      DATA_DIR: server.dataDir,
    };
  });
  after(() => server.close());

  it('prints the answer of a signed query as JSON', async () => {
    const run = await svc(
      env,
      'driver:query',
      `select id, name from companies where id = ${param(1)}`,
      '--bindings=[1]',
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepStrictEqual(JSON.parse(run.stdout), {
      columns: [
        { name: 'id', type: declared.id },
        { name: 'name', type: declared.varchar(200) },
      ],
      rows: [[1, 'Default']],
      row_count: 1,
      truncated: false,
    });
  });

  it('reports a refused statement on stderr and exits 1', async () => {
    const run = await svc(env, 'driver:query', 'delete from companies');
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /The service answered 422: The driver is read-only/);
  });

  it('is refused by the service with another secret (401), and exits 2 on bad input', async () => {
    const wrong = await svc(
      { ...env, REST_DRIVER_SECRET: 'x'.repeat(40) },
      'driver:query',
      'select 1',
    );
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /The service answered 401: Invalid signature\./);
    const bindings = await svc(env, 'driver:query', 'select ?', '--bindings={"a":1}');
    assert.equal(bindings.code, 2);
    assert.match(bindings.stderr, /--bindings must be a JSON array/);
    const noSecret = await svc({ ...env, REST_DRIVER_SECRET: '' }, 'driver:query', 'select 1');
    assert.equal(noSecret.code, 2);
    assert.match(noSecret.stderr, /REST_DRIVER_SECRET is not set/);
    const noSql = await svc(env, 'driver:query');
    assert.equal(noSql.code, 2);
    assert.match(noSql.stderr, /Usage: svc driver:query/);
  });

  it('svc serve refuses to start with a secret shorter than 32 characters', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-driver-cli-'));
    try {
      const run = await svc(
        {
          DATA_DIR: dataDir,
          PORT: '0',
          REST_DRIVER_ENABLED: 'true',
          REST_DRIVER_SECRET: 'too-short',
        },
        'serve',
      );
      assert.equal(run.code, 2);
      assert.match(
        run.stderr,
        /REST_DRIVER_ENABLED=true needs REST_DRIVER_SECRET of at least 32 characters \(got 9\)/,
      );
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
