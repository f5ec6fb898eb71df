// What the real-time benchmarks (bench/realtime.mjs, bench/resource-changes.mjs) share: the
// compiled service with REALTIME_NOTIFICATIONS=true on a fresh SQLite data dir, its bounds lifted
// to the connections asked for (every client comes from 127.0.0.1), a Pusher socket subscribed
// to one private channel, the server's RSS and a latency summary.
import { execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './soak/server.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MAIN = path.join(ROOT, 'dist/cli/main.js');
const require = createRequire(path.join(ROOT, 'package.json'));
export const WebSocket = require('ws');
const KEY = 'svc-key';
const SECRET = 'bench-secret';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export const rssMiB = (pid) =>
  Number(
    execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
      .toString()
      .trim(),
  ) / 1024;

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The count, p50, p99 and max of latencies in ms, to two decimals. */
export function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v) => Math.round(v * 100) / 100;
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? NaN),
  };
}

/**
 * Starts `svc serve` from dist/ (on BENCH_PORT, or a free port: other benchmarks may hold fixed
 * ones) and resolves once /health answers. The server is stopped and its data dir removed when
 * the process exits.
 */
export async function startRealtimeServer({ connections, name }) {
  if (!fs.existsSync(MAIN)) {
    console.error('dist/ is missing: run `npm run build` first.');
    process.exit(2);
  }
  const port = Number(process.env.BENCH_PORT) || (await freePort());
  const base = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-bench-${name}-`));
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    ADMIN_PASSWORD: 'bench-admin-password',
    LOG_LEVEL: 'warn',
    REALTIME_NOTIFICATIONS: 'true',
    PUSHER_APP_SECRET: SECRET,
    REALTIME_MAX_CONNECTIONS: String(Math.max(connections, 500)),
    REALTIME_MAX_CONNECTIONS_PER_ADDRESS: String(Math.max(connections, 50)),
  };
  delete env.PUSHER_HOST;
  delete env.DATABASE_URL;
  const server = spawn(process.execPath, [MAIN, 'serve'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stop = () => {
    if (server.exitCode === null) server.kill('SIGTERM');
  };
  process.on('exit', () => {
    stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
    try {
      await fetch(`${base}/health`);
      break;
    } catch {
      if (i > 100) throw new Error('the server did not start');
      await sleep(100);
    }
  }
  return {
    port,
    base,
    dataDir,
    pid: server.pid,
    /** A bearer token of the admin's in unit Main with these abilities (`svc token:create`). */
    token: (abilities) =>
      execFileSync(
        process.execPath,
        [MAIN, 'token:create', 'admin', 'Main', '--name=bench', `--abilities=${abilities}`],
        { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] },
      )
        .toString()
        .trim(),
    /** Stops the server and resolves once it has exited. */
    async stop() {
      stop();
      await new Promise((resolve) =>
        server.exitCode !== null ? resolve() : server.once('exit', resolve),
      );
    },
  };
}

/**
 * A Pusher socket on the server at `port`, subscribed to the private `channel` (signed as
 * POST /broadcasting/auth signs it, with `channelData` when given); resolves once subscribed.
 * `onEvent(event, data, arrived)` gets every other event with its arrival time.
 */
export function subscribe(port, channel, { channelData, onEvent, onClose = () => {} }) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/app/${KEY}?protocol=7&client=bench&version=1`);
    ws.on('message', (raw) => {
      const arrived = performance.now();
      const frame = JSON.parse(String(raw));
      if (frame.event === 'pusher:connection_established') {
        const socketId = JSON.parse(frame.data).socket_id;
        const signed = [socketId, channel, ...(channelData ? [channelData] : [])].join(':');
        const auth = `${KEY}:${createHmac('sha256', SECRET).update(signed).digest('hex')}`;
        const data = { channel, auth, ...(channelData ? { channel_data: channelData } : {}) };
        ws.send(JSON.stringify({ event: 'pusher:subscribe', data }));
      } else if (frame.event === 'pusher_internal:subscription_succeeded') {
        resolve(ws);
      } else if (frame.event === 'pusher:subscription_error') {
        reject(new Error(JSON.stringify(frame)));
      } else if (frame.event === 'pusher:ping') {
        ws.send('{"event":"pusher:pong","data":{}}');
      } else {
        const data = typeof frame.data === 'string' ? JSON.parse(frame.data) : frame.data;
        onEvent(frame.event, data, arrived);
      }
    });
    ws.once('error', reject);
    ws.once('close', onClose);
  });
}
