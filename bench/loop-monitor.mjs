// Preloaded into the server by bench/loop-delay.mjs (node --import): the event loop's delay
// (perf_hooks.monitorEventLoopDelay, 10 ms resolution), the resident set size and the JS heap's
// size, written every 250 ms as JSON to LOOP_STATS_FILE. SIGUSR2 starts a new measurement (resets
// the histogram and the RSS peak), so a phase of the benchmark is measured alone.
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

const file = process.env.LOOP_STATS_FILE;
// The main thread only: a worker thread (SQLite's checkpoints) also preloads this module, and its
// own heap figures would overwrite the server's.
if (file && isMainThread) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let rssPeak = 0;
  process.on('SIGUSR2', () => {
    histogram.reset();
    rssPeak = 0;
  });
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  const timer = setInterval(() => {
    const memory = process.memoryUsage();
    const rss = memory.rss;
    rssPeak = Math.max(rssPeak, rss);
    const stats = {
      p50_ms: ms(histogram.percentile(50)),
      p99_ms: ms(histogram.percentile(99)),
      max_ms: ms(histogram.max),
      rss_mib: Math.round(rss / 1048576),
      rss_peak_mib: Math.round(rssPeak / 1048576),
      // the JS heap in use and reserved: RSS beyond heap_total_mib is native memory (SQLite)
      heap_used_mib: Math.round(memory.heapUsed / 1048576),
      heap_total_mib: Math.round(memory.heapTotal / 1048576),
    };
    // Written aside and renamed: the benchmark never reads half a file. Gone once it cleans up.
    try {
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(stats));
      fs.renameSync(`${file}.tmp`, file);
    } catch {}
  }, 250);
  timer.unref();
}
