// A copy of the repository in a temporary directory (its sources, tests and settings, the
// installed packages linked), for tests of the commands that write into src/: make:resource and
// make:migration run there as a developer runs them, through the real CLI from its sources.
import { type ExecFileSyncOptions, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, SVC } from './cli.js';

export interface RepositoryCopy {
  readonly root: string;
  /** Runs `npx svc <args>` in the copy; throws with its stderr when it exits non-zero. */
  svc(args: readonly string[]): string;
  /** Every file under src/, relative to it, with its text. */
  sources(): Map<string, string>;
}

function tree(dir: string, base = dir): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) for (const [k, v] of tree(full, base)) files.set(k, v);
    else files.set(path.relative(base, full), fs.readFileSync(full, 'utf8'));
  }
  return files;
}

/** A fresh copy, removed when the test process exits (tests imported from it may run late). */
export function copyRepository(): RepositoryCopy {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-copy-'));
  process.once('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  for (const entry of ['src', 'test', 'package.json', 'tsconfig.json', 'biome.jsonc', '.gitignore'])
    fs.cpSync(path.join(ROOT, entry), path.join(root, entry), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  const options: ExecFileSyncOptions = { cwd: root, stdio: 'pipe', encoding: 'utf8' };
  return {
    root,
    svc: (args) =>
      String(
        execFileSync(
          process.execPath,
          [...SVC.slice(0, 2), path.join(root, 'src/cli/main.ts'), ...args],
          options,
        ),
      ),
    sources: () => tree(path.join(root, 'src')),
  };
}
