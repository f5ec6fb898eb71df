// Webhook deliveries (issue 34, docs/performance.md "Webhooks"): one svc instance in this
// process with --endpoints endpoints (every one subscribed to import-templates.*) on a local
// receiver (node:http, also in this process), then
//   warm-up     --rate creates per second for --warmup seconds, not counted
//   latency     --rate creates per second for --seconds: the time from each change's commit
//               (its `at`) to the first arrival of its delivery at each endpoint, p50 / p99
//   throughput  --backlog creates as fast as 8 clients go: deliveries received per second, from
//               the first to the last
//   drain       the receiver closed, --backlog creates as fast as 8 clients go, then the
//               receiver opened again: deliveries received per second from then to the last (what
//               one instance sustains, without the creates' own cost)
//   npx tsx bench/webhook-delivery.ts [--url postgres://...] [--endpoints 5] [--rate 100]
//     [--seconds 10] [--backlog 2000] [--warmup 3] [--verbose]
// Without --url: a fresh SQLite database in a temporary DATA_DIR. The receiver is a process of
// its own (bench/webhook-receiver.mjs); the clients that write share svc's event loop.
// --verbose: each second, the writes answered, the deliveries received and those pending.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
const warmup = Number(arg('warmup', '3'));
const url = arg('url', '');

// The receiver: a process of its own (bench/webhook-receiver.mjs).
const receiver = fork(fileURLToPath(new URL('./webhook-receiver.mjs', import.meta.url)));
type Message = Record<string, unknown>;
const replies = new Map<number, (message: Message) => void>();
let asked = 0;
receiver.on('message', (message: Message) => {
  replies.get(Number(message.id))?.(message);
  replies.delete(Number(message.id));
});
const ask = (message: Message) =>
  new Promise<Message>((resolve) => {
    const id = ++asked;
    replies.set(id, resolve);
    receiver.send({ ...message, id });
  });
const receiverPort = Number((await ask({ port: true })).port);
const hookUrl = `http://127.0.0.1:${receiverPort}/hook`;
const stats = async () => (await ask({ stats: true })) as { arrived: number; received: number };
let answered = 0;

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
  // WEBHOOKS_BUSY_SHARE=100: the worker never held back while the writes keep the loop busy.
  ...(process.env.WEBHOOKS_BUSY_SHARE ? { WEBHOOKS_BUSY_SHARE: process.env.WEBHOOKS_BUSY_SHARE } : {}),
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
  answered += 1;
  if (response.status !== 201) throw new Error(`${target}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: number };
};
for (let e = 0; e < endpoints; e++)
  await send('/api/webhooks', { url: `${hookUrl}?e=${e}`, events: ['import-templates.*'] });
let n = 0;
const create = () => send('/api/import-templates', { title: `hook ${n++}`, database_name: 'x', mapping_json: '{}' });

const settle = async (expected: number) => {
  const deadline = Date.now() + 120_000;
  while ((await stats()).arrived < expected && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
};
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

// --verbose: each second, the writes answered, the deliveries received and those pending.
let progress: NodeJS.Timeout | undefined;
if (argv.includes('--verbose')) {
  const started = Date.now();
  progress = setInterval(async () => {
    const [pending] = await service.database.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('status', '=', 'pending')
      .execute();
    console.error(
      `${((Date.now() - started) / 1000).toFixed(0)} s: ${answered} writes answered, ${(await stats()).received} deliveries received, ${pending?.n} pending`,
    );
  }, 1000).unref();
}

/** `count` creates at `rate` per second, each answered. */
const steady = async (count: number) => {
  const start = Date.now();
  const writes: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    writes.push(create());
  }
  await Promise.all(writes);
};

// Warm-up (JIT, connections, tsx's compiling): --warmup seconds at the rate, not counted.
await steady(rate * warmup);
await settle(rate * warmup * endpoints);
await ask({ reset: true });

// Latency at a steady rate.
const total = rate * (seconds + warmup);
await steady(rate * seconds);
await settle(rate * seconds * endpoints);
const latencies = (await ask({ latencies: true })).latencies as number[];
console.log(
  `latency  ${rate} writes/s x ${seconds} s, ${endpoints} endpoints: ${latencies.length} deliveries, commit to first arrival p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms, max ${latencies.at(-1)} ms`,
);

// Throughput with a backlog.
const { arrived: before, received: receivedBefore } = await stats();
const t0 = Date.now();
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (n < total + backlog) await create();
  }),
);
await settle(before + backlog * endpoints);
const took = (Date.now() - t0) / 1000;
const after = await stats();
console.log(
  `throughput  ${backlog} creates as fast as 8 clients go, ${endpoints} endpoints: ${after.arrived - before} deliveries (${after.received - receivedBefore} requests) in ${took.toFixed(1)} s = ${Math.round((after.arrived - before) / took)} per second`,
);
// Drain: a backlog waiting for the receiver.
await ask({ close: true });
const drainBefore = after.arrived;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (n < total + 2 * backlog) await create();
  }),
);
const t1 = Date.now();
await ask({ open: true });
await settle(drainBefore + backlog * endpoints);
const drained = (Date.now() - t1) / 1000;
const last = await stats();
console.log(
  `drain  ${backlog} creates waiting for the receiver, ${endpoints} endpoints: ${last.arrived - drainBefore} deliveries in ${drained.toFixed(1)} s = ${Math.round((last.arrived - drainBefore) / drained)} per second`,
);
clearInterval(progress);
await service.close();
receiver.send({ exit: true });
fs.rmSync(dataDir, { recursive: true, force: true });
