// `svc serve` with SVC_BENCH_WEBHOOKS active webhook endpoints receiving every change (issue 34:
// C1/U1 in the shared harness "with 5 active endpoints receiving"), started by
// bench/harness-adapter.mjs in place of `svc serve`. This process is the server, so the harness
// reads svc's own CPU and memory; the receiver (bench/webhook-receiver.mjs, 204 to each
// delivery) is a process of its own. The endpoints are registered through the API with the
// admin's token (made by `svc token:create`) once the server answers, and subscribe to `*`.
//   SVC_BENCH_WEBHOOKS=5 node ../shared/bench/run-all.mjs --servers ceiling,$PWD/bench/harness-adapter.mjs
import { execFileSync, fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const endpoints = Number(process.env.SVC_BENCH_WEBHOOKS);
const base = `http://127.0.0.1:${process.env.PORT}`;
const main = path.join(HERE, '../dist/cli/main.js');

const receiver = fork(path.join(HERE, 'webhook-receiver.mjs'), [], { stdio: 'inherit' });
const asked = new Map();
receiver.on('message', (message) => asked.get(message.id)?.(message));
const ask = (id, question) =>
  new Promise((resolve) => {
    asked.set(id, resolve);
    receiver.send({ id, ...question });
  });
const { port } = await ask(1, { port: true });
// What has arrived, in the server's log every 2 s while it grows.
let logged = -1;
let asks = 2;
setInterval(async () => {
  const stats = await ask(asks++, { stats: true });
  if (stats.received === logged) return;
  logged = stats.received;
  console.log(`webhook receiver: ${stats.received} deliveries, ${stats.arrived} distinct`);
}, 2000).unref();
process.once('exit', () => receiver.kill());

// The server itself, in this process.
process.argv = [process.argv[0], main, 'serve'];
await import(main);

// The harness's token may only read and write import templates: an admin of its own, in unit 1.
const cli = (...args) =>
  execFileSync(process.execPath, [main, ...args], { encoding: 'utf8', stdio: 'pipe' }).trim();
cli('user:create', 'bench-admin', '--name=Bench admin', '--password=bench-admin-1', '--admin');
cli('unit:attach', 'bench-admin', '1');
const token = cli(
  'token:create',
  'bench-admin',
  '1',
  '--name=bench webhooks',
  '--abilities=webhooks.write',
);
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
for (let tries = 0; ; tries++) {
  const ready = await fetch(`${base}/ready`).catch(() => null);
  if (ready?.ok) break;
  if (tries > 600) throw new Error('svc did not become ready');
  await new Promise((resolve) => setTimeout(resolve, 100));
}
for (let i = 1; i <= endpoints; i++) {
  const reply = await fetch(`${base}/api/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ url: `http://127.0.0.1:${port}/endpoint-${i}`, events: ['*'] }),
  });
  if (reply.status !== 201) throw new Error(`webhook ${i}: ${reply.status} ${await reply.text()}`);
}
// The endpoints are the bench admin's company's (1), and so are C1's templates, but the
// dataset's templates, which U1 updates, have no company: the worker gives an endpoint with a
// company only that company's changes (also outside TENANT_ISOLATION), so U1 would deliver
// nothing. On SQLite the endpoints are made the company-less that receive every change.
if (process.env.DATABASE_URL?.startsWith('sqlite:')) {
  const { createRequire } = await import('node:module');
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const db = new Database(process.env.DATABASE_URL.slice('sqlite:'.length));
  db.pragma('busy_timeout = 5000');
  db.prepare('UPDATE webhooks SET company_id = NULL').run();
  db.close();
}
