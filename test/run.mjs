// npm test: every *.test.ts under test/, through node:test with tsx for TypeScript; first on
// SQLite, then again on PostgreSQL and MariaDB/MySQL when TEST_POSTGRES_URL / TEST_MYSQL_URL are
// set (test/helpers/engines.ts gives each test server a database of its own there), and on
// PostgreSQL through PgBouncer in transaction mode when TEST_POSTGRES_POOLER_URL is set too.
//   node test/run.mjs [path-substring...]        every engine whose URL is set
//   SVC_TEST_ENGINES=postgres node test/run.mjs  only those engines
// Before it starts it says which engines and service suites run and which are skipped, and why;
// then a line per test file with its time (test/reporter.mjs); at the end, per engine, the tests
// passed, failed and skipped, the engine's time, its five slowest files and the suites skipped.
// The test databases (svc_t_<run pid>_*) are dropped at the end, also when the run is
// interrupted, and those left by earlier runs at the start.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return find(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

const env = process.env;
const ENGINES = [
  { name: 'sqlite', label: 'SQLite', url: 'always' },
  {
    name: 'postgres',
    label: 'PostgreSQL',
    url: env.TEST_POSTGRES_URL,
    variable: 'TEST_POSTGRES_URL',
  },
  { name: 'mysql', label: 'MariaDB/MySQL', url: env.TEST_MYSQL_URL, variable: 'TEST_MYSQL_URL' },
  {
    // The PostgreSQL suites again, each server reaching its database through PgBouncer in
    // transaction mode (DESIGN.md 3.12); the databases are made and dropped on TEST_POSTGRES_URL.
    name: 'postgres-pooler',
    label: 'PostgreSQL through PgBouncer',
    url: env.TEST_POSTGRES_POOLER_URL,
    variable: 'TEST_POSTGRES_POOLER_URL',
    engine: 'postgres',
    needs: 'TEST_POSTGRES_URL',
    env: { SVC_TEST_POOLER_URL: env.TEST_POSTGRES_POOLER_URL },
    // CI leaves out the suites that add time but no statement of another kind (.ci/run).
    exclude: env.TEST_POSTGRES_POOLER_EXCLUDE?.split(',').filter(Boolean) ?? [],
  },
];
const chosen = env.SVC_TEST_ENGINES?.split(',');

/** The suites that need a service beyond the engine under test, and what they need. */
const SERVICES = [
  {
    suites: 'Redis: several instances, shared state (test/shared-state)',
    needs: ['TEST_REDIS_URL'],
  },
  {
    suites: 'identical JSON on every engine (test/engines)',
    needs: ['TEST_POSTGRES_URL', 'TEST_MYSQL_URL'],
  },
  {
    suites: 'pool settings and database outage (test/resilience)',
    needs: ['TEST_POSTGRES_URL|TEST_MYSQL_URL'],
    // They run in the PostgreSQL and MariaDB passes, not beside SQLite.
    inPass: ['postgres', 'mysql', 'postgres-pooler'],
  },
  {
    suites: 'unit databases on a PostgreSQL main database (test/unit-databases)',
    needs: ['TEST_POSTGRES_URL'],
  },
  {
    suites: 'reads from a streaming replica (test/replicas)',
    needs: ['TEST_POSTGRES_URL', 'TEST_POSTGRES_REPLICA_URL'],
    inPass: ['postgres'],
  },
];

const filter = process.argv.slice(2);
const files = find('test')
  .filter((f) => filter.length === 0 || filter.some((p) => f.includes(p)))
  .sort();
if (files.length === 0) {
  console.error(`No test files match ${filter.join(', ')}`);
  process.exit(1);
}

// ---- the test databases ------------------------------------------------------------------

const RUN = String(process.pid);

