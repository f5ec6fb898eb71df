// Honest tests (issue 20): test/run.mjs says before it starts which engines and service suites
// run and which are skipped and why, prints a line per test file, totals per engine (passed,
// failed, skipped tests and skipped suites), and drops the test databases of runs that are gone.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { runStatements } from '../helpers/engines.js';

function runner(
  env: NodeJS.ProcessEnv,
  args: string[],
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['test/run.mjs', ...args], { cwd: ROOT, env });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

function withoutServices(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'TEST_POSTGRES_URL',
    'TEST_MYSQL_URL',
    'TEST_REDIS_URL',
    'TEST_POSTGRES_POOLER_URL',
    'TEST_POSTGRES_POOLER_EXCLUDE',
    'TEST_POSTGRES_REPLICA_URL',
    'SVC_TEST_POOLER_URL',
    'SVC_TEST_ENGINES',
    'SVC_TEST_ENGINE',
    'SVC_TEST_RUN',
    // Set by node:test in a test file; the runner's own node --test would refuse to run files.
    'NODE_TEST_CONTEXT',
  ])
    delete env[name];
  return env;
}

describe('test/run.mjs', { concurrency: true }, () => {
  it('says before it starts which engines and service suites run or are skipped and why, a line per file, and the totals per engine with their time, slowest files and skipped suites', async () => {
    const { code, out } = await runner(withoutServices(), [
      'test/shared-state/redis-config',
      'test/validation/validator',
    ]);
    assert.equal(code, 0, out);
    const lines = out.split('\n');
    const plan = lines.slice(0, 12).join('\n');
    assert.match(
      plan,
      /^# svc tests: 2 test files\n# engines \(each runs every file\):\n# {3}run {3}SQLite\n# {3}skip {2}PostgreSQL: TEST_POSTGRES_URL is not set\n# {3}skip {2}MariaDB\/MySQL: TEST_MYSQL_URL is not set\n/,
    );
    assert.match(
      plan,
      /\n# {3}skip {2}Redis: several instances, shared state \(test\/shared-state\): TEST_REDIS_URL not set\n/,
    );
    assert.match(
      out,
      /\n\[1\/2\] ✔ test\/shared-state\/redis-config\.test\.ts {2}\d+ passed {2}[\d.]+ s\n/,
    );
    assert.match(
      out,
      /\n\[2\/2\] ✔ test\/validation\/validator\.test\.ts {2}\d+ passed {2}[\d.]+ s\n/,
    );
    assert.match(
      out,
      /\n# results\n# {3}SQLite: \d+ passed, 0 failed, 0 skipped tests, 0 skipped suites in \d+ s\n# {5}slowest: test\/\S+\.test\.ts [\d.]+ s, test\/\S+\.test\.ts [\d.]+ s\n# {3}PostgreSQL: not run \(TEST_POSTGRES_URL is not set\)\n/,
    );
  });

  it('drops the test databases left by a run whose process is gone, and no other', {
    skip: !process.env.TEST_POSTGRES_URL && 'TEST_POSTGRES_URL is not set',
  }, async () => {
    const url = String(process.env.TEST_POSTGRES_URL);
    // The pid of a process that has exited.
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const left = `svc_t_${gone}_deadbeef`;
    const live = `svc_t_${process.pid}_cafebabe`;
    await runStatements('postgres', url, [`create database ${left}`, `create database ${live}`]);
    try {
      const { code, out } = await runner(
        { ...withoutServices(), TEST_POSTGRES_URL: url, SVC_TEST_ENGINES: 'sqlite' },
        ['test/validation/validator'],
      );
      assert.equal(code, 0, out);
      assert.match(out, /# PostgreSQL: dropped 1 test database left by earlier runs\n/);
      const names: string[] = [];
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const rows = await client.query<{ datname: string }>(
          "select datname from pg_database where datname like 'svc\\_t\\_%'",
        );
        names.push(...rows.rows.map((r) => r.datname));
      } finally {
        await client.end();
      }
      assert.ok(!names.includes(left), 'the leftover is still there');
      assert.ok(names.includes(live), 'the database of a live run was dropped');
    } finally {
      await runStatements('postgres', url, [
        `drop database if exists ${left}`,
        `drop database if exists ${live}`,
      ]);
    }
  });
});
