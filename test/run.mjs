// npm test: every *.test.ts under test/, through node:test with tsx for TypeScript.
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

const filter = process.argv.slice(2);
const files = find('test').filter((f) => filter.length === 0 || filter.some((p) => f.includes(p))).sort();
if (files.length === 0) {
  console.error(`No test files match ${filter.join(', ')}`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
