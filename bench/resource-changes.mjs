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
import { performance } from 'node:perf_hooks';
import { rssMiB, sleep, startRealtimeServer, subscribe, summary } from './realtime-server.mjs';

const CONNECTIONS = Number(process.env.CONNECTIONS || 1000);
const DURATION = Number(process.env.DURATION || 20);
const RATE = Number(process.env.RATE || 20);
const CHANNEL = 'private-resource.import-templates';
// What POST /broadcasting/auth signs for import-templates without isolation: the main database,
// no unit or company condition.
const CHANNEL_DATA = JSON.stringify({ db: '', unit: null, company: null });

const server = await startRealtimeServer({ connections: CONNECTIONS, name: 'changes' });
const BASE = server.base;
const token = server.token('import-templates.read,import-templates.write');
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
  return subscribe(server.port, CHANNEL, {
    channelData: CHANNEL_DATA,
    onEvent(event, change, arrived) {
      if (event !== 'SvcResourceChanged') return;
      deliveries += 1;
      atToSocket.push(origin + arrived - Date.parse(change.at));
      const started = sentAt.get(change.changes.fields?.title);
      if (started !== undefined) requestToSocket.push(arrived - started);
    },
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
