// Resource changes on real time (issue 32; not a timed test): the compiled service with
// REALTIME_NOTIFICATIONS=true holds CONNECTIONS WebSockets, each subscribed to
// private-resource.import-templates, while RATE updates per second go through the API for
// DURATION seconds. Reports, over every delivery to every socket:
//   at-to-socket     from the change's `at` (taken by the write before its statements, so an
//                    upper bound of commit-to-socket) to the frame's arrival; same machine clock
//   request-to-socket from just before the PATCH to the frame's arrival (includes the write)
// and the deliveries per second, the PATCH latency and the server's RSS.
//
//   npm run build && node bench/resource-changes.mjs
//   CONNECTIONS=1000 DURATION=20 RATE=20 node bench/resource-changes.mjs
import { execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'package.json'));
const WebSocket = require('ws');

const CONNECTIONS = Number(process.env.CONNECTIONS || 1000);
const DURATION = Number(process.env.DURATION || 20);
const RATE = Number(process.env.RATE || 20);
const KEY = 'svc-key';
const SECRET = 'bench-secret';
const CHANNEL = 'private-resource.import-templates';
// What POST /broadcasting/auth signs for import-templates without isolation: the main database,
// no unit or company condition.
const CHANNEL_DATA = JSON.stringify({ db: '', unit: null, company: null });

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
const PORT = Number(process.env.BENCH_PORT) || (await freePort());
const BASE = `http://127.0.0.1:${PORT}`;
const MAIN = path.join(ROOT, 'dist/cli/main.js');
if (!fs.existsSync(MAIN)) {
  console.error('dist/ is missing: run `npm run build` first.');
  process.exit(2);
}
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-changes-'));
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
function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  const round = (v) => Math.round(v * 100) / 100;
  return { n: sorted.length, p50: round(at(50)), p99: round(at(99)), max: round(sorted.at(-1)) };
}

const server = spawn(process.execPath, [MAIN, 'serve'], {
  cwd: ROOT,
  env,
  stdio: ['ignore', 'inherit', 'inherit'],
});
process.on('exit', () => {
  if (server.exitCode === null) server.kill('SIGTERM');
  fs.rmSync(dataDir, { recursive: true, force: true });
});
for (let i = 0; ; i++) {
  if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
  try {
    await fetch(`${BASE}/health`);
    break;
  } catch {
    if (i > 100) throw new Error('the server did not start');
    await sleep(100);
  }
}
const token = execFileSync(
  process.execPath,
  [
    MAIN,
    'token:create',
    'admin',
    'Main',
    '--name=bench',
    '--abilities=import-templates.read,import-templates.write',
  ],
  { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] },
)
  .toString()
  .trim();
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const created = await fetch(`${BASE}/api/import-templates`, {
  method: 'POST',
  headers,
  body: JSON.stringify({
    title: 'Live 0',
    code: 'LIVE',
    database_name: 'erp',
    mapping_json: '{}',
    csv_model_path: '/m.csv',
    import_mode: 'insert',
  }),
});
if (created.status !== 201) throw new Error(`create: ${created.status} ${await created.text()}`);
const { id } = await created.json();

const rssIdle = rssMiB(server.pid);
const sentAt = new Map(); // title -> performance.now() before the PATCH
const atToSocket = [];
const requestToSocket = [];
let deliveries = 0;
const origin = Date.now() - performance.now();

function connect() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${PORT}/app/${KEY}?protocol=7&client=bench&version=1`);
    ws.on('message', (raw) => {
      const frame = JSON.parse(String(raw));
      if (frame.event === 'pusher:connection_established') {
        const socketId = JSON.parse(frame.data).socket_id;
        const signed = `${socketId}:${CHANNEL}:${CHANNEL_DATA}`;
        const auth = `${KEY}:${createHmac('sha256', SECRET).update(signed).digest('hex')}`;
        ws.send(
          JSON.stringify({
            event: 'pusher:subscribe',
            data: { channel: CHANNEL, auth, channel_data: CHANNEL_DATA },
          }),
        );
      } else if (frame.event === 'pusher_internal:subscription_succeeded') {
        resolve(ws);
      } else if (frame.event === 'pusher:subscription_error') {
        reject(new Error(JSON.stringify(frame)));
      } else if (frame.event === 'pusher:ping') {
        ws.send('{"event":"pusher:pong","data":{}}');
      } else if (frame.event === 'SvcResourceChanged') {
        const arrived = performance.now();
        const change = JSON.parse(frame.data);
        deliveries += 1;
        atToSocket.push(origin + arrived - Date.parse(change.at));
        const started = sentAt.get(change.changes.fields?.title);
        if (started !== undefined) requestToSocket.push(arrived - started);
      }
    });
    ws.once('error', reject);
  });
}
const sockets = [];
for (let i = 0; i < CONNECTIONS; i += 100)
  sockets.push(
    ...(await Promise.all(Array.from({ length: Math.min(100, CONNECTIONS - i) }, connect))),
  );
await sleep(500);
const rssConnected = rssMiB(server.pid);

const patchLatencies = [];
let failures = 0;
const started = performance.now();
let n = 0;
while (performance.now() - started < DURATION * 1000) {
  const title = `Live ${++n}`;
  const t0 = performance.now();
  sentAt.set(title, t0);
  const response = await fetch(`${BASE}/api/import-templates/${id}`, {
    method: 'PATCH',
    headers,
    body: JSON.stringify({ title }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) failures += 1;
  patchLatencies.push(performance.now() - t0);
  const next = started + (n * 1000) / RATE;
  const wait = next - performance.now();
  if (wait > 0) await sleep(wait);
}
await sleep(1500);
const seconds = (performance.now() - started) / 1000;
const rssLoaded = rssMiB(server.pid);
for (const ws of sockets) ws.close();

const expected = n * CONNECTIONS;
console.log(
  JSON.stringify(
    {
      connections: CONNECTIONS,
      updates: n,
      rate: RATE,
      failures,
      deliveries,
      missing: expected - deliveries,
      deliveriesPerSecond: Math.round(deliveries / seconds),
      atToSocketMs: summary(atToSocket),
      requestToSocketMs: summary(requestToSocket),
      patchMs: summary(patchLatencies),
      rssMiB: {
        idle: Math.round(rssIdle),
        connected: Math.round(rssConnected),
        loaded: Math.round(rssLoaded),
      },
    },
    null,
    2,
  ),
);
process.exit(0);
