#!/usr/bin/env node
// npm run soak (issue 19 item 4): a long mixed load on the real server, then a consistency check.
// Starts the compiled server (src/ through tsx with --from-source) on a fresh database, makes
// users, groups and a bearer token through the API, fills --templates import templates, and
// runs --connections workers for --duration after --warmup: lists with random filters, sorts
// and pages, shows, creates, updates with detail diffs, deletes, 422s on purpose, wrong tokens
// (401), session writes without CSRF (419), whole sessions (login, read, CSRF writes, logout),
// and notifications that WebSocket clients on their private channels must receive. Every
// answer is checked against a reference model built from the accepted writes; at the end every
// template the API lists and shows (and the row counts read straight from the database) must
// equal the model. Reports requests, statuses, p50/p99 per type, the server's RSS at start
// (after warm-up), middle and end, its event-loop delay, notifications sent and received, as a
// table and a JSON file. Exit 1 on any 5xx, unexpected answer, lost notification, inconsistency
// or RSS growth beyond --rss-margin; 2 on bad arguments.
//
//   npm run soak -- [--engine sqlite|postgres|mysql] [--duration 10m] [--warmup 30s]
//                   [--connections 16] [--templates 200] [--rss-margin 10] [--out FILE]
//                   [--seed N] [--database-url URL] [--from-source]
// PostgreSQL and MariaDB: a database svc_soak_<pid> is made on SOAK_POSTGRES_URL / SOAK_MYSQL_URL
// (default the local servers) and dropped at the end; --database-url uses that one as it is.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Listeners } from './soak/listeners.mjs';
import { differences, generators, Model, normalize } from './soak/model.mjs';
import { cookieOf, Recorder, send } from './soak/recorder.mjs';
import { printReport } from './soak/report.mjs';
import { createDatabase, directCounts, startServer } from './soak/server.mjs';
import { operations } from './soak/workload.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
};
/** "600", "600s", "10m", "1h" -> seconds. */
const seconds = (text) => {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(String(text));
  if (!m) return NaN;
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] ?? 's'];
};
const ENGINE = arg('engine', 'sqlite');
const DURATION = seconds(arg('duration', '10m'));
const WARMUP = seconds(arg('warmup', '30s'));
const CONNECTIONS = Number(arg('connections', 16));
const TARGET = Number(arg('templates', 200));
const RSS_MARGIN = Number(arg('rss-margin', 10));
const SEED = Number(arg('seed', Date.now() % 2 ** 31));
const FROM_SOURCE = argv.includes('--from-source');
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const OUT = arg('out', path.join(os.tmpdir(), 'svc-soak', `soak-${ENGINE}-${stamp}.json`));
const bad = [
  !['sqlite', 'postgres', 'mysql'].includes(ENGINE) && '--engine must be sqlite, postgres or mysql',
  !(DURATION > 0) && '--duration must be a time such as 600, 90s or 10m',
  !(WARMUP >= 0) && '--warmup must be a time such as 30s',
  !(Number.isInteger(CONNECTIONS) && CONNECTIONS > 0) && '--connections must be a positive integer',
  !(Number.isInteger(TARGET) && TARGET > 0) && '--templates must be a positive integer',
  !(RSS_MARGIN >= 0) && '--rss-margin must be a percentage >= 0',
].filter(Boolean);
if (bad.length > 0) {
  console.error(bad.join('\n'));
  process.exit(2);
}

