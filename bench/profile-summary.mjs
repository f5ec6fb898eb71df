#!/usr/bin/env node
// Self time of a V8 .cpuprofile (node --cpu-prof) by function + file, and by package.
//   node bench/profile-summary.mjs <file.cpuprofile> [--top 25]
// Self time = the sampling intervals (timeDeltas) whose sample landed in that function.
import fs from 'node:fs';

const [file] = process.argv.slice(2).filter((a) => !a.startsWith('--') && !/^\d+$/.test(a));
const topIdx = process.argv.indexOf('--top');
const TOP = topIdx > 0 ? Number(process.argv[topIdx + 1]) : 25;
if (!file) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [--top 25]');
  process.exit(2);
}
const prof = JSON.parse(fs.readFileSync(file, 'utf8'));

const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map(); // node id -> microseconds
prof.samples.forEach((id, i) => {
  self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
});

// which package a frame belongs to: node_modules/<pkg>, svc's dist/<dir>, node internals, V8/native
function group(url, name) {
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (m) return m[1];
  const d = url.match(/\/dist\/([^/]+)\//) || url.match(/\/dist\/([^/]+)$/);
  if (d) return `svc dist/${d[1].replace(/\.js$/, '')}`;
  if (url.startsWith('node:')) return 'node internals';
  if (/^\((garbage collector|program|idle|root)\)$/.test(name)) return `V8 ${name}`;
  return url ? url : "native (V8 builtins, C++ bindings such as better-sqlite3's)";
}
const short = (url) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*node_modules\//, '')
    .replace(/^\/work\/main\//, '');

const byFn = new Map();
const byGroup = new Map();
let total = 0;
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = nodes.get(id).callFrame;
  const name = functionName || '(anonymous)';
  const key = `${name}\t${short(url)}${url ? `:${lineNumber + 1}` : ''}`;
  const g = group(url, name);
  const e = byFn.get(key) ?? { us: 0, g };
  e.us += us;
  byFn.set(key, e);
  byGroup.set(g, (byGroup.get(g) ?? 0) + us);
  total += us;
}
const idle = [...byFn].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, e]) => a + e.us, 0);
const busy = total - idle;
const pct = (us) => `${((us / busy) * 100).toFixed(1)} %`;
console.log(
  `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s not idle (percentages of that)\n`,
);
console.log(
  `| # | self ms | share | function | file:line | package |\n|---:|---:|---:|---|---|---|`,
);
[...byFn]
  .filter(([k]) => !k.startsWith('(idle)'))
  .sort((a, b) => b[1].us - a[1].us)
  .slice(0, TOP)
  .forEach(([k, e], i) => {
    const [name, loc] = k.split('\t');
    console.log(
      `| ${i + 1} | ${(e.us / 1000).toFixed(0)} | ${pct(e.us)} | ${name} | ${loc || ''} | ${e.g} |`,
    );
  });
console.log('\n| package | self ms | share |\n|---|---:|---:|');
for (const [g, us] of [...byGroup].filter(([g]) => g !== 'V8 (idle)').sort((a, b) => b[1] - a[1])) {
  console.log(`| ${g} | ${(us / 1000).toFixed(0)} | ${pct(us)} |`);
}
