// `svc serve --workers N` (node:cluster), a real process tree: the primary migrates and
// bootstraps once, N workers share one port and answer requests, a worker that dies is replaced,
// SIGTERM stops the pool gracefully, and a bad N is refused with exit 2.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { connectDatabase } from '../../src/database/connect.js';
import { type Run, runCli } from '../helpers/cli.js';
import { sqlitePassOnly } from '../helpers/engines.js';
import { assertJson, httpRequest } from '../helpers/http.js';
import { ServeProcess } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD } from '../helpers/test-server.js';

const skip = sqlitePassOnly(
  'every `svc serve` here runs on a SQLite file in DATA_DIR whatever the engine: run in the SQLite pass only',
);

/** The pids of the workers the primary started and that have not exited, from its log. */
function liveWorkers(pool: ServeProcess): number[] {
  const gone = new Set(
    pool.lines
      .filter((l) => l.pid === pool.pid && l.msg.startsWith('worker') && l.msg !== 'worker started')
      .map((l) => l.worker),
  );
  return pool
    .logged('worker started')
    .filter((l) => l.pid === pool.pid && !gone.has(l.worker))
    .map((l) => Number(l.worker));
}

/** A kept-alive connection that has been answered one GET /health; resolves with the socket. */
function answeredConnection(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'),
    );
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.endsWith('{"status":"ok"}')) resolve(socket);
    });
    socket.on('error', reject);
  });
}

/**
 * Which process holds the server side of the connection from local port `clientPort` to `port`
 * (Linux: /proc/net/tcp gives the socket's inode, /proc/<pid>/fd the processes holding it).
 */
function ownerOf(port: number, clientPort: number, pids: readonly number[]): number | undefined {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
  const row = fs
    .readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .find((f) => f[1]?.endsWith(`:${hex(port)}`) && f[2]?.endsWith(`:${hex(clientPort)}`));
  const inode = row?.[9];
  if (!inode) return undefined;
  return pids.find((pid) =>
    fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
      } catch {
        return false;
      }
    }),
  );
}

describe('svc serve --workers 2', { skip }, () => {
  let pool: ServeProcess;
  let port = 0;
  before(async () => {
    pool = await ServeProcess.start(['--workers', '2']);
    port = Number(new URL(pool.url).port);
  });
  after(() => pool.dispose());

  it('the primary migrates and runs the first-start bootstrap once, then two workers listen on one port', async () => {
    const firstStart = pool.lines.filter((l) => l.msg.startsWith('First start'));
    assert.deepStrictEqual(
      firstStart.map((l) => l.pid),
      [pool.pid],
    );
    const workers = liveWorkers(pool);
    assert.equal(workers.length, 2);
    for (const worker of workers) {
      assert.equal(
        (
          await pool.waitFor(
            `worker ${worker} listening`,
            (l) => l.pid === worker && l.msg.startsWith('Server listening at '),
          )
        ).msg,
        `Server listening at ${pool.url}`,
      );
    }
    const login = await httpRequest(pool.url, 'POST', '/app/login', {
      body: { login: 'admin', password: ADMIN_PASSWORD },
    });
    assertJson(login, 200);
  });

  it('requests are answered by both workers', {
    skip: process.platform === 'linux' ? false : 'reads /proc',
  }, async () => {
    const workers = liveWorkers(pool);
    const connections: net.Socket[] = [];
    try {
      const owners = new Set<number | undefined>();
      for (let i = 0; i < 10 && owners.size < 2; i++) {
        const socket = await answeredConnection(port);
        connections.push(socket);
        owners.add(ownerOf(port, socket.localPort ?? 0, workers));
      }
      assert.deepStrictEqual([...owners].sort(), [...workers].sort());
    } finally {
      for (const socket of connections) socket.destroy();
    }
  });

  it('a worker that dies is replaced by a new one, with a log line, and the pool keeps answering', async () => {
    const [victim, survivor] = liveWorkers(pool);
    assert.ok(victim && survivor);
    process.kill(victim, 'SIGKILL');
    const died = await pool.waitFor(
      'the primary to see the worker die',
      (l) => l.pid === pool.pid && l.worker === victim && l.msg.startsWith('worker exited'),
    );
    assert.deepStrictEqual(
      [died.level, died.msg, died.signal],
      [40, 'worker exited unexpectedly; starting a new one', 'SIGKILL'],
    );
    const started = await pool.waitFor(
      'a new worker',
      (l) =>
        l.pid === pool.pid &&
        l.msg === 'worker started' &&
        l.worker !== victim &&
        l.worker !== survivor,
    );
    const replacement = Number(started.worker);
    assert.deepStrictEqual(liveWorkers(pool).sort(), [survivor, replacement].sort());
    await pool.waitFor(
      'the new worker listening',
      (l) => l.pid === replacement && l.msg.startsWith('Server listening at '),
    );
    for (let i = 0; i < 4; i++) assertJson(await httpRequest(pool.url, 'GET', '/ready'), 200);
  });

  it('SIGTERM on the primary stops every worker gracefully and the primary exits 0', async () => {
    const workers = liveWorkers(pool);
    pool.signal('SIGTERM');
    assert.deepStrictEqual(await pool.exited, { code: 0, signal: null });
    for (const worker of workers) {
      assert.ok(
        pool.lines.some((l) => l.pid === worker && l.msg.startsWith('stopped:')),
        `worker ${worker} finished its shutdown`,
      );
      assert.ok(
        pool.lines.some(
          (l) =>
            l.pid === pool.pid && l.worker === worker && l.msg === 'worker stopped' && l.code === 0,
        ),
        `worker ${worker} exited 0`,
      );
    }
    // One admin, made once by the primary, however many processes started.
    const database = connectDatabase(
      `sqlite:${path.join(pool.dataDir, 'svc.sqlite')}`,
      loadConfig({ DATA_DIR: pool.dataDir }),
    );
    try {
      assert.deepStrictEqual(await database.db.selectFrom('users').select('login').execute(), [
        { login: 'admin' },
      ]);
    } finally {
      await database.close();
    }
  });
});

