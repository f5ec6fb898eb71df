// Stopping `npm start` stops the server (issue 20): npm runs `sh -c "node dist/cli/main.js
// serve"`, and a SIGTERM or SIGINT to npm's PID used to leave the node process orphaned and
// listening. The real `npm start` (with its build) is spawned, its PID signalled, and the port
// must close.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { sqlitePassOnly } from '../helpers/engines.js';
import { ADMIN_PASSWORD } from '../helpers/test-server.js';

const skip = sqlitePassOnly(
  'every `svc serve` here runs on a SQLite file in DATA_DIR whatever the engine: run in the SQLite pass only',
);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function until(what: string, check: () => Promise<boolean>, ms: number, log: () => string) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${ms} ms waiting for ${what}\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('npm start', { skip, concurrency: 1 }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-npm-start-'));
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (args: string[], detached: boolean) => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['DATABASE_URL', 'DB_CONNECTIONS', 'WORKERS', 'HOST', 'REDIS_URL'])
      delete env[name];
    const npm = spawn('npm', ['start', ...args], {
      cwd: ROOT,
      env: { ...env, PORT: String(port), DATA_DIR: dataDir, ADMIN_PASSWORD, LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, as a terminal gives a foreground job (Ctrl+C signals the group).
      detached,
    });
    children.push(npm);
    let output = '';
    npm.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    npm.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    // The first start builds (prestart) before it serves.
    await until(
      'the server to listen',
      () => accepts(port),
      240_000,
      () => output,
    );
    return { npm, port, output: () => output };
  };

  it('SIGTERM to the PID of npm start stops the server: the port closes', async () => {
    const { npm, port, output } = await start([], false);
    assert.ok(npm.pid);
    process.kill(npm.pid, 'SIGTERM');
    await until('the port to close', async () => !(await accepts(port)), 15_000, output);
    await until(
      'the server to say it stopped',
      async () => /"msg":"stopped: /.test(output()),
      15_000,
      output,
    );
  });

  it('Ctrl+C (SIGINT to the process group of npm start) stops the server: the port closes', async () => {
    // Built by the first test: the start script alone.
    const { npm, port, output } = await start(['--ignore-scripts'], true);
    assert.ok(npm.pid);
    process.kill(-npm.pid, 'SIGINT');
    await until('the port to close', async () => !(await accepts(port)), 15_000, output);
    await until(
      'the server to say it stopped',
      async () => /"msg":"stopped: /.test(output()),
      15_000,
      output,
    );
  });
});
