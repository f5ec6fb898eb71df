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
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  ROOT,
  rssMiB,
  sleep,
  startRealtimeServer,
  subscribe,
  summary,
  WebSocket,
} from './realtime-server.mjs';

const Database = createRequire(path.join(ROOT, 'package.json'))('better-sqlite3');

const CONNECTIONS = Number(process.env.CONNECTIONS || 1000);
const DURATION = Number(process.env.DURATION || 60);
const RATE = Number(process.env.RATE || 20);
const BROADCAST_EVERY = Number(process.env.BROADCAST_EVERY || 10);

const server = await startRealtimeServer({ connections: CONNECTIONS, name: 'realtime' });
const BASE = server.base;

// ---- users (straight into the database: set-up, not what is measured) and a token --------------
const db = new Database(path.join(server.dataDir, 'svc.sqlite'));
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
const token = server.token('notifications.send');

const rssIdle = rssMiB(server.pid);

// ---- the connections ---------------------------------------------------------------------------
const sentAt = new Map(); // title -> performance.now() before the POST
const singleLatencies = [];
const broadcastLatencies = [];
let received = 0;
let closedEarly = 0;
let holding = true;

function connect(userId) {
  return subscribe(server.port, `private-notifications.${userId}`, {
    onEvent(event, data, arrived) {
      if (event !== 'SvcNotificationReceived') return;
      const started = sentAt.get(data.title);
      received += 1;
      if (started === undefined) return;
      (data.title.startsWith('all ') ? broadcastLatencies : singleLatencies).push(
        arrived - started,
      );
    },
    onClose() {
      if (holding) closedEarly += 1;
    },
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
await server.stop();
process.exit(failures > 0 || closedEarly > 0 || received < expected ? 1 : 0);
