// The deliveries a harness run with bench/harness-adapter-webhooks.mjs left behind (issue 34:
// lag under saturation is acceptable, loss is not): on the run's database (SQLite, the harness's
// copy, e.g. /tmp/peers/data/run-svc-5-webhooks-10000.sqlite), counts what was delivered during
// the run, then serves it again (`svc serve`, no requests) with a fresh receiver
// (bench/webhook-receiver.mjs; the endpoints' URLs are pointed at it) and times the drain: until
// every change is fanned out and no delivery is pending. Then checks that every change after the
// first delivered one has a succeeded delivery to every endpoint.
//   npm run build && node bench/webhook-drain.mjs <run database> [--timeout-s 900]
import { fork, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const Database = createRequire(import.meta.url)('better-sqlite3');
const argv = process.argv.slice(2);
const file = argv[0];
const timeoutS = Number(argv[argv.indexOf('--timeout-s') + 1] || 900) || 900;
if (!file) throw new Error('usage: node bench/webhook-drain.mjs <run database>');

const db = new Database(file);
db.pragma('busy_timeout = 5000');
const counts = () => {
  const byStatus = Object.fromEntries(
    db
      .prepare('SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status')
      .all()
      .map((r) => [r.status, r.n]),
  );
  const endpoints = db.prepare("SELECT count(*) FROM webhooks WHERE active = 'Y'").pluck().get();
  const cursor = db.prepare("SELECT seq FROM webhook_cursors WHERE db = ''").pluck().get() ?? 0;
  const notFanned = db
    .prepare('SELECT count(*) FROM svc_changes WHERE seq > ?')
    .pluck()
    .get(cursor);
  return {
    succeeded: byStatus.succeeded ?? 0,
    pending: byStatus.pending ?? 0,
    dead: byStatus.dead ?? 0,
    notFanned,
    left: (byStatus.pending ?? 0) + notFanned * endpoints,
  };
};
const before = counts();
console.log(`left by the run: ${JSON.stringify(before)}`);

const receiver = fork(path.join(HERE, 'webhook-receiver.mjs'));
const replies = new Map();
receiver.on('message', (m) => replies.get(m.id)?.(m));
let asked = 0;
const ask = (q) =>
  new Promise((resolve) => {
    const id = ++asked;
    replies.set(id, resolve);
    receiver.send({ ...q, id });
  });
const { port } = await ask({ port: true });
db.prepare(
  "UPDATE webhooks SET url = 'http://127.0.0.1:' || ? || substr(url, instr(substr(url, 8), '/') + 7)",
).run(String(port));

const server = spawn(process.execPath, [path.join(HERE, '../dist/cli/main.js'), 'serve'], {
  env: {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(process.env.SVC_PORT || 3299),
    DATABASE_URL: `sqlite:${file}`,
    DATA_DIR: '/tmp/svc-bench/data', // the harness's: the endpoints' secrets are sealed under its app secret
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    WEBHOOKS_ALLOW_PRIVATE: 'true',
  },
  stdio: 'inherit',
});
const started = Date.now();
let after = before;
while (Date.now() - started < timeoutS * 1000) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  after = counts();
  if (after.left === 0) break;
}
const seconds = (Date.now() - started) / 1000;
const { received, arrived } = await ask({ stats: true });
server.kill('SIGTERM');
await new Promise((resolve) => server.once('exit', resolve));
receiver.kill();
const first = db.prepare('SELECT min(seq) FROM webhook_deliveries').pluck().get() ?? 0;
const expected =
  db
    .prepare("SELECT count(*) FROM svc_changes WHERE resource <> 'webhooks' AND seq >= ?")
    .pluck()
    .get(first) * db.prepare("SELECT count(*) FROM webhooks WHERE active = 'Y'").pluck().get();
const delivered = db
  .prepare(
    `SELECT count(*) FROM (SELECT DISTINCT webhook_id, seq FROM webhook_deliveries
     WHERE status = 'succeeded' AND event NOT LIKE 'webhooks.%' AND seq >= ?)`,
  )
  .pluck()
  .get(first);
const missing = expected - delivered;
console.log(
  `drain: ${before.left} left -> ${after.left} in ${seconds.toFixed(1)} s (from the server's start), ${received} deliveries received (${arrived} distinct), ${(received / seconds).toFixed(0)}/s; after: ${JSON.stringify(after)}; (change, endpoint) pairs since the first delivery: ${expected}, with a succeeded delivery: ${delivered}, missing: ${missing}`,
);
db.close();
