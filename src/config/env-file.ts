// The `.env` file of the working directory (DESIGN.md 3.6), read by the server and every CLI
// command alike, the way Laravel's is: a variable set in the environment wins over the file.
// Node's own parser (util.parseEnv, the one behind `node --env-file`) reads the format.
import fs from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

export interface EnvFile {
  /** The file read, or null when the working directory has none. */
  readonly path: string | null;
  /** The variables the file set (those the environment did not already have). */
  readonly applied: readonly string[];
}

/** Adds the `.env` of `dir` to `env` for every variable `env` does not set yet. */
export function applyEnvFile(
  env: NodeJS.ProcessEnv = process.env,
  dir: string = process.cwd(),
): EnvFile {
  const file = path.join(dir, '.env');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path: null, applied: [] };
    throw error;
  }
  const applied: string[] = [];
  for (const [name, value] of Object.entries(parseEnv(text))) {
    if (value === undefined || env[name] !== undefined) continue;
    env[name] = value;
    applied.push(name);
  }
  return { path: file, applied };
}
