#!/usr/bin/env node
// npm run bench: seeds an import-templates dataset through svc's own migrations, starts the
// compiled server on a fresh copy with bearer auth, drives L1 L2 S1 C1 U1 with wrk and prints
// req/s, p50, p99, errors, SQL statements per request and the server's peak RSS.
//
//   npm run bench -- [--engine sqlite|postgres|mysql] [--templates 10000|100000|1000000] [--duration 10]
//                    [--connections 16] [--warmup 3] [--requests L1,L2,S1,C1,U1] [--port 3300] [--show-sql]
//                    [--cpu-prof DIR] [--work /tmp/svc-bench] [--db-name svc_bench_<templates>]
//                    [--writer MS] [--deep ROWS] [--reuse-db]
// Requests: L1 L2 S1 C1 U1 as in ../shared/bench, and (issue 21) L2E: L2 with count=estimated;
// LD: L2's filters and sort at a depth of --deep rows (default 2000) by cursor, count=estimated
// (the cursor is walked with next_cursor at per_page=200 before the load starts).
// --writer MS: a separate process creates a template every MS ms during the whole load (its
// writes and errors are reported), so the list memo of an unchanged database never helps.
// SQLITE_SYNCHRONOUS and SQLITE_CACHE_SIZE_KIB reach the server unchanged (svc: NORMAL, 65536).
// --engine postgres|mysql: the SQLite seed is copied, same rows and ids, into a database
// svc_bench_<templates> made anew on the server at BENCH_POSTGRES_URL / BENCH_MYSQL_URL
// (bench/copy-dataset.mjs); DB_POOL_SIZE and the other DB_* variables reach the server unchanged.
// The workload mirrors ../shared/bench (see its README): same shape, same five requests.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { L2_FILTERS, U1_BODY, withPlaceholders } from './svc-requests.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (n, d) => {
  const i = argv.indexOf(`--${n}`);
  return i >= 0 ? argv[i + 1] : d;
};
// --work DIR: datasets, run copies and the server's DATA_DIR (several people benchmarking at once)
const WORK = path.resolve(arg('work', '/tmp/svc-bench'));
const T = Number(arg('templates', 10000));
const DURATION = Number(arg('duration', 10));
const CONNS = Number(arg('connections', 16));
const WARMUP = Number(arg('warmup', 3));
const PORT = Number(arg('port', 3300));
const TYPES = arg('requests', 'L1,L2,S1,C1,U1').split(',');
const ENGINE = arg('engine', 'sqlite');
const WRITER_MS = arg('writer', null) === null ? null : Number(arg('writer'));
const DEEP = Number(arg('deep', 2000));
if (!['sqlite', 'postgres', 'mysql'].includes(ENGINE)) {
  console.error('--engine must be sqlite, postgres or mysql');
  process.exit(2);
}
const SERVER_URL = {
  postgres: process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test',
  mysql: process.env.BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test',
}[ENGINE];
const DB_NAME = arg('db-name', `svc_bench_${T}`);
const SEED = 20240601;
const SEED_VERSION = 1; // bump when the seeder changes, so cached datasets are rebuilt
if (!Number.isInteger(T) || T < 5001) {
  console.error('--templates must be an integer >= 5001 (the U1 pools use ids up to 5001)');
  process.exit(2);
}

