// The soak's readable report: a table per request type, then the totals and the checks.
export function printReport(r) {
  const cell = (v) => (v === null || v === undefined ? '' : String(v));
  const statuses = (s) =>
    Object.entries(s)
      .map(([status, n]) => `${status}: ${n}`)
      .join(', ');
  console.log(
    `\nsvc soak on ${r.engine} (commit ${r.commit}): ${r.measured_s} s measured after ${r.settings.warmup_s} s warm-up, ` +
      `${r.settings.connections} connections, about ${r.settings.templates} templates, ` +
      `${r.cpus} CPUs, load ${r.load_average_1m}, ${r.node}\n`,
  );
  console.log('| type | requests | statuses | unexpected | no answer | p50 ms | p99 ms | max ms |');
  console.log('|---|---:|---|---:|---:|---:|---:|---:|');
  for (const [name, t] of Object.entries(r.types))
    console.log(
      `| ${name} | ${t.requests} | ${statuses(t.statuses)} | ${t.unexpected} | ${t.no_answer} | ${cell(t.p50_ms)} | ${cell(t.p99_ms)} | ${cell(t.max_ms)} |`,
    );
  const t = r.totals;
  console.log(
    `\nrequests ${t.requests} (${statuses(t.by_status)}); 5xx ${t.five_xx}; expected 4xx ${t.expected_4xx}; ` +
      `unexpected ${t.unexpected}; no answer ${t.no_answer}`,
  );
  const m = r.rss_mib;
  console.log(
    `server RSS (MiB): start ${m.start}, middle ${m.middle}, end ${m.end}, max ${m.max} ` +
      `(end within ${m.margin_percent} % of middle: ${m.ok ? 'yes' : 'NO'})` +
      (m.every_minute.length > 0 ? `; minute by minute: ${m.every_minute.join(', ')}` : ''),
  );
  if (m.heap_used)
    console.log(
      `server JS heap (MiB, start / middle / end): in use ${m.heap_used.join(' / ')}, reserved ${m.heap_total.join(' / ')}`,
    );
  if (r.event_loop_ms)
    console.log(`server event-loop delay (ms, measured part): p50 ${r.event_loop_ms.p50}, p99 ${r.event_loop_ms.p99}, max ${r.event_loop_ms.max}`);
  const n = r.notifications;
  console.log(
    `notifications: ${n.sent_to_clients} deliveries expected on ${n.sockets} sockets, ${n.received} received, ` +
      `${n.missing} missing, ${n.unexpected_events} unexpected, ${n.sockets_closed_early} sockets closed early`,
  );
  const c = r.consistency;
  console.log(
    `consistency: ${c.ok ? 'OK' : 'FAILED'}: model ${c.model.templates} templates, ${c.model.group_rows} group rows, ` +
      `${c.model.user_rows} user rows; database ${c.database.templates} / ${c.database.group_rows} / ${c.database.user_rows} ` +
      `(orphan rows ${c.database.orphan_group_rows} + ${c.database.orphan_user_rows}); API listed ${c.listed}, shown ${c.shown}; ` +
      `missing ${c.missing.length}, extra ${c.extra.length}, different ${c.different.length}, uncertain ${c.uncertain.length}`,
  );
  for (const d of c.different.slice(0, 5)) console.log(`  template ${d.id} (${d.where}): ${d.problems.join('; ')}`);
  for (const s of r.unexpected_samples.slice(0, 10)) console.log(`  ${s.type}: ${s.what}: ${s.detail.slice(0, 300)}`);
  console.log(r.ok ? '\nsoak passed' : `\nsoak FAILED: ${r.failures.join('; ')}`);
}
