#!/usr/bin/env node
// bench/run.mjs --writer MS: creates an import template every MS ms on the server at BASE with
// the bench token until SIGTERM, then prints what it did (writes, errors, latency) on stdout.
//   node bench/writer.mjs <base url> <token> <ms>
const [base, token, ms] = process.argv.slice(2);
const every = Number(ms);
let sent = 0;
let failed = 0;
let inFlight = 0;
let skipped = 0;
const latencies = [];
const started = Date.now();

async function write() {
  if (inFlight > 0) {
    skipped += 1; // the previous write is still running: a writer never queues up
    return;
  }
  inFlight += 1;
  const n = sent + failed + 1;
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
  const seconds = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const p = (q) => (latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(1);
  console.log(
    `${sent} templates created in ${seconds.toFixed(0)} s (${(sent / seconds).toFixed(1)}/s), ${failed} failed, ${skipped} ticks skipped while a write was running; write p50 ${p(0.5)} ms, p99 ${p(0.99)} ms`,
  );
  process.exit(0);
});