if (spawnSync('wrk', ['-v']).error) {
  console.error(
    'wrk is not installed. Install it (Debian/Ubuntu: apt-get install -y wrk) and run again.\n' +
      'autocannon is not a dependency of svc, so there is no fallback load generator.',
  );
  process.exit(2);
}
const dist = (p) => import(path.join(ROOT, 'dist', p));
const Database = createRequire(path.join(ROOT, 'package.json'))('better-sqlite3');
const log = (...a) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- dataset (cached per size under /tmp/svc-bench) -------------------------------------------
let state = SEED >>> 0;
function rnd() {
  // mulberry32: same seed, same rows
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const ri = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
const pick = (a) => a[Math.floor(rnd() * a.length)];
const distinct = (n, lo, hi) => {
  const s = new Set();
  while (s.size < n) s.add(ri(lo, hi));
  return [...s];
};
const cap = (w) => w[0].toUpperCase() + w.slice(1);
// a quarter of the words contain "ab": about 55 % of titles match L2's LIKE '%ab%'
const WORDS = (
  'alpha amber anchor arch atlas aurora autumn basin beacon birch breeze bridge canyon cedar cipher cliff ' +
  'cloud cobalt comet coral crystal delta desert drift dune eagle echo ember falcon fern field flint forest frost galaxy ' +
  'garden glacier granite grove harbor hazel horizon island ivory jade jasper jungle kernel lagoon lantern lava ledger ' +
  'lotus maple marble meadow meteor mist nebula nova oasis ocean onyx orbit orchid pebble phoenix pine planet prairie ' +
  'quartz quill raven reef ridge river saffron sage shadow sierra silver spruce summit tide timber topaz tundra valley ' +
  'table label cable fabric habit lab tab abacus abbey about above absolute abstract alphabet baobab cabin crab gable ' +
  'kebab sable slab stable vocabulary probable global arabica rabbit tabby sabre'
).split(' ');
const NAMES = [
  'Ada Lovelace',
  'Alan Turing',
  'Grace Hopper',
  'Barbara Liskov',
  'Dennis Ritchie',
  'Ken Thompson',
  'Margaret Hamilton',
  'Edsger Dijkstra',
  'Donald Knuth',
  'Frances Allen',
  'Radia Perlman',
  'Niklaus Wirth',
];
const DBS = ['erp_main', 'crm', 'warehouse', 'billing', 'hr', 'analytics'];
const MODES = ['insert', 'upsert', 'replace', 'append'];
const BASE = Date.UTC(2020, 0, 1);
const iso = (ms) => new Date(ms).toISOString();

async function seed(file) {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  const [{ connectDatabase }, { migrate }, { issueToken }] = await Promise.all([
    dist('database/connect.js'),
    dist('database/migrator.js'),
    dist('auth/tokens/api-token.js'),
  ]);
  const svcDb = connectDatabase(`sqlite:${file}`, {
    sqlite: { synchronous: 'NORMAL', cacheSizeKib: 65536, backgroundCheckpoint: false },
  });
  await migrate(svcDb.db, ['system', 'data']); // svc's own schema, indexes included
  await svcDb.close();

  const db = new Database(file);
  db.pragma('journal_mode = OFF'); // bulk load: no WAL copy of a GB of pages; WAL is set again below
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1000000');
  const now = iso(Date.now());
  const token = issueToken();
  const ins = (sql) => db.prepare(sql);
  const insUser =
    ins(`INSERT INTO users (id, login, name, email, password_hash, admin, active, created_at, updated_at)
    VALUES (?, ?, ?, ?, 'x', 'N', 'Y', ?, ?)`);
  const insGroup = ins('INSERT INTO groups (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)');
  const insTpl =
    ins(`INSERT INTO import_templates (id, title, code, description, database_name, mapping_json,
    csv_model_path, import_mode, active, created_by, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`);
  const insG = ins(
    'INSERT INTO import_template_groups (id, template_id, group_id) VALUES (?, ?, ?)',
  );
  const insU = ins('INSERT INTO import_template_users (id, template_id, user_id) VALUES (?, ?, ?)');
  const insL =
    ins(`INSERT INTO import_template_logs (id, template_id, unit_id, status, rows_total, created_at)
    VALUES (?, ?, 1, ?, ?, ?)`);
  const pools = { check: null, warmup: [], measure: [] };
  // per relation: row 1 kept, row 2 alternates between its value and `alt`, a new row gets `add`
  const rel = (rows, hi) => {
    const vals = rows.map((r) => r[1]);
    let alt;
    do alt = ri(1, hi);
    while (vals.includes(alt));
    let add;
    do add = ri(1, hi);
    while (vals.includes(add) || add === alt);
    return [rows[0][0], rows[1][0], vals[1], alt, vals[2], add];
  };
  const batch = (from, to) =>
    db.transaction(() => {
      for (let t = from; t <= to; t++) {
        const title = [pick(WORDS), pick(WORDS), pick(WORDS)].map(cap).join(' ');
        const code = `TPL-${String(t).padStart(7, '0')}`;
        const created = BASE + ri(0, 5 * 365 * 86400) * 1000;
        const mapping = JSON.stringify({
          version: 1,
          delimiter: pick([',', ';']),
          header: rnd() < 0.8,
          columns: distinct(ri(3, 6), 1, 16).map((c, k) => ({
            source: `col_${k + 1}`,
            target: `field_${c}`,
            type: pick(['string', 'int', 'date']),
          })),
        });
        insTpl.run(
          t,
          title,
          code,
          `${cap(pick(WORDS))} import of ${pick(WORDS)} records`,
          pick(DBS),
          mapping,
          `/models/${code.toLowerCase()}.csv`,
          pick(MODES),
          rnd() < 0.5 ? 'Y' : 'N',
          ri(1, 1000),
          iso(created),
          iso(created + ri(0, 90) * 86400000),
        );
        const gs = distinct(3, 1, 50).map((g, k) => [3 * t - 2 + k, g]);
        const us = distinct(3, 1, 1000).map((u, k) => [3 * t - 2 + k, u]);
        for (const [id, g] of gs) insG.run(id, t, g);
        for (const [id, u] of us) insU.run(id, t, u);
        for (let k = 0; k < 2; k++)
          insL.run(
            2 * t - 1 + k,
            t,
            pick(['succeeded', 'failed']),
            ri(0, 5000),
            iso(created + ri(1, 30) * 86400000),
          );
        if (t <= 5001) {
          const e = [t, ...rel(gs, 50), ...rel(us, 1000)];
          if (t === 1) pools.check = e;
          else (t <= 1001 ? pools.warmup : pools.measure).push(e);
        }
      }
    })();
  db.transaction(() => {
    for (let i = 1; i <= 1000; i++) {
      const at = iso(BASE - ri(0, 400) * 86400000);
      insUser.run(i, `user${i}`, `${pick(NAMES)} ${i}`, `user${i}@example.com`, at, at);
    }
    for (let i = 1; i <= 50; i++) insGroup.run(i, `Group ${cap(pick(WORDS))} ${i}`, now, now);
    // the bench token's scope: user 1 in unit 1 of company 1, all active
    ins(
      `INSERT INTO companies (id, name, active, created_at, updated_at) VALUES (1, 'Bench', 'Y', ?, ?)`,
    ).run(now, now);
    ins(
      `INSERT INTO units (id, name, company_id, active, created_at, updated_at) VALUES (1, 'Main', 1, 'Y', ?, ?)`,
    ).run(now, now);
    ins('INSERT INTO user_units (user_id, unit_id) VALUES (1, 1)').run();
    ins(
      `INSERT INTO api_tokens (user_id, unit_id, name, token_hash, abilities, created_at) VALUES (1, 1, 'bench', ?, ?, ?)`,
    ).run(token.hash, JSON.stringify(['import-templates.read', 'import-templates.write']), now);
  })();
  for (let t = 1; t <= T; t += 50000) batch(t, Math.min(T, t + 49999));
  db.exec('ANALYZE');
  db.pragma('journal_mode = WAL');
  db.close();
  return { version: SEED_VERSION, T, seed: SEED, token: token.plain, pools };
}

fs.mkdirSync(WORK, { recursive: true });
const seedFile = path.join(WORK, `seed-${T}.sqlite`);
let meta = null;
try {
  meta = JSON.parse(fs.readFileSync(`${seedFile}.json`, 'utf8'));
} catch {}
if (!meta || meta.version !== SEED_VERSION || !fs.existsSync(seedFile)) {
  log(`seeding ${T} templates into ${seedFile}`);
  const t0 = Date.now();
  meta = await seed(seedFile);
  fs.writeFileSync(`${seedFile}.json`, JSON.stringify(meta));
  log(`seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
// every run starts from a fresh copy, so C1/U1 of earlier runs do not change the data
let DATABASE_URL;
let serverVersion = null;
if (ENGINE === 'sqlite') {
  const runFile = path.join(WORK, `run-${T}.sqlite`);
  for (const f of [runFile, `${runFile}-wal`, `${runFile}-shm`]) fs.rmSync(f, { force: true });
  fs.copyFileSync(seedFile, runFile);
  DATABASE_URL = `sqlite:${runFile}`;
} else if (argv.includes('--reuse-db')) {
  // --reuse-db: the database an earlier run copied (a copy of 1,000,000 templates takes many
  // minutes), less the templates written since (ids above the seed's)
  const parsed = new URL(SERVER_URL);
  parsed.pathname = `/${DB_NAME}`;
  DATABASE_URL = parsed.toString();
  const [{ connectDatabase }, { loadConfig }] = await Promise.all([
    dist('database/connect.js'),
    dist('config/config.js'),
  ]);
  const target = connectDatabase(DATABASE_URL, loadConfig({ ...process.env, DATABASE_URL }));
  const { sql } = await import('kysely');
  for (const table of ['import_template_groups', 'import_template_users', 'import_template_logs'])
    await target.db.deleteFrom(table).where('template_id', '>', T).execute();
  await target.db.deleteFrom('import_templates').where('id', '>', T).execute();
  serverVersion = String((await sql`select version() as v`.execute(target.db)).rows[0].v)
    .split(' ')
    .slice(0, ENGINE === 'postgres' ? 2 : 1)
    .join(' ');
  await target.close();
  log(`reusing ${DB_NAME} (templates written by earlier runs removed)`);
} else {
  const { copyDataset } = await import('./copy-dataset.mjs');
  log(`copying the seed into ${DB_NAME} on ${ENGINE}`);
  ({ url: DATABASE_URL, version: serverVersion } = await copyDataset({
    engine: ENGINE,
    serverUrl: SERVER_URL,
    name: DB_NAME,
    seedFile,
    log,
  }));
}

// ---- requests ----------------------------------------------------------------------------------
const REQ = {
  L1: { method: 'GET', path: '/api/import-templates?sort=title&direction=asc&page=1&per_page=15' },
  L2: {
    method: 'GET',
    path: `/api/import-templates?filters=${L2_FILTERS}&sort=created_at&direction=desc&page=50&per_page=15`,
  },
  L2E: {
    method: 'GET',
    path: `/api/import-templates?filters=${L2_FILTERS}&sort=created_at&direction=desc&page=50&per_page=15&count=estimated`,
  },
  // path set once the deep cursor is walked (deepCursor below)
  LD: { method: 'GET', path: null },
  S1: { method: 'GET', path: '/api/import-templates/<<id>>' },
  C1: {
    method: 'POST',
    path: '/api/import-templates',
    body: withPlaceholders({
      title: 'Bench Created <<seq>>',
      code: 'BENCH-<<seq>>',
      description: 'created by the benchmark',
      database_name: 'erp_main',
      mapping_json: '{"version":1,"columns":["sku","qty"]}',
      csv_model_path: '/models/bench-<<seq>>.csv',
      import_mode: 'upsert',
      active: 'Y',
      created_by: '<<cb>>',
      groups: [{ group_id: '<<g1>>' }, { group_id: '<<g2>>' }, { group_id: '<<g3>>' }],
      users: [{ user_id: '<<u1>>' }, { user_id: '<<u2>>' }, { user_id: '<<u3>>' }],
    }),
  },
  U1: { method: 'PATCH', path: '/api/import-templates/<<t>>', body: U1_BODY },
};
const fill = (s, v) => s.replace(/<<(\w+)>>/g, (_match, k) => String(v[k]));
const c = meta.pools.check;
const SAMPLE = {
  id: 1,
  seq: 'count',
  cb: 5,
  g1: 1,
  g2: 2,
  g3: 3,
  u1: 10,
  u2: 11,
  u3: 12,
  t: c[0],
  k: 1,
  g_keep: c[1],
  g_chg_id: c[2],
  g_val: c[4],
  g_add: c[6],
  u_keep: c[7],
  u_chg_id: c[8],
  u_val: c[10],
  u_add: c[12],
};

// ---- SQL statements per request: svc in-process, one request of each type (before the server) --
// --show-sql prints each statement's text (the driver's statement or query methods wrapped, here only).
const statements = {};
const seen = [];
if (argv.includes('--show-sql') && ENGINE !== 'sqlite') {
  // the drivers' query methods, wrapped the same way
  const req = createRequire(path.join(ROOT, 'package.json'));
  for (const proto of [req('pg').Client.prototype, req('mysql2').Connection.prototype]) {
    const orig = proto.query;
    proto.query = function (q, ...a) {
      seen.push(String(q?.text ?? q?.sql ?? q).replace(/\s+/g, ' '));
      return orig.call(this, q, ...a);
    };
  }
} else if (argv.includes('--show-sql')) {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1'));
  probe.close();
  for (const m of ['all', 'get', 'run', 'iterate']) {
    const orig = proto[m];
    proto[m] = function (...a) {
      seen.push(this.source.replace(/\s+/g, ' '));
      return orig.apply(this, a);
    };
  }
}
{
  const [{ loadConfig }, { startService }] = await Promise.all([
    dist('config/config.js'),
    dist('service.js'),
  ]);
  const svc = await startService(
    loadConfig({
      ...process.env,
      DATABASE_URL,
      DATA_DIR: path.join(WORK, 'data'),
      LOG_LEVEL: 'error',
    }),
    { logger: false },
  );
  const auth = `Bearer ${meta.token}`;
  // the token's first use also stamps last_used_at (then at most once a minute): not counted
  await svc.app.inject({ url: fill(REQ.S1.path, SAMPLE), headers: { authorization: auth } });
  if (TYPES.includes('LD')) {
    // LD's cursor: next_cursor walked from the first page, 200 rows a step (a cursor is not tied
    // to per_page); the server shares DATA_DIR, so the same APP_SECRET signs and checks it.
    const listPath = (extra) =>
      `/api/import-templates?filters=${L2_FILTERS}&sort=created_at&direction=desc&${extra}`;
    let cursor = '';
    let walked = 0;
    const t0 = Date.now();
    while (walked < DEEP) {
      const step = Math.min(200, DEEP - walked);
      const res = await svc.app.inject({
        url: listPath(`per_page=${step}&count=none&cursor=${encodeURIComponent(cursor)}`),
        headers: { authorization: auth },
      });
      const body = res.json();
      if (res.statusCode !== 200 || !body.meta.next_cursor) {
        log(`LD: the walk ended at ${walked} rows (HTTP ${res.statusCode})`);
        break;
      }
      cursor = body.meta.next_cursor;
      walked += step;
    }
    log(`LD: walked ${walked} rows deep by cursor in ${Date.now() - t0} ms`);
    REQ.LD.path = listPath(`per_page=15&count=estimated&cursor=${encodeURIComponent(cursor)}`);
  }
  for (const type of TYPES) {
    const r = REQ[type];
    const headers = {
      authorization: auth,
      ...(r.body ? { 'content-type': 'application/json' } : {}),
    };
    const send = () =>
      svc.app.inject({
        method: r.method,
        url: fill(r.path, SAMPLE),
        headers,
        payload: r.body && fill(r.body, SAMPLE),
      });
    if (type !== 'C1' && type !== 'U1') await send(); // warm the statement cache first
    const before = svc.database.statementCount();
    seen.length = 0;
    const res = await send();
    statements[type] = svc.database.statementCount() - before;
    if (seen.length)
      console.log(`${type} statements:\n${seen.map((x, i) => `  ${i + 1}. ${x}`).join('\n')}`);
    if (res.statusCode >= 300) log(`${type}: HTTP ${res.statusCode} ${res.body.slice(0, 300)}`);
  }
  await svc.close();
}

// ---- server and load ---------------------------------------------------------------------------
const env = {
  ...process.env,
  HOST: '127.0.0.1',
  PORT: String(PORT),
  DATABASE_URL,
  DATA_DIR: path.join(WORK, 'data'),
  LOG_LEVEL: 'warn',
  NODE_ENV: 'production',
};
// --cpu-prof DIR: V8 CPU profile of the server, written when it exits on SIGTERM (bench/profile-summary.mjs reads it)
const PROF = arg('cpu-prof', null);
const nodeFlags = PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROF)}`] : [];
const server = spawn(
  process.execPath,
  [...nodeFlags, path.join(ROOT, 'dist/cli/main.js'), 'serve'],
  { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] },
);
const stop = () => {
  if (server.exitCode === null) server.kill('SIGTERM');
};
process.on('exit', stop);
process.on('SIGINT', () => process.exit(130));
const base = `http://127.0.0.1:${PORT}`;
for (let i = 0; ; i++) {
  if (server.exitCode !== null) {
    log(`server exited with ${server.exitCode}`);
    process.exit(1);
  }
  try {
    if (
      (await fetch(`${base}${REQ.L1.path}`, { headers: { authorization: `Bearer ${meta.token}` } }))
        .ok
    )
      break;
  } catch {}
  if (i > 240) {
    log('server not ready after 60 s');
    process.exit(1);
  }
  await sleep(250);
}

// --writer: a template created every WRITER_MS ms by a process of its own (wrk blocks this one)
let writer = null;
if (WRITER_MS !== null) {
  writer = spawn(
    process.execPath,
    [path.join(ROOT, 'bench/writer.mjs'), base, meta.token, String(WRITER_MS)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  writer.report = new Promise((resolve) => {
    let out = '';
    writer.stdout.on('data', (d) => {
      out += d;
    });
    writer.once('exit', () => resolve(out.trim()));
  });
  process.on('exit', () => writer.exitCode === null && writer.kill('SIGTERM'));
  log(`writer: a template every ${WRITER_MS} ms`);
}

function wrk(type, phase, seconds) {
  const r = REQ[type];
  const pool = type === 'U1' ? (phase === 'w' ? meta.pools.warmup : meta.pools.measure) : null;
  const spec = {
    kind: type,
    method: r.method,
    path: r.path,
    body: r.body ?? null,
    token: meta.token,
    T,
    phase,
    seed: phase === 'w' ? 7 : 11,
  };
  const lua = (v) => (v === null ? 'nil' : typeof v === 'number' ? String(v) : `[==[${v}]==]`);
  const specFile = path.join(WORK, `spec-${type}-${phase}.lua`);
  fs.writeFileSync(
    specFile,
    `return { ${Object.entries(spec)
      .map(([k, v]) => `${k} = ${lua(v)}`)
      .join(', ')}` +
      `${pool ? `, pool = {${pool.map((e) => `{${e.join(',')}}`).join(',\n')}}` : ''} }\n`,
  );
  const out = spawnSync(
    'wrk',
    [
      '-t1',
      `-c${CONNS}`,
      `-d${seconds}s`,
      '--timeout',
      '10s',
      '-s',
      path.join(ROOT, 'bench/load.lua'),
      base,
    ],
    { env: { ...process.env, SVC_BENCH_SPEC: specFile }, encoding: 'utf8' },
  );
  const line = (out.stdout || '').split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (!line) throw new Error(`wrk gave no result for ${type}: ${out.stdout}${out.stderr}`);
  const j = JSON.parse(line.slice(11));
  return {
    rps: j.requests / (j.duration_us / 1e6),
    p50: j.p50_us / 1000,
    p99: j.p99_us / 1000,
    non2xx: j.err_status,
    socket: j.err_socket,
  };
}

// The server's CPU time (user + system, all threads) per request: unlike req/s it barely moves
// when other work shares the machine, so it compares two builds on a busy one.
const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK']).stdout || 100);
function serverCpuMs() {
  const fields = fs.readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime, stime
}

// On PostgreSQL, the database's own work per request, which a busy machine does not move either:
// the WAL it wrote (pg_current_wal_lsn) and the CPU time of the backends serving svc's database.
const pgProbe =
  ENGINE === 'postgres'
    ? await (async () => {
        const client = new (createRequire(path.join(ROOT, 'package.json'))('pg').Client)({
          connectionString: DATABASE_URL,
        });
        await client.connect();
        const sample = async () => {
          const { rows } = await client.query(
            `SELECT pg_current_wal_lsn()::text AS lsn,
               array_agg(pid) FILTER (WHERE pid <> pg_backend_pid()) AS pids
             FROM pg_stat_activity WHERE datname = current_database()`,
          );
          const [hi, lo] = rows[0].lsn.split('/').map((h) => Number.parseInt(h, 16));
          let cpu = 0;
          for (const pid of rows[0].pids ?? []) {
            try {
              const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
              cpu += (Number(f[11]) + Number(f[12])) * TICK_MS;
            } catch {} // a backend gone since
          }
          return { wal: hi * 2 ** 32 + lo, cpu };
        };
        return { sample, close: () => client.end() };
      })()
    : null;

const rows = [];
for (const type of TYPES) {
  if (WARMUP > 0) wrk(type, 'w', WARMUP);
  const cpuBefore = serverCpuMs();
  const pgBefore = await pgProbe?.sample();
  const r = wrk(type, 'm', DURATION);
  const requests = r.rps * DURATION;
  const cpuPerRequest = (serverCpuMs() - cpuBefore) / requests;
  const pgAfter = await pgProbe?.sample();
  const database = pgAfter
    ? `, PostgreSQL CPU ${((pgAfter.cpu - pgBefore.cpu) / requests).toFixed(3)} ms/request, WAL ${((pgAfter.wal - pgBefore.wal) / requests).toFixed(0)} bytes/request`
    : '';
  log(
    `${type}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, errors ${r.non2xx}/${r.socket}, server CPU ${cpuPerRequest.toFixed(3)} ms/request${database}`,
  );
  rows.push([
    type,
    r.rps.toFixed(r.rps < 100 ? 1 : 0),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    `${r.non2xx + r.socket} (${r.non2xx} non-2xx, ${r.socket} socket)`,
    statements[type] ?? 'n/a',
    cpuPerRequest.toFixed(3),
  ]);
}
// wrk abandons its in-flight requests when its time is up: let the server finish them first
await sleep(1000);
await pgProbe?.close();
let writerReport = null;
if (writer) {
  writer.kill('SIGTERM');
  writerReport = await writer.report;
}
const hwm = Number(
  (fs.readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/^VmHWM:\s+(\d+)/m) || [])[1],
);
stop();
await Promise.race([new Promise((r) => server.once('exit', r)), sleep(15000)]); // the profile is written on exit
if (PROF) log(`CPU profile in ${path.resolve(PROF)}: node bench/profile-summary.mjs <file>`);

const engineSettings =
  ENGINE === 'sqlite'
    ? `SQLITE_SYNCHRONOUS=${process.env.SQLITE_SYNCHRONOUS || 'NORMAL (default)'}, SQLITE_CACHE_SIZE_KIB=${process.env.SQLITE_CACHE_SIZE_KIB || '65536 (default)'}`
    : `${serverVersion} at ${new URL(SERVER_URL).host}, database ${DB_NAME}, DB_POOL_SIZE=${process.env.DB_POOL_SIZE || '10 (default)'}`;
console.log(
  `\nsvc on ${ENGINE}, ${T} templates, ${CONNS} connections, ${DURATION} s per request (after ${WARMUP} s warm-up), wrk 1 thread; ${engineSettings}\n`,
);
console.log(
  '| request | req/s | p50 ms | p99 ms | errors | SQL statements | server CPU ms/request |\n|---|---:|---:|---:|---|---:|---:|',
);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
console.log(`\nserver peak RSS (VmHWM): ${(hwm / 1024).toFixed(0)} MiB`);
if (writerReport) console.log(`writer (--writer ${WRITER_MS}): ${writerReport}`);
if (TYPES.includes('LD')) console.log(`LD: a page ${DEEP} rows deep by cursor (--deep)`);