const log = (...a) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...a);
let state = SEED >>> 0;
function random() {
  // mulberry32: a run's choices follow its --seed (the interleaving of workers does not)
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const ADMIN_PASSWORD = 'soak-admin-password';
const database = await createDatabase(ROOT, ENGINE, arg('database-url', null));
let server;
let listeners;
const cleanUp = async () => {
  listeners?.close();
  await server?.stop();
  await database.drop();
};
process.on('SIGINT', () => cleanUp().finally(() => process.exit(130)));

try {
  server = await startServer({
    root: ROOT,
    fromSource: FROM_SOURCE,
    databaseUrl: database.url,
    env: {
      ADMIN_PASSWORD,
      REALTIME_NOTIFICATIONS: 'true',
      PUSHER_APP_SECRET: 'soak-secret',
      // the wrong-token requests name their own addresses (see workload.mjs wrong_token)
      TRUST_PROXY: 'loopback',
    },
    log,
  });
  log(
    `svc on ${ENGINE} at ${server.base} (pid ${server.pid})${database.name ? `, database ${database.name}` : ''}`,
  );
  const recorder = new Recorder();
  const base = server.base;

  // ---- set-up through the API: groups, users who log in, a bearer token ----------------------
  const signIn = async (login, password) => {
    const reply = await send(recorder, 'setup', base, {
      method: 'POST',
      path: '/app/login',
      body: { login, password },
    });
    if (reply?.status !== 200) throw new Error(`login ${login}: ${JSON.stringify(reply?.body)}`);
    return {
      userId: Number(reply.body.user.id),
      unitId: Number(reply.body.unit.id),
      cookie: cookieOf(reply.headers),
      csrf: reply.body.csrf_token,
    };
  };
  const admin = await signIn('admin', ADMIN_PASSWORD);
  const asAdmin = { cookie: admin.cookie, 'x-csrf-token': admin.csrf };
  const setup = async (path, body) => {
    const reply = await send(recorder, 'setup', base, {
      method: 'POST',
      path,
      headers: asAdmin,
      body,
      expect: [201],
    });
    if (reply?.status !== 201)
      throw new Error(`${path}: ${reply?.status} ${JSON.stringify(reply?.body)}`);
    return reply.body;
  };
  const groups = [];
  for (let i = 1; i <= 12; i++)
    groups.push(Number((await setup('/api/groups', { name: `Soak group ${i}` })).id));
  const logins = [];
  for (let i = 1; i <= 6; i++) {
    const password = `soak password ${i}`;
    const user = await setup('/api/users', {
      login: `soak${i}`,
      name: `Soak user ${i}`,
      email: `soak${i}@example.test`,
      password,
      active: 'Y',
      admin: 'N',
      units: [{ unit_id: admin.unitId }],
    });
    logins.push({ login: `soak${i}`, password, userId: Number(user.id) });
  }
  const { token } = await setup('/app/tokens-api', {
    user_id: admin.userId,
    unit_id: admin.unitId,
    name: 'soak',
    abilities: ['import-templates.read', 'import-templates.write', 'notifications.send'],
  });
  // four users listen, the first on two sockets (a notification reaches each of them)
  listeners = new Listeners(ROOT, base);
  const listening = logins.slice(0, 4);
  for (const [i, who] of listening.entries()) {
    const session = await signIn(who.login, who.password);
    await listeners.connect(session);
    if (i === 0) await listeners.connect(session);
  }

  const model = new Model();
  const people = {
    users: [admin.userId, ...logins.map((l) => l.userId)],
    groups,
    logins,
    listeners: listening.map((l) => l.userId),
  };
  const gen = generators(random, people);
  const { ops, next } = operations({
    base,
    recorder,
    model,
    gen,
    random,
    token,
    admin,
    people,
    listeners,
    target: TARGET,
  });

  // ---- the load ----------------------------------------------------------------------------------
  const runFor = async (ms, work) => {
    const until = Date.now() + ms;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < until && server.alive()) await work();
      }),
    );
  };
  // {t (s since the measurement started), rss, heap (in use), heapTotal (MiB)}
  const rssSamples = [];
  let measuringSince = null;
  const sampler = setInterval(() => {
    const s = server.stats();
    if (s && measuringSince !== null)
      rssSamples.push({
        t: (Date.now() - measuringSince) / 1000,
        rss: s.rss_mib,
        heap: s.heap_used_mib,
        heapTotal: s.heap_total_mib,
      });
  }, 1000);
  // RSS at a point: the median of the samples of the 10 s before it (one sample is noise)
  const rssAt = (t, field = 'rss') => {
    const window = rssSamples
      .filter((s) => s.t > t - 10 && s.t <= t && s[field] !== undefined)
      .map((s) => s[field])
      .sort((a, b) => a - b);
    return window.length ? window[Math.floor(window.length / 2)] : null;
  };

  log(`filling ${TARGET} templates`);
  let filled = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (filled < TARGET && server.alive()) {
        filled += 1;
        await ops.create('fill');
      }
    }),
  );
  log(`warm-up ${WARMUP} s, then ${DURATION} s at ${CONNECTIONS} connections`);
  await runFor(WARMUP * 1000, next);
  server.resetLoopStats();
  measuringSince = Date.now();
  const measureStarted = measuringSince;
  const progress = setInterval(() => {
    const total = [...recorder.types.values()].reduce((a, t) => a + t.requests, 0);
    const s = server.stats();
    log(
      `${Math.round((Date.now() - measureStarted) / 1000)} s: ${total} requests, ${model.size} templates, RSS ${s?.rss_mib} MiB, loop p99 ${s?.p99_ms} ms`,
    );
  }, 60_000);
  await runFor(DURATION * 1000, next);
  const measuredSeconds = (Date.now() - measureStarted) / 1000;
  clearInterval(progress);
  clearInterval(sampler);
  const loop = server.stats();
  const serverAlive = server.alive();
  await listeners.drain(10_000);

  // ---- consistency: the whole list, every show, and counts straight from the database -------------
  log('consistency check');
  const consistency = {
    listed: 0,
    shown: 0,
    missing: [],
    extra: [],
    different: [],
    uncertain: [...model.uncertain],
  };
  const listed = new Map();
  for (let page = 1; ; page++) {
    const reply = await send(recorder, 'check_list', base, {
      path: `/api/import-templates?sort=created_at&direction=asc&per_page=200&page=${page}`,
      headers: { authorization: `Bearer ${token}` },
    });
    if (reply?.status !== 200) throw new Error(`check list page ${page}: ${reply?.status}`);
    for (const item of reply.body.data) listed.set(Number(item.id), item);
    if (page >= reply.body.meta.last_page) break;
  }
  consistency.listed = listed.size;
  const compare = (id, answer, where) => {
    if (model.uncertain.has(id)) return;
    const expected = model.templates.get(id);
    if (!expected) return consistency.extra.push(id);
    const problems = differences(expected, normalize(answer));
    if (problems.length > 0) consistency.different.push({ id, where, problems });
  };
  for (const [id, item] of listed) compare(id, item, 'list');
  for (const id of model.templates.keys())
    if (!listed.has(id) && !model.uncertain.has(id)) consistency.missing.push(id);
  const ids = [...new Set([...listed.keys(), ...model.templates.keys()])];
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      for (let i = w; i < ids.length; i += 8) {
        const reply = await send(recorder, 'check_show', base, {
          path: `/api/import-templates/${ids[i]}`,
          headers: { authorization: `Bearer ${token}` },
          expect: [200, 404],
        });
        if (reply?.status === 200) {
          consistency.shown += 1;
          compare(ids[i], reply.body, 'show');
        }
      }
    }),
  );
  consistency.extra = [...new Set(consistency.extra)];
  const rows = (rel) => [...model.templates.values()].reduce((a, t) => a + t[rel].length, 0);
  consistency.model = {
    templates: model.size,
    group_rows: rows('groups'),
    user_rows: rows('users'),
  };
  consistency.database = await directCounts(ROOT, ENGINE, database.url, server.dataDir);
  const db = consistency.database;
  consistency.ok =
    consistency.missing.length === 0 &&
    consistency.extra.length === 0 &&
    consistency.different.length === 0 &&
    model.uncertain.size === 0 &&
    model.lostCreates === 0 &&
    db.templates === model.size &&
    db.group_rows === consistency.model.group_rows &&
    db.user_rows === consistency.model.user_rows &&
    db.orphan_group_rows === 0 &&
    db.orphan_user_rows === 0;

  // ---- the report -----------------------------------------------------------------------------
  const half = measuredSeconds / 2;
  const rss = {
    start: rssAt(Math.min(10, measuredSeconds)),
    middle: rssAt(half),
    end: rssAt(measuredSeconds),
    max: Math.max(...rssSamples.map((s) => s.rss)),
    every_minute: Array.from({ length: Math.floor(measuredSeconds / 60) }, (_, i) =>
      rssAt(60 * (i + 1)),
    ),
    // the JS heap at the same points (in use, reserved): the rest of RSS is native memory
    heap_used: [10, half, measuredSeconds].map((t) => rssAt(Math.min(t, measuredSeconds), 'heap')),
    heap_total: [10, half, measuredSeconds].map((t) =>
      rssAt(Math.min(t, measuredSeconds), 'heapTotal'),
    ),
    margin_percent: RSS_MARGIN,
    note: 'MiB, median of the 1 s samples of the 10 s up to the point; start = first 10 s after warm-up',
  };
  rss.ok =
    rss.end !== null && rss.middle !== null && rss.end <= rss.middle * (1 + RSS_MARGIN / 100);
  const types = recorder.summary();
  const byStatus = {};
  for (const t of Object.values(types))
    for (const [status, n] of Object.entries(t.statuses))
      byStatus[status] = (byStatus[status] ?? 0) + n;
  const totals = {
    requests: Object.values(types).reduce((a, t) => a + t.requests, 0),
    by_status: byStatus,
    five_xx: Object.entries(byStatus).reduce((a, [s, n]) => a + (Number(s) >= 500 ? n : 0), 0),
    expected_4xx: Object.values(types).reduce((a, t) => a + t.expected_4xx, 0),
    unexpected: Object.values(types).reduce((a, t) => a + t.unexpected, 0),
    no_answer: Object.values(types).reduce((a, t) => a + t.no_answer, 0),
  };
  const notifications = {
    sent_to_clients: listeners.sent,
    received: listeners.received,
    missing: listeners.missing,
    unexpected_events: listeners.unknown,
    sockets: listeners.clients.length,
    sockets_closed_early: listeners.closedEarly,
  };
  notifications.ok =
    notifications.missing === 0 &&
    notifications.unexpected_events === 0 &&
    notifications.sockets_closed_early === 0;
  const failures = [
    totals.five_xx > 0 && `${totals.five_xx} answers 5xx`,
    totals.unexpected > 0 && `${totals.unexpected} unexpected answers (status or content)`,
    totals.no_answer > 0 && `${totals.no_answer} requests without an answer`,
    !consistency.ok && 'the database does not match the model',
    !notifications.ok && 'notifications lost, unexpected or sockets closed',
    !rss.ok &&
      `RSS grew from ${rss.middle} MiB (middle) to ${rss.end} MiB (end), more than ${RSS_MARGIN} %`,
    !serverAlive && 'the server exited during the run',
  ].filter(Boolean);
  const report = {
    command: `node bench/soak.mjs ${argv.join(' ')}`.trim(),
    engine: ENGINE,
    commit:
      spawnSync('git', ['rev-parse', '--short', 'HEAD'], {
        cwd: ROOT,
        encoding: 'utf8',
      }).stdout?.trim() || null,
    started_at: new Date(measureStarted).toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    load_average_1m: Math.round(os.loadavg()[0] * 100) / 100,
    settings: {
      duration_s: DURATION,
      warmup_s: WARMUP,
      connections: CONNECTIONS,
      templates: TARGET,
      seed: SEED,
      from_source: FROM_SOURCE,
    },
    measured_s: Math.round(measuredSeconds * 10) / 10,
    totals,
    types,
    rss_mib: rss,
    event_loop_ms: loop && { p50: loop.p50_ms, p99: loop.p99_ms, max: loop.max_ms },
    notifications,
    consistency,
    unexpected_samples: recorder.samples,
    server_log: server.errors.slice(0, 50),
    ok: failures.length === 0,
    failures,
  };
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, `${JSON.stringify(report, null, 2)}\n`);
  printReport(report);
  console.log(`\nJSON report: ${OUT}`);
  await cleanUp();
  process.exit(report.ok ? 0 : 1);
} catch (error) {
  log(error?.stack ?? error);
  await cleanUp().catch((e) => log(e));
  process.exit(1);
}
