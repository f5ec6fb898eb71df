// The set-up of the tests that run real `svc serve` processes over one database (a kill -9 and a
// restart, two instances): a fresh test database beside a DATA_DIR, and a bearer token of the
// first admin's issued by the CLI, as an operator would.
import assert from 'node:assert/strict';
import { bearer } from './bearer.js';
import { runCli } from './cli.js';
import { createTestDatabase, testEngine } from './engines.js';
import { httpRequest, type Reply } from './http.js';
import { ADMIN_PASSWORD } from './test-server.js';

export interface ServedDatabase {
  /** What every start of the server shares: the data, the first admin's password, the database. */
  readonly storage: Record<string, string>;
  /** The test's environment with the storage (no DATABASE_URL of its own on SQLite). */
  readonly env: NodeJS.ProcessEnv;
  /** A request to the server at `url` with the token. */
  send(url: string, method: string, target: string, body?: unknown): Promise<Reply>;
  /** Drops the database. */
  drop(): Promise<void>;
}

/** A database of the engine under test and a token (`token:create admin Main`) with `abilities`. */
export async function servedDatabase(
  dataDir: string,
  token: { readonly name: string; readonly abilities: readonly string[] },
): Promise<ServedDatabase> {
  const database = await createTestDatabase(testEngine);
  const storage: Record<string, string> = {
    DATA_DIR: dataDir,
    ADMIN_PASSWORD,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
  };
  const env: NodeJS.ProcessEnv = { ...process.env, ...storage };
  if (!database.url) delete env.DATABASE_URL;
  const issued = await runCli({ ...env, LOG_LEVEL: 'silent' }, [
    'token:create',
    'admin',
    'Main',
    `--name=${token.name}`,
    `--abilities=${token.abilities.join(',')}`,
  ]);
  assert.equal(issued.code, 0, issued.stderr);
  const auth = bearer(issued.stdout.trim());
  return {
    storage,
    env,
    send: (url, method, target, body) =>
      httpRequest(url, method, target, { headers: auth, ...(body === undefined ? {} : { body }) }),
    drop: () => database.drop(),
  };
}
