// svc adapter for the shared benchmark harness (../shared/bench, read its README):
//   npm run build && node ../shared/bench/run-all.mjs --servers ceiling,$PWD/bench/harness-adapter.mjs
// (run-all takes a path when the name ends in .mjs). bench/shared-harness.sh runs the same thing
// from a copy of the harness under /tmp, so its results/ are not written into ../shared.
//
// prepare() builds svc's own database from the harness dataset: svc's migrations, then the
// dataset's rows copied with their ids, plus company 1 / unit 1 / user 1 and a bearer token.
// start() runs the compiled server on it. Env passed through to the server: SQLITE_SYNCHRONOUS,
// SQLITE_CACHE_SIZE_KIB (svc's defaults NORMAL and 65536), DB_POOL_SIZE and the other DB_*
// settings. SVC_PORT (3200) moves the port.
//
// SVC_BENCH_ENGINE=postgres|mysql runs svc on that engine instead (issue 22): the SQLite database
// built above is copied, same rows and ids, into svc_harness_<T>, made anew at every run on the
// server at SVC_BENCH_POSTGRES_URL / SVC_BENCH_MYSQL_URL (default: this machine's servers), by
// bench/copy-dataset.mjs, the copy `npm run bench -- --engine` uses. The adapter is then named
// svc-postgres / svc-mysql, so one harness run can measure it beside ceiling-pg:
//   SVC_BENCH_ENGINE=postgres node ../shared/bench/run-all.mjs \
//     --servers ceiling-pg,$PWD/bench/harness-adapter.mjs --max-other-cpu 400
// On PostgreSQL, SVC_BENCH_POOLER_URL (a PgBouncer in transaction mode in front of that server,
// e.g. postgres://postgres@127.0.0.1:6432) makes the server reach the copy through it, with
// DB_POOLER=transaction; SVC_BENCH_READ_URL (a streaming replica of that server, e.g.
// postgres://postgres@127.0.0.1:5433) adds the copy there as DATABASE_READ_URL (DESIGN.md 3.12).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { L2_FILTERS, U1_BODY } from './svc-requests.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'); // /work/main
const SHARED = process.env.SHARED_BENCH_DIR || path.resolve(ROOT, '../shared/bench');
const { C1_BODY, canonTemplate } = await import(path.join(SHARED, 'lib/common.mjs'));
const require = createRequire(path.join(ROOT, 'package.json'));
const Database = require('better-sqlite3');

const PORT = Number(process.env.SVC_PORT || 3200);
const WORK_DIR = '/tmp/svc-bench';
const ENGINE = process.env.SVC_BENCH_ENGINE || 'sqlite';
const SERVER_URL = {
  postgres: process.env.SVC_BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test',
  mysql: process.env.SVC_BENCH_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test',
}[ENGINE];
if (ENGINE !== 'sqlite' && !SERVER_URL)
  throw new Error(`SVC_BENCH_ENGINE must be sqlite, postgres or mysql, not "${ENGINE}"`);
/** The server's DATABASE_URL on PostgreSQL / MariaDB (set by prepare), and the server's version. */
let serverDatabase = null;
const ABILITIES = ['import-templates.read', 'import-templates.write'];
// 'YYYY-MM-DD HH:MM:SS' (dataset) -> 'YYYY-MM-DDTHH:MM:SS.000Z' (svc's stored form)
const iso = (col) =>
  `CASE WHEN ${col} IS NULL THEN NULL ELSE replace(${col}, ' ', 'T') || '.000Z' END`;

/** `database`'s URL on the server at `server` (its host, port and user), or `database` itself. */
function sameDatabase(server, database) {
  if (!server) return database;
  const url = new URL(server);
  url.pathname = new URL(database).pathname;
  return url.toString();
}

/** Builds `out` from the harness dataset with svc's schema; returns the plain bearer token. */
export async function buildSvcDatabase(dataset, out) {
  for (const f of [out, `${out}-wal`, `${out}-shm`]) fs.rmSync(f, { force: true });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const dist = (p) => import(path.join(ROOT, 'dist', p));
  const [{ connectDatabase }, { migrate }, { issueToken }] = await Promise.all([
    dist('database/connect.js'),
    dist('database/migrator.js'),
    dist('auth/tokens/api-token.js'),
  ]);
  const svcDb = connectDatabase(`sqlite:${out}`, {
    sqlite: { synchronous: 'NORMAL', cacheSizeKib: 65536, backgroundCheckpoint: false },
  });
  await migrate(svcDb.db, ['system', 'data']);
  await svcDb.close();

  const db = new Database(out);
  db.pragma('foreign_keys = ON');
  db.exec(`ATTACH DATABASE '${dataset.replace(/'/g, "''")}' AS src`);
  const now = new Date().toISOString();
  const token = issueToken();
  db.transaction(() => {
    db.exec(`
      INSERT INTO users (id, login, name, email, password_hash, admin, active, created_at, updated_at)
        SELECT id, 'user' || id, name, email, 'x', 'N', 'Y', ${iso('created_at')}, ${iso('created_at')} FROM src.users;
      INSERT INTO groups (id, name) SELECT id, name FROM src."groups";
      INSERT INTO import_templates (id, title, code, description, database_name, mapping_json, csv_model_path,
          import_mode, active, created_by, created_at, updated_at)
        SELECT id, title, code, description, database_name, mapping_json, csv_model_path, import_mode, active,
          created_by, ${iso('created_at')}, ${iso('updated_at')} FROM src.import_templates;
      INSERT INTO import_template_groups (id, template_id, group_id) SELECT id, template_id, group_id FROM src.import_template_groups;
      INSERT INTO import_template_users (id, template_id, user_id) SELECT id, template_id, user_id FROM src.import_template_users;
      -- logs belong to unit 1 (svc counts a unit's logs only)
      INSERT INTO import_template_logs (id, template_id, unit_id, status, created_at)
        SELECT id, template_id, 1, status, ${iso('created_at')} FROM src.import_template_logs;`);
    db.prepare(
      `INSERT INTO companies (id, name, active, created_at, updated_at) VALUES (1, 'Bench', 'Y', ?, ?)`,
    ).run(now, now);
    db.prepare(
      `INSERT INTO units (id, name, company_id, active, created_at, updated_at) VALUES (1, 'Main', 1, 'Y', ?, ?)`,
    ).run(now, now);
    db.prepare('INSERT INTO user_units (user_id, unit_id) VALUES (1, 1)').run();
    db.prepare(
      `INSERT INTO api_tokens (user_id, unit_id, name, token_hash, abilities, created_at) VALUES (1, 1, 'bench', ?, ?, ?)`,
    ).run(token.hash, JSON.stringify(ABILITIES), now);
  })();
  db.exec('DETACH DATABASE src');
  db.exec('ANALYZE'); // the dataset the ceiling runs on is analysed too
  db.pragma('wal_checkpoint(TRUNCATE)'); // the harness copies the main file only
  db.close();
  return token.plain;
}

