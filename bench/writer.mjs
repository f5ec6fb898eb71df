#!/usr/bin/env node
// bench/run.mjs --writer MS: creates an import template every MS ms on the server at BASE with
// the bench token until SIGTERM, then prints what it did (writes, errors, latency) on stdout.
// A write is sent every tick even while earlier ones wait for their answer (under load a create
// takes longer than the tick), up to MAX_IN_FLIGHT at once; a tick past that is skipped.
//   node bench/writer.mjs <base url> <token> <ms>
const [base, token, ms] = process.argv.slice(2);
const MAX_IN_FLIGHT = 8;
const every = Number(ms);
let sent = 0;
let failed = 0;
let inFlight = 0;
let skipped = 0;
let started = 0;
const latencies = [];
const since = Date.now();

async function write() {
  if (inFlight >= MAX_IN_FLIGHT) {
    skipped += 1; // the writer never queues more than that
    return;
  }
  inFlight += 1;
  started += 1;
  const n = started;
  const t0 = performance.now();
  try {
    const res = await fetch(`${base}/api/import-templates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        title: `Writer ${process.pid} ${n}`,
        code: `W-${process.pid}-${n}`,
        database_name: 'erp_main',
        mapping_json: '{"version":1}',
        active: 'Y',
        groups: [{ group_id: 1 }],
        users: [{ user_id: 1 }],
      }),
    });
    await res.arrayBuffer();
    if (res.status === 201) sent += 1;
    else failed += 1;
  } catch {
    failed += 1;
  } finally {
    latencies.push(performance.now() - t0);
    inFlight -= 1;
  }
}

const timer = setInterval(write, every);
process.on('SIGTERM', () => {
  clearInterval(timer);
  const seconds = (Date.now() - since) / 1000;
  latencies.sort((a, b) => a - b);
  const p = (q) => (latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(1);
  console.log(
    `${sent} templates created in ${seconds.toFixed(0)} s (${(sent / seconds).toFixed(1)}/s), ${failed} failed, ${skipped} ticks skipped with ${MAX_IN_FLIGHT} writes waiting; write p50 ${p(0.5)} ms, p99 ${p(0.99)} ms`,
  );
  process.exit(0);
});
