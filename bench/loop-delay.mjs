// Issue 19 item 2: does any request hold the others hostage? A server (from src/ through tsx,
// on a fresh SQLite database unless DATABASE_URL is set) is filled with the largest inputs the
// limits allow: BIG templates whose description fills BODY_LIMIT, and ROWS templates with
// maxDetailRows (1,000) group and user rows each. Then CONCURRENCY clients list them at
// per_page=200 for DURATION seconds while /health is asked every 50 ms. Reports the /health
// latency, the server's event-loop delay (p99, max: monitorEventLoopDelay, bench/loop-monitor.mjs)
// and its RSS, idle and under the load, as JSON. A /health request is sent every 50 ms whether
// or not the previous one was answered, so a stalled loop shows in every probe it delays.
// The list clients run in a thread of their own: reading 100 MB answers must not delay the
// probes. SERVER_NODE_ARGS adds node options to the server (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`).
//
//   node bench/loop-delay.mjs
//   BIG=100 ROWS=10 CONCURRENCY=10 DURATION=20 node bench/loop-delay.mjs
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/loop node bench/loop-delay.mjs
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { freePort } from './soak/server.mjs';

if (!isMainThread) {
  // The list clients: each asks for the page again as soon as it has read the last one.
  const { url, headers, concurrency } = workerData;
  let running = true;
  parentPort.once('message', () => {
    running = false;
  });
  const latencies = [];
  let bytes = 0;
  const client = async () => {
    while (running) {
      const started = performance.now();
      const reply = await fetch(url, { headers });
      let size = 0;
      for await (const chunk of reply.body) size += chunk.length;
      latencies.push(performance.now() - started);
      bytes = size;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  parentPort.postMessage({ latencies, bytes });
  // The main thread ends this thread; the rest of the file is the main thread's.
  await new Promise(() => {});
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIG = Number(process.env.BIG || 100);
const ROWS = Number(process.env.ROWS || 10);
const DETAIL_ROWS = Number(process.env.DETAIL_ROWS || 1000);
const CONCURRENCY = Number(process.env.CONCURRENCY || 10);
const DURATION = Number(process.env.DURATION || 20);
const BODY_LIMIT = 1024 * 1024;
const PASSWORD = 'bench-admin-password';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-loop-'));
const statsFile = path.join(dataDir, 'loop-stats.json');
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const server = spawn(
  process.execPath,
  [
    ...(process.env.SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean),
    '--import',
    'tsx',
    '--import',
    './bench/loop-monitor.mjs',
    'src/cli/main.ts',
    'serve',
  ],
  {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ADMIN_PASSWORD: PASSWORD,
      LOOP_STATS_FILE: statsFile,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  },
);
const exited = new Promise((resolve) => server.once('exit', resolve));
const stop = () => server.kill('SIGTERM');
process.on('exit', stop);

async function waitReady() {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start');
}

const stats = () => JSON.parse(fs.readFileSync(statsFile, 'utf8'));
const newPhase = async () => {
  server.kill('SIGUSR2');
  await new Promise((r) => setTimeout(r, 300));
};

await waitReady();
// A session: the cookie and the CSRF token.
const login = await fetch(`${base}/app/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ login: 'admin', password: PASSWORD }),
});
const cookie = login.headers
  .getSetCookie()
  .map((c) => c.split(';')[0])
  .join('; ');
const { csrf_token: csrf } = await login.json();
const headers = { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' };
const post = async (target, body) => {
  const reply = await fetch(base + target, { method: 'POST', headers, body: JSON.stringify(body) });
  if (reply.status !== 201) throw new Error(`${target}: ${reply.status} ${await reply.text()}`);
  return reply.json();
};

const seedStarted = performance.now();
const group = await post('/api/groups', { name: 'Bench' });
const template = { database_name: 'erp', mapping_json: '{}', active: 'Y' };
const description = 'd'.repeat(BODY_LIMIT - 1024);
for (let i = 0; i < BIG; i++)
  await post('/api/import-templates', { ...template, title: `Big ${i}`, description });
for (let i = 0; i < ROWS; i++)
  await post('/api/import-templates', {
    ...template,
    title: `Rows ${i}`,
    groups: Array.from({ length: DETAIL_ROWS }, () => ({ group_id: group.id })),
    users: Array.from({ length: DETAIL_ROWS }, () => ({ user_id: 1 })),
  });
const seedSeconds = (performance.now() - seedStarted) / 1000;

/** A /health request every 50 ms for `seconds`, each sent without waiting for the last: latencies in ms. */
async function probeHealth(seconds) {
  const probes = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const started = performance.now();
    // A probe that gets no answer at all (undici gives up after 300 s) counts as that long.
    probes.push(
      fetch(`${base}/health`)
        .then((reply) => reply.text())
        .catch(() => {})
        .then(() => performance.now() - started),
    );
    await new Promise((r) => setTimeout(r, 50));
  }
  return Promise.all(probes);
}
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (v) => Math.round(v * 10) / 10;
  return {
    n: sorted.length,
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    max: round(sorted.at(-1) ?? 0),
  };
};

await newPhase();
const idleHealth = await probeHealth(3);
const idle = stats();

await newPhase();
const lists = new Worker(new URL(import.meta.url), {
  workerData: {
    url: `${base}/api/import-templates?per_page=200`,
    headers,
    concurrency: CONCURRENCY,
  },
});
const listed = new Promise((resolve) => lists.once('message', resolve));
const loadedHealth = await probeHealth(DURATION);
lists.postMessage('stop');
const { latencies: listLatencies, bytes: listBytes } = await listed;
await lists.terminate();
// Read once the lists are done: a stalled server writes no stats, the histogram kept counting.
await new Promise((r) => setTimeout(r, 500));
const loaded = stats();

console.log(
  JSON.stringify(
    {
      inputs: {
        big_templates: BIG,
        description_bytes: description.length,
        row_templates: ROWS,
        detail_rows: DETAIL_ROWS,
        concurrency: CONCURRENCY,
        duration_s: DURATION,
        seed_s: Math.round(seedSeconds),
      },
      idle: { health_ms: summary(idleHealth), event_loop: idle },
      under_load: {
        health_ms: summary(loadedHealth),
        event_loop: loaded,
        list_ms: summary(listLatencies),
        lists: listLatencies.length,
        list_mib: Math.round(listBytes / 1048576),
      },
    },
    null,
    2,
  ),
);
stop();
await exited;
fs.rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
