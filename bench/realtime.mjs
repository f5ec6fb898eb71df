// Real-time benchmark (issue 5; not a timed test): the compiled service with
// REALTIME_NOTIFICATIONS=true holds CONNECTIONS WebSocket connections (one per user, each
// subscribed to its own private-notifications.{id}) for DURATION seconds while notifications are
// sent through POST /api/notifications. Reports the send-to-receive latency (from just before the
// POST to the event arriving on the recipient's socket), the POST latency, and the server's
// resident memory before and while holding the connections.
//
//   npm run build && node bench/realtime.mjs
//   CONNECTIONS=1000 DURATION=60 RATE=20 BROADCAST_EVERY=10 node bench/realtime.mjs
//
// RATE single-recipient sends per second; every BROADCAST_EVERY seconds one notification goes to
// all CONNECTIONS users at once (one request, CONNECTIONS records and events), reported apart.
import { execFileSync, spawn } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'package.json'));
const WebSocket = require('ws');
const Database = require('better-sqlite3');

const CONNECTIONS = Number(process.env.CONNECTIONS || 1000);
const DURATION = Number(process.env.DURATION || 60);
const RATE = Number(process.env.RATE || 20);
const BROADCAST_EVERY = Number(process.env.BROADCAST_EVERY || 10);
// A free port unless told (other benchmarks may hold fixed ones).
const PORT = Number(process.env.BENCH_PORT) || (await freePort());
const KEY = 'svc-key';
const SECRET = 'bench-secret';
const BASE = `http://127.0.0.1:${PORT}`;

const MAIN = path.join(ROOT, 'dist/cli/main.js');
if (!fs.existsSync(MAIN)) {
  console.error('dist/ is missing: run `npm run build` first.');
  process.exit(2);
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-realtime-'));
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  HOST: '127.0.0.1',
  PORT: String(PORT),
  ADMIN_PASSWORD: 'bench-admin-password',
  LOG_LEVEL: 'warn',
  REALTIME_NOTIFICATIONS: 'true',
  PUSHER_APP_SECRET: SECRET,
  // Every client comes from 127.0.0.1: the bounds are lifted to the load asked for.
  REALTIME_MAX_CONNECTIONS: String(Math.max(CONNECTIONS, 500)),
  REALTIME_MAX_CONNECTIONS_PER_ADDRESS: String(Math.max(CONNECTIONS, 50)),
};
delete env.PUSHER_HOST;
delete env.DATABASE_URL;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const rssMiB = (pid) =>
  Number(
    execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
      .toString()
      .trim(),
  ) / 1024;
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (v) => Math.round(v * 100) / 100;
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? NaN),
  };
};

// ---- the server ------------------------------------------------------------------------------
const server = spawn(process.execPath, [MAIN, 'serve'], {
  cwd: ROOT,
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});
const stopServer = () => {
  if (server.exitCode === null) server.kill('SIGTERM');
};
process.on('exit', () => {
  stopServer();
  fs.rmSync(dataDir, { recursive: true, force: true });
});
for (let i = 0; ; i++) {
  if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
  try {
    await fetch(`${BASE}/app/session`);
    break;
  } catch {
    if (i > 100) throw new Error('the server did not start');
    await sleep(100);
  }
}

// ---- users (straight into the database: set-up, not what is measured) and a token --------------
const db = new Database(path.join(dataDir, 'svc.sqlite'));
db.pragma('busy_timeout = 5000');
const now = new Date().toISOString();
const insertUser = db.prepare(
  "INSERT INTO users (login, name, email, password_hash, admin, active, created_at, updated_at) VALUES (?, ?, ?, 'x', 'N', 'Y', ?, ?)",
);
const userIds = db.transaction(() =>
  Array.from({ length: CONNECTIONS }, (_, i) =>
    Number(
      insertUser.run(`bench${i}`, `Bench ${i}`, `bench${i}@example.test`, now, now).lastInsertRowid,
    ),
  ),
)();
db.close();
const token = execFileSync(
  process.execPath,
  [MAIN, 'token:create', 'admin', 'Main', '--name=bench', '--abilities=notifications.send'],
  { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'ignore'] },
)
  .toString()
  .trim();

const rssIdle = rssMiB(server.pid);

// ---- the connections ---------------------------------------------------------------------------
const sentAt = new Map(); // title -> performance.now() before the POST
const singleLatencies = [];
const broadcastLatencies = [];
let received = 0;
let closedEarly = 0;
let holding = true;