describe('svc serve --workers when the workers cannot start', { skip }, () => {
  it('a pool whose workers die before listening (port taken) stops with exit 1 instead of restarting them', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const pool = ServeProcess.launch(['--workers', '2'], {
      PORT: String(typeof address === 'object' && address ? address.port : 0),
    });
    try {
      assert.deepStrictEqual(await pool.exited, { code: 1, signal: null });
      assert.ok(pool.logged('worker exited before it was listening; stopping').length >= 1);
      assert.equal(pool.logged('worker started').length, 2, 'no worker was started again');
      assert.match(pool.stderr, /EADDRINUSE/);
    } finally {
      taken.close();
      await pool.dispose();
    }
  });
});

describe('svc serve: what --workers refuses', { skip, concurrency: true }, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-workers-test-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const serve = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
    runCli({ ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', ...env }, [
      'serve',
      ...args,
    ]);
  const refused = (run: Run, message: RegExp) => {
    assert.equal(run.code, 2, `exit ${run.code}, stderr ${run.stderr}`);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, message);
  };

  for (const value of ['0', '-1', '1.5', 'two']) {
    it(`refuses --workers=${value} with exit 2 and a message`, async () => {
      refused(
        await serve([`--workers=${value}`]),
        new RegExp(
          `^svc: --workers must be a whole number from 1 to 256, got "${value.replace('.', '\\.')}"\\n$`,
        ),
      );
    });
  }

  it('refuses --workers without a number with exit 2', async () => {
    refused(await serve(['--workers']), /--workers/);
  });

  it('refuses WORKERS=0 with exit 2 and a message', async () => {
    refused(
      await serve([], { WORKERS: '0' }),
      /^svc: WORKERS must be an integer between 1 and 256, got "0"\n$/,
    );
  });

  it("refuses workers without REDIS_URL with the embedded real-time server, whose pushes would reach one worker's clients only (exit 2)", async () => {
    refused(
      await serve(['--workers=2'], { REALTIME_NOTIFICATIONS: 'true' }),
      /--workers with REALTIME_NOTIFICATIONS=true needs REDIS_URL or PUSHER_HOST/,
    );
  });

  it('refuses workers without REDIS_URL with the signed-request driver, whose used nonces would not be shared (exit 2)', async () => {
    refused(
      await serve(['--workers=2'], {
        REST_DRIVER_ENABLED: 'true',
        REST_DRIVER_SECRET: 'x'.repeat(32),
      }),
      /--workers with REST_DRIVER_ENABLED=true needs REDIS_URL/,
    );
  });
});
