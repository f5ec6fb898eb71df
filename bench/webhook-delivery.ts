// Webhook deliveries (issue 34, docs/performance.md "Webhooks"): one svc instance in this
// process with --endpoints endpoints (every one subscribed to import-templates.*) on a local
// receiver (node:http, also in this process), then
//   latency     --rate creates per second for --seconds: the time from each change's commit
//               (its `at`) to the first arrival of its delivery at each endpoint, p50 / p99
//   throughput  --backlog creates as fast as 8 clients go: deliveries received per second, from
//               the first to the last
//   drain       the receiver closed, --backlog creates as fast as 8 clients go, then the
//               receiver opened again: deliveries received per second from then to the last (what
//               one instance sustains, without the creates' own cost)
//   npx tsx bench/webhook-delivery.ts [--url postgres://...] [--endpoints 5] [--rate 100]
//     [--seconds 10] [--backlog 2000]
// Without --url: a fresh SQLite database in a temporary DATA_DIR. The receiver shares the
// event loop with svc: the figures are an upper bound of what a separate receiver would see.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { grantableAbilities } from '../src/app/routes.js';
import { createToken } from '../src/auth/tokens/token-service.js';
import { loadConfig } from '../src/config/config.js';
import { startService } from '../src/service.js';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? (argv[i + 1] ?? fallback) : fallback;
};
const endpoints = Number(arg('endpoints', '5'));
const rate = Number(arg('rate', '100'));
const seconds = Number(arg('seconds', '10'));
const backlog = Number(arg('backlog', '2000'));
const url = arg('url', '');

/** First arrival (ms) per `<endpoint> <seq>`, and the commit time of each seq. */
const arrived = new Map<string, number>();
const committedAt = new Map<number, number>();
let received = 0;
const receiver = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const now = Date.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      data: { seq: number; at: string };
    };
    received += 1;
    const key = `${request.url} ${body.data.seq}`;
    if (!arrived.has(key)) arrived.set(key, now);
    committedAt.set(body.data.seq, Date.parse(body.data.at));
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverPort = (receiver.address() as AddressInfo).port;
const hookUrl = `http://127.0.0.1:${receiverPort}/hook`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-hooks-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  PORT: '0',
  LOG_LEVEL: 'silent',
  ADMIN_PASSWORD: 'bench-password',
  WEBHOOKS_ALLOW_PRIVATE: 'true',
  // The drain's backlog waits for the receiver: its retries come quickly once it is back.
  WEBHOOKS_RETRY_BASE_MS: '20',
  WEBHOOKS_RETRY_MAX_MS: '50',
  ...(url ? { DATABASE_URL: url } : {}),
});
const service = await startService(config, { logger: false });
await service.app.listen({ host: '127.0.0.1', port: 0 });
const base = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
const { token } = await createToken(service.database, grantableAbilities(), {
  userId: 1,
  unitId: 1,
  name: 'bench',
  abilities: grantableAbilities(),
  expiresAt: null,
});
const send = async (target: string, body: unknown) => {
  const response = await fetch(base + target, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`${target}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: number };
};
for (let e = 0; e < endpoints; e++)
  await send('/api/webhooks', { url: `${hookUrl}?e=${e}`, events: ['import-templates.*'] });
let n = 0;
const create = () => send('/api/import-templates', { title: `hook ${n++}`, database_name: 'x', mapping_json: '{}' });

const settle = async (expected: number) => {
  const deadline = Date.now() + 120_000;
  while (arrived.size < expected && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
};
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

// Latency at a steady rate.
const total = rate * seconds;
const start = Date.now();
const writes: Promise<unknown>[] = [];
for (let i = 0; i < total; i++) {
  const due = start + (i * 1000) / rate;
  const wait = due - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  writes.push(create());
}
await Promise.all(writes);
await settle(total * endpoints);
const latencies = [...arrived].map(([key, at]) => at - (committedAt.get(Number(key.split(' ')[1])) ?? at));
latencies.sort((a, b) => a - b);
console.log(
  `latency  ${rate} writes/s x ${seconds} s, ${endpoints} endpoints: ${latencies.length} deliveries, commit to first arrival p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms, max ${latencies.at(-1)} ms`,
);

// Throughput with a backlog.
const before = arrived.size;
const receivedBefore = received;
const t0 = Date.now();
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (n < total + backlog) await create();
  }),
);
await settle(before + backlog * endpoints);
const took = (Date.now() - t0) / 1000;
console.log(
  `throughput  ${backlog} creates as fast as 8 clients go, ${endpoints} endpoints: ${arrived.size - before} deliveries (${received - receivedBefore} requests) in ${took.toFixed(1)} s = ${Math.round((arrived.size - before) / took)} per second`,
);
// Drain: a backlog waiting for the receiver.
receiver.closeAllConnections();
await new Promise((resolve) => receiver.close(resolve));
const drainBefore = arrived.size;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (n < total + 2 * backlog) await create();
  }),
);
const t1 = Date.now();
await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
await settle(drainBefore + backlog * endpoints);
const drained = (Date.now() - t1) / 1000;
console.log(
  `drain  ${backlog} creates waiting for the receiver, ${endpoints} endpoints: ${arrived.size - drainBefore} deliveries in ${drained.toFixed(1)} s = ${Math.round((arrived.size - drainBefore) / drained)} per second`,
);
await service.close();
receiver.close();
fs.rmSync(dataDir, { recursive: true, force: true });
