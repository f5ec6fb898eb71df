// The real `svc` command from source (through tsx), as an operator runs it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Node's arguments that run the `svc` command from source (then come the command's). Absolute,
 * so the command runs from any working directory.
 */
export const SVC = [
  '--import',
  import.meta.resolve('tsx'),
  path.join(ROOT, 'src/cli/main.ts'),
] as const;

let emptyDir: string | null = null;

/**
 * The working directory of the commands the tests run: an empty one of this test process, so a
 * developer's `.env` in the repository never reaches a test (a test that wants one passes cwd).
 */
export function cliWorkingDir(): string {
  if (emptyDir === null) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cwd-'));
    emptyDir = dir;
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return emptyDir;
}

export interface RunOptions {
  /** The working directory (default: an empty one, cliWorkingDir()). */
  readonly cwd?: string;
  /** Written to the command's standard input, which is then closed. */
  readonly input?: string;
}

/** Runs `svc <args>` with exactly `env` and collects its exit code and output. */
export function runCli(
  env: NodeJS.ProcessEnv,
  args: readonly string[],
  options: RunOptions = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...SVC, ...args], {
      cwd: options.cwd ?? cliWorkingDir(),
      env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