function connect(userId) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${PORT}/app/${KEY}?protocol=7&client=bench&version=1`);
    const channel = `private-notifications.${userId}`;
    ws.on('message', (raw) => {
      const frame = JSON.parse(String(raw));
      if (frame.event === 'pusher:connection_established') {
        const socketId = JSON.parse(frame.data).socket_id;
        const auth = `${KEY}:${createHmac('sha256', SECRET).update(`${socketId}:${channel}`).digest('hex')}`;
        ws.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel, auth } }));
      } else if (frame.event === 'pusher_internal:subscription_succeeded') {
        resolve(ws);
      } else if (frame.event === 'pusher:subscription_error') {
        reject(new Error(JSON.stringify(frame)));
      } else if (frame.event === 'pusher:ping') {
        ws.send('{"event":"pusher:pong","data":{}}');
      } else if (frame.event === 'SvcNotificationReceived') {
        const arrived = performance.now();
        const { title } = JSON.parse(frame.data);
        const started = sentAt.get(title);
        received += 1;
        if (started === undefined) return;
        (title.startsWith('all ') ? broadcastLatencies : singleLatencies).push(arrived - started);
      }
    });
    ws.once('error', reject);
    ws.once('close', () => {
      if (holding) closedEarly += 1;
    });
  });
}

const connectStarted = performance.now();
const sockets = [];
for (let i = 0; i < CONNECTIONS; i += 100)
  sockets.push(...(await Promise.all(userIds.slice(i, i + 100).map(connect))));
const connectSeconds = (performance.now() - connectStarted) / 1000;
await sleep(1000);
const rssConnected = rssMiB(server.pid);

// ---- the sends ---------------------------------------------------------------------------------
const postLatencies = [];
const broadcastPostLatencies = [];
let failures = 0;
async function send(to, title, latencies) {
  sentAt.set(title, performance.now());
  const started = performance.now();
  const response = await fetch(`${BASE}/api/notifications`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      to,
      title,
      message: 'Benchmark notification',
      level: 'info',
      action: { kind: 'navigate', url: '/bench' },
    }),
  });
  await response.arrayBuffer();
  latencies.push(performance.now() - started);
  if (response.status !== 201) failures += 1;
}

const rssSamples = [];
const sampler = setInterval(() => rssSamples.push(rssMiB(server.pid)), 1000);
const pending = [];
const started = performance.now();
let sent = 0;
let broadcasts = 0;
let nextBroadcast = BROADCAST_EVERY > 0 ? BROADCAST_EVERY * 1000 : Infinity;
while (performance.now() - started < DURATION * 1000) {
  const elapsed = performance.now() - started;
  if (elapsed >= nextBroadcast) {
    nextBroadcast += BROADCAST_EVERY * 1000;
    broadcasts += 1;
    pending.push(send(userIds, `all ${randomUUID()}`, broadcastPostLatencies));
  }
  const to = userIds[Math.floor(Math.random() * userIds.length)];
  pending.push(send(to, `one ${randomUUID()}`, postLatencies).catch(() => (failures += 1)));
  sent += 1;
  // Paced on the schedule, not on the answers: a slow answer does not slow the offered rate.
  const due = started + (sent * 1000) / RATE;
  await sleep(Math.max(0, due - performance.now()));
}
await Promise.all(pending);
await sleep(1000);
clearInterval(sampler);
holding = false;
const expected = sent + broadcasts * CONNECTIONS;

const report = {
  command: `CONNECTIONS=${CONNECTIONS} DURATION=${DURATION} RATE=${RATE} BROADCAST_EVERY=${BROADCAST_EVERY} node bench/realtime.mjs`,
  node: process.version,
  cpus: os.cpus().length,
  // Other work on the machine skews the latencies: the 1-minute load average at the end.
  load_average_1m: Math.round(os.loadavg()[0] * 100) / 100,
  connections: {
    held: sockets.filter((s) => s.readyState === WebSocket.OPEN).length,
    closed_early: closedEarly,
    connect_seconds: Math.round(connectSeconds * 100) / 100,
  },
  sends: {
    single: sent,
    broadcasts,
    failures,
    events_expected: expected,
    events_received: received,
  },
  send_to_receive_ms: summary(singleLatencies),
  post_ms: summary(postLatencies),
  broadcast_to_all: {
    send_to_receive_ms: summary(broadcastLatencies),
    post_ms: summary(broadcastPostLatencies),
  },
  server_rss_mib: {
    idle: Math.round(rssIdle),
    with_connections: Math.round(rssConnected),
    per_connection_kib: Math.round(((rssConnected - rssIdle) * 1024) / CONNECTIONS),
    max_during_sends: Math.round(Math.max(...rssSamples)),
  },
};
console.log(JSON.stringify(report, null, 2));
for (const ws of sockets) ws.terminate();
stopServer();
await new Promise((resolve) =>
  server.exitCode !== null ? resolve() : server.once('exit', resolve),
);
process.exit(failures > 0 || closedEarly > 0 || received < expected ? 1 : 0);