let token = process.env.SVC_TOKEN || null;

// svc's list items also embed the detail arrays; the ceiling's do not, so the probes drop them.
const listItem = ({ groups, users, ...rest }) => rest;

const DRIVER = { sqlite: 'better-sqlite3', postgres: 'pg', mysql: 'mysql2' }[ENGINE];

export default {
  name:
    ENGINE === 'sqlite'
      ? 'svc'
      : `svc-${ENGINE}${process.env.SVC_BENCH_POOLER_URL ? '-pgbouncer' : ''}${process.env.SVC_BENCH_READ_URL ? '-replica' : ''}`,
  label: `svc (Fastify 5 + Kysely + ${DRIVER})`,
  baseUrl: `http://127.0.0.1:${PORT}`,
  get token() {
    return token;
  },
  version() {
    const v = (p) => JSON.parse(fs.readFileSync(path.join(ROOT, p, 'package.json'))).version;
    if (ENGINE !== 'sqlite')
      return `svc ${v('.')}, fastify ${v('node_modules/fastify')}, kysely ${v('node_modules/kysely')}, ${DRIVER} ${v(`node_modules/${DRIVER}`)}, DB_POOL_SIZE ${process.env.DB_POOL_SIZE || '10 (default)'}`;
    const mem = new Database(':memory:');
    const sqlite = mem.prepare('SELECT sqlite_version()').pluck().get();
    mem.close();
    return (
      `svc ${v('.')}, fastify ${v('node_modules/fastify')}, kysely ${v('node_modules/kysely')}, better-sqlite3 ${v('node_modules/better-sqlite3')} (SQLite ${sqlite}), ` +
      `synchronous ${process.env.SQLITE_SYNCHRONOUS || 'NORMAL'}, cache ${process.env.SQLITE_CACHE_SIZE_KIB || 65536} KiB, WAL`
    );
  },
  async prepare({ dataset, T }) {
    const out = path.join(WORK_DIR, `harness-${T}.sqlite`);
    token = await buildSvcDatabase(dataset, out);
    if (ENGINE !== 'sqlite') {
      const { copyDataset } = await import('./copy-dataset.mjs');
      const copied = await copyDataset({
        engine: ENGINE,
        serverUrl: SERVER_URL,
        name: `svc_harness_${T}`,
        seedFile: out,
        log: (line) => console.log(`svc-${ENGINE}: ${line}`),
      });
      serverDatabase = copied.url;
      console.log(`svc-${ENGINE}: ${copied.version}`);
    }
    return out; // the harness copies this file; on PostgreSQL / MariaDB the server does not read it
  },
  start: ({ dbFile }) => ({
    cmd: process.execPath,
    args: [path.join(ROOT, 'dist/cli/main.js'), 'serve'],
    cwd: ROOT,
    env: {
      HOST: '127.0.0.1',
      PORT: String(PORT),
      DATABASE_URL: serverDatabase
        ? sameDatabase(process.env.SVC_BENCH_POOLER_URL, serverDatabase)
        : `sqlite:${dbFile}`,
      ...(serverDatabase && process.env.SVC_BENCH_POOLER_URL ? { DB_POOLER: 'transaction' } : {}),
      ...(serverDatabase && process.env.SVC_BENCH_READ_URL
        ? { DATABASE_READ_URL: sameDatabase(process.env.SVC_BENCH_READ_URL, serverDatabase) }
        : {}),
      DATA_DIR: path.join(WORK_DIR, 'data'),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
    },
  }),
  readyPath: '/api/import-templates?per_page=1',
  requests: {
    L1: {
      method: 'GET',
      path: '/api/import-templates?sort=title&direction=asc&page=1&per_page=15',
    },
    L2: {
      method: 'GET',
      path: `/api/import-templates?filters=${L2_FILTERS}&sort=created_at&direction=desc&page=50&per_page=15`,
    },
    S1: { method: 'GET', path: '/api/import-templates/<<id>>' },
    C1: { method: 'POST', path: '/api/import-templates', body: C1_BODY },
    U1: { method: 'PATCH', path: '/api/import-templates/<<t>>', body: U1_BODY },
  },
  // answers: the bare record for show/create/update, {data, meta} for lists
  canon(type, json, opts = {}) {
    if (type === 'L1' || type === 'L2') return json.data.map((x) => canonTemplate(listItem(x)));
    return canonTemplate(json, opts);
  },
};
