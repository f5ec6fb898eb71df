// One configuration (DESIGN.md 3.2, 3.6): the server and every command read the environment and
// the working directory's `.env` (the environment wins), say which database they opened (no
// password), and the commands that talk to the running service find it from the same settings
// and fail, saying what they tried, when it does not answer.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseEnv } from 'node:util';
import { loadConfig } from '../../src/config/config.js';
import { databaseLocation } from '../../src/config/database-location.js';
import { bearer } from '../helpers/bearer.js';
import { ROOT, type Run, runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/engines.js';
import { ServeProcess } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD } from '../helpers/test-server.js';

/** Settings a test's own environment may carry that would win over the `.env` under test. */
const SETTINGS = [
  'DATABASE_URL',
  'DATA_DIR',
  'DB_CONNECTIONS',
  'HOST',
  'PORT',
  'REALTIME_NOTIFICATIONS',
  'PUSHER_HOST',
  'APP_SECRET',
  'TENANT_ISOLATION',
  'WORKERS',
];

function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ADMIN_PASSWORD };
  for (const name of SETTINGS) delete env[name];
  return { ...env, ...extra };
}

function writeEnv(dir: string, settings: Record<string, string>): void {
  fs.writeFileSync(
    path.join(dir, '.env'),
    `# written by the test\n${Object.entries(settings)
      .map(([k, v]) => `${k}="${v}"`)
      .join('\n')}\n`,
  );
}

/** A TCP port nothing listens on (bound, then released). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function ok(run: Run): void {
  assert.equal(run.code, 0, `exit ${run.code}: ${run.stderr}`);
}

describe('one configuration for the server and every command', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-dotenv-test-'));
  let database: TestDatabase;
  let url = '';
  let serve: ServeProcess | null = null;
  before(async () => {
    database = await createTestDatabase();
    url = database.url ?? `sqlite:${path.join(dir, 'from-dotenv.sqlite')}`;
  });
  after(async () => {
    await serve?.dispose();
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a command reads DATABASE_URL from the .env of its working directory and says which database it opened, without the password', async () => {
    writeEnv(dir, { DATABASE_URL: url, DATA_DIR: path.join(dir, 'data') });
    const run = await runCli(baseEnv(), ['company:create', 'Dotenv'], { cwd: dir });
    ok(run);
    assert.match(run.stderr, new RegExp(`Database: \\S+ ${escapeRegExp(databaseLocation(url))} `));
    assert.ok(!/:[^@/]+@/.test(run.stderr.replace(/^.*Database: /s, '')), run.stderr);
    assert.match(run.stderr, new RegExp(`settings: environment \\+ ${escapeRegExp(dir)}/\\.env`));
    if (!database.url) assert.ok(fs.existsSync(path.join(dir, 'from-dotenv.sqlite')));
  });

  it('the environment wins over .env', async () => {
    const elsewhere = path.join(dir, 'elsewhere');
    const run = await runCli(
      baseEnv({ DATABASE_URL: `sqlite:${path.join(elsewhere, 'env.sqlite')}` }),
      ['token:list'],
      { cwd: dir },
    );
    ok(run);
    assert.match(run.stderr, new RegExp(`Database: SQLite sqlite:${escapeRegExp(elsewhere)}`));
  });

  it('a token issued by the CLI from the same .env works against the server started from it', async () => {
    serve = await ServeProcess.start([], {}, { cwd: dir, unset: ['DATA_DIR'] });
    // The server found the database of .env: the company the CLI made before is there.
    const issued = await runCli(
      baseEnv(),
      ['token:create', 'admin', 'Main', '--name=dotenv', '--abilities=companies.read'],
      { cwd: dir },
    );
    ok(issued);
    const response = await fetch(`${serve.url}/api/companies?per_page=200`, {
      headers: bearer(issued.stdout.trim()),
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { data: Array<{ name: string }> };
    assert.ok(
      body.data.some((c) => c.name === 'Dotenv'),
      JSON.stringify(body),
    );
  });

  it('notify exits 1 naming the address it tried when the push to the service fails; the notification is stored', async () => {
    const port = await closedPort();
    const run = await runCli(
      baseEnv({ REALTIME_NOTIFICATIONS: 'true', PORT: String(port) }),
      ['notify', 'admin', '--title=Hello', '--message=Nobody listens'],
      { cwd: dir },
    );
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(`1 notification stored, but the real-time push failed: .*127\\.0\\.0\\.1:${port}`),
    );
    assert.equal(JSON.parse(run.stdout).length, 1);
  });

  it('notify says it did not push when REALTIME_NOTIFICATIONS is off (exit 0)', async () => {
    const run = await runCli(baseEnv(), ['notify', 'admin', '--title=Hi', '--message=Stored'], {
      cwd: dir,
    });
    ok(run);
    assert.match(run.stderr, /1 notification stored; not pushed: REALTIME_NOTIFICATIONS is off/);
  });

  it('driver:query exits 1 naming the address it tried when the service does not answer', async () => {
    const port = await closedPort();
    const run = await runCli(
      baseEnv({ PORT: String(port), REST_DRIVER_SECRET: 'x'.repeat(32) }),
      ['driver:query', 'select 1'],
      { cwd: dir },
    );
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(`Cannot reach the service at http://127\\.0\\.0\\.1:${port}/`),
    );
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('.env.example', () => {
  const example = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8');

  it('lists every setting the configuration reads', () => {
    const read = new Set<string>();
    const recording = new Proxy({} as Record<string, string | undefined>, {
      get(_target, name) {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    });
    loadConfig(recording);
    const listed = new Set(Object.keys(parseEnv(example)));
    assert.deepStrictEqual(
      [...read].filter((name) => !listed.has(name)),
      [],
      'settings missing from .env.example',
    );
    assert.ok(read.size >= 30, `only ${read.size} settings read`);
  });

  it('copied to .env as it is, gives the defaults', () => {
    assert.deepStrictEqual(loadConfig(parseEnv(example)), loadConfig({}));
  });

  it('never shows a password: the location of a database URL leaves it out', () => {
    assert.equal(
      databaseLocation('postgres://svc:s3cret@db.internal:5432/svc'),
      'postgres://svc@db.internal:5432/svc',
    );
    assert.equal(databaseLocation('mysql://root:pw@127.0.0.1/x'), 'mysql://root@127.0.0.1/x');
  });
});