async function statements(engine, url, sqls) {
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const rows = [];
      for (const sql of sqls) rows.push(...(await client.query(sql)).rows);
      return rows;
    } finally {
      await client.end();
    }
  }
  const connection = await mysql.createConnection(url);
  try {
    const rows = [];
    for (const sql of sqls) {
      const [result] = await connection.query(sql);
      if (Array.isArray(result)) rows.push(...result);
    }
    return rows;
  } finally {
    await connection.end();
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Drops the test databases of this run (`mine`) or of runs whose process is gone (leftovers of
 * an interrupted run); those of a run still going on (another terminal) are left alone.
 */
async function dropTestDatabases(engine, url, which) {
  const list =
    engine.name === 'postgres'
      ? "select datname as name from pg_database where datname like 'svc\\_t\\_%'"
      : "select schema_name as name from information_schema.schemata where schema_name like 'svc\\_t\\_%'";
  const names = (await statements(engine.name, url, [list])).map((r) => r.name ?? r.NAME);
  const doomed = names.filter((name) => {
    const pid = Number(/^svc_t_(\d+)_/.exec(name)?.[1]);
    return which === 'mine' ? String(pid) === RUN : !alive(pid);
  });
  if (doomed.length === 0) return 0;
  await statements(
    engine.name,
    url,
    doomed.map((name) =>
      engine.name === 'postgres'
        ? `drop database if exists ${name} with (force)`
        : `drop database if exists ${name}`,
    ),
  );
  return doomed.length;
}

async function dropEverywhere(which) {
  for (const engine of ENGINES) {
    // The pooler pass's databases live on TEST_POSTGRES_URL's server (the PostgreSQL entry).
    if (engine.name === 'sqlite' || engine.engine || !engine.url) continue;
    try {
      const dropped = await dropTestDatabases(engine, engine.url, which);
      if (dropped > 0)
        console.log(
          `# ${engine.label}: dropped ${dropped} test database${dropped === 1 ? '' : 's'} ${which === 'mine' ? 'of this run' : 'left by earlier runs'}`,
        );
    } catch (error) {
      console.log(`# ${engine.label}: could not drop the test databases: ${error.message}`);
    }
  }
}

// ---- the plan ----------------------------------------------------------------------------

const planned = ENGINES.map((engine) => ({
  ...engine,
  skip:
    chosen && !chosen.includes(engine.name)
      ? `not in SVC_TEST_ENGINES=${env.SVC_TEST_ENGINES}`
      : !engine.url
        ? `${engine.variable} is not set`
        : engine.needs && !env[engine.needs]
          ? `${engine.needs} is not set`
          : null,
}));
const has = (need) => need.split('|').some((variable) => env[variable]);
console.log(`# svc tests: ${files.length} test file${files.length === 1 ? '' : 's'}`);
console.log('# engines (each runs every file):');
for (const engine of planned)
  console.log(
    `#   ${engine.skip ? 'skip' : 'run '}  ${engine.label}${engine.skip ? `: ${engine.skip}` : ''}`,
  );
console.log('# suites that need a service:');
for (const service of SERVICES) {
  const missing = service.needs.filter((need) => !has(need));
  const passes = service.inPass?.filter((name) => !planned.find((e) => e.name === name)?.skip);
  const why =
    missing.length > 0
      ? `${missing.map((m) => m.replace('|', ' or ')).join(' and ')} not set`
      : passes?.length === 0
        ? 'no PostgreSQL or MariaDB/MySQL pass in this run'
        : '';
  console.log(`#   ${why ? 'skip' : 'run '}  ${service.suites}${why ? `: ${why}` : ''}`);
}
console.log(
  '# (.ci/run sets TEST_POSTGRES_URL, TEST_MYSQL_URL and TEST_REDIS_URL, and starts PgBouncer and a replica for TEST_POSTGRES_POOLER_URL and TEST_POSTGRES_REPLICA_URL.)\n',
);

// ---- the run -----------------------------------------------------------------------------

let current = null;
let interrupted = false;
const stopOn = (signal) => {
  if (interrupted) return;
  interrupted = true;
  console.log(`\n# ${signal}: stopping the tests, then dropping this run's test databases`);
  current?.kill(signal);
};
process.on('SIGINT', () => stopOn('SIGINT'));
process.on('SIGTERM', () => stopOn('SIGTERM'));

/** The files of `engine`'s pass: all, less those under its `exclude` paths. */
const filesOf = (engine) =>
  files.filter((file) => !(engine.exclude ?? []).some((prefix) => file.startsWith(prefix)));

function runEngine(engine, summaryFile) {
  return new Promise((resolve) => {
    current = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=./test/reporter.mjs', ...filesOf(engine)],
      {
        stdio: 'inherit',
        env: {
          ...env,
          ...engine.env,
          SVC_TEST_ENGINE: engine.engine ?? engine.name,
          SVC_TEST_RUN: RUN,
          SVC_TEST_SUMMARY: summaryFile,
          SVC_TEST_FILES: String(filesOf(engine).length),
        },
      },
    );
    current.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

await dropEverywhere('leftovers');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-test-run-'));
const results = [];
try {
  for (const engine of planned) {
    if (engine.skip || interrupted) continue;
    const own = filesOf(engine).length;
    if (own === 0) continue;
    console.log(
      `# ${engine.label}: ${own} test files${own < files.length ? ` (not ${engine.exclude.join(', ')}: TEST_POSTGRES_POOLER_EXCLUDE)` : ''}\n`,
    );
    const summaryFile = path.join(tmp, `${engine.name}.json`);
    const started = Date.now();
    const exit = await runEngine(engine, summaryFile);
    const seconds = Math.round((Date.now() - started) / 1000);
    let summary = null;
    try {
      summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
    } catch {
      // interrupted before the reporter finished
    }
    results.push({ engine, exit, summary, seconds });
    console.log('');
  }
} finally {
  await dropEverywhere('mine');
  rmSync(tmp, { recursive: true, force: true });
}

// ---- the totals --------------------------------------------------------------------------

let failed = interrupted;
console.log('# results');
for (const engine of planned) {
  const result = results.find((r) => r.engine.name === engine.name);
  if (!result) {
    console.log(`#   ${engine.label}: not run (${engine.skip ?? 'interrupted'})`);
    continue;
  }
  const { summary, exit, seconds } = result;
  if (!summary) {
    failed = true;
    console.log(`#   ${engine.label}: no results (exit ${exit.code ?? exit.signal})`);
    continue;
  }
  if (summary.failed > 0 || exit.code !== 0) failed = true;
  console.log(
    `#   ${engine.label}: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped tests, ${summary.skippedSuites.length} skipped suites in ${seconds} s${exit.code !== 0 && summary.failed === 0 ? ` (exit ${exit.code ?? exit.signal})` : ''}`,
  );
  const slowest = Object.entries(summary.seconds ?? {})
    .sort(([, a], [, b]) => b - a)
    .slice(0, 5);
  if (slowest.length > 1)
    console.log(`#     slowest: ${slowest.map(([file, s]) => `${file} ${s} s`).join(', ')}`);
  // Skipped suites by reason, so "skipped" never hides what did not run.
  const byReason = new Map();
  for (const suite of summary.skippedSuites)
    byReason.set(suite.reason, [...(byReason.get(suite.reason) ?? []), suite]);
  for (const [reason, suites] of byReason) {
    const where = [...new Set(suites.map((s) => s.file))].join(', ');
    console.log(
      `#     skipped ${suites.length} suite${suites.length === 1 ? '' : 's'}: ${reason} (${where})`,
    );
  }
  for (const failure of summary.failures) {
    console.log(`#     ✖ ${failure.name} (${failure.file})`);
    if (failure.error) console.log(failure.error.replace(/^/gm, '#   '));
  }
}
if (interrupted) console.log('# interrupted');
process.exit(failed ? 1 : 0);
