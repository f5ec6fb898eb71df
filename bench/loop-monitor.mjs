// Preloaded into the server by bench/loop-delay.mjs (node --import): the event loop's delay
// (perf_hooks.monitorEventLoopDelay, 10 ms resolution) and the resident set size, written every
// 250 ms as JSON to LOOP_STATS_FILE. SIGUSR2 starts a new measurement (resets the histogram and
// the RSS peak), so a phase of the benchmark is measured alone.
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.LOOP_STATS_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let rssPeak = 0;
  process.on('SIGUSR2', () => {
    histogram.reset();
    rssPeak = 0;
  });
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  const timer = setInterval(() => {
    const rss = process.memoryUsage.rss();
    rssPeak = Math.max(rssPeak, rss);
    const stats = {
      p50_ms: ms(histogram.percentile(50)),
      p99_ms: ms(histogram.percentile(99)),
      max_ms: ms(histogram.max),
      rss_mib: Math.round(rss / 1048576),
      rss_peak_mib: Math.round(rssPeak / 1048576),
    };
    // Written aside and renamed: the benchmark never reads half a file. Gone once it cleans up.
    try {
      fs.writeFileSync(`${file}.tmp`, JSON.stringify(stats));
      fs.renameSync(`${file}.tmp`, file);
    } catch {}
  }, 250);
  timer.unref();
}
