// npm run lint [-- --fix]: Biome (format, import order, lint rules of biome.jsonc) on the tree,
// then dependency-cruiser (layers, file cycles, drivers of .dependency-cruiser.cjs) on src/ and web/,
// then scripts/engine-words.mjs (src/engine/ names no memo, snapshot, carried check or lease).
//   npm run lint                 checks only; fails on any finding of either
//   npm run lint -- --fix        formats, sorts imports and applies Biome's safe fixes, then checks
// (Biome's unsafe fixes are left to a person: removing an unused first import also removes the
// file's header comment, and an unused variable is renamed `_name` rather than deleted.)
// All always run, so one run shows every problem.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (args.some((a) => a !== '--fix')) {
  console.error(`usage: npm run lint [-- --fix] (not: ${args.join(' ')})`);
  process.exit(2);
}
const fix = args.includes('--fix');

function run(tool, toolArgs, { quiet = false } = {}) {
  const bin = path.join(root, 'node_modules', '.bin', tool);
  const result = spawnSync(bin, toolArgs, {
    cwd: root,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (result.error) throw result.error;
  // A quiet run shows its output only when it fails.
  if (quiet && result.status !== 0) process.stdout.write(result.stdout + result.stderr);
  return result.status === 0;
}

let biome;
if (fix) {
  biome = run('biome', ['check', '.', '--write', '--error-on-warnings', '--max-diagnostics=10']);
} else {
  // First the list of what is wrong (files to format, rules broken, file by file), then the
  // first few lint findings in full; formatting and import order need no detail: --fix does them.
  biome = run('biome', ['check', '.', '--error-on-warnings', '--reporter=summary']);
  if (!biome)
    run('biome', ['lint', '.', '--error-on-warnings', '--max-diagnostics=5'], { quiet: true });
}
const layers = run('depcruise', ['src', 'web', '--config', '.dependency-cruiser.cjs']);
const words =
  spawnSync(process.execPath, [path.join(root, 'scripts', 'engine-words.mjs')], {
    cwd: root,
    stdio: 'inherit',
  }).status === 0;

if (!biome) {
  console.error(
    fix
      ? '\nlint: the Biome findings above have no safe fix: fix them by hand.'
      : '\nlint: Biome findings above. `npm run lint -- --fix` formats, sorts imports and applies the ' +
          'safe fixes; `npx biome lint .` shows every lint finding.',
  );
}
if (!layers) {
  console.error(
    '\nlint: import boundaries broken (the layers are in .dependency-cruiser.cjs; ' +
      '`npx depcruise src --config .dependency-cruiser.cjs --output-type err-long` gives each ' +
      "rule's reason).",
  );
}
process.exit(biome && layers && words ? 0 : 1);
