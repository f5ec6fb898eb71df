// npm test: every *.test.ts under test/, through node:test with tsx for TypeScript; first on
// SQLite, then again on PostgreSQL and MariaDB/MySQL when TEST_POSTGRES_URL / TEST_MYSQL_URL are
// set (test/helpers/engines.ts gives each test server a database of its own there).
//   node test/run.mjs [path-substring...]        every engine whose URL is set
//   SVC_TEST_ENGINES=postgres node test/run.mjs  only those engines
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return find(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

const ENGINES = [
  { name: 'sqlite', url: 'always' },
  { name: 'postgres', url: process.env.TEST_POSTGRES_URL, variable: 'TEST_POSTGRES_URL' },
  { name: 'mysql', url: process.env.TEST_MYSQL_URL, variable: 'TEST_MYSQL_URL' },
];
const chosen = process.env.SVC_TEST_ENGINES?.split(',');

const filter = process.argv.slice(2);
const files = find('test')
  .filter((f) => filter.length === 0 || filter.some((p) => f.includes(p)))
  .sort();
if (files.length === 0) {
  console.error(`No test files match ${filter.join(', ')}`);
  process.exit(1);
}

let failed = false;
for (const engine of ENGINES) {
  if (chosen && !chosen.includes(engine.name)) continue;
  if (!engine.url) {
    console.log(
      `\n# ${engine.name}: skipped, ${engine.variable} is not set (the suites run on SQLite only)\n`,
    );
    continue;
  }
  console.log(`\n# ${engine.name}: ${files.length} test files\n`);
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=spec', ...files],
    {
      stdio: 'inherit',
      env: { ...process.env, SVC_TEST_ENGINE: engine.name },
    },
  );
  if (result.status !== 0) {
    failed = true;
    console.log(`\n# ${engine.name}: FAILED (exit ${result.status})\n`);
  }
}
process.exit(failed ? 1 : 0);
