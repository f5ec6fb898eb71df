// The server under soak: a database of its own (a fresh DATA_DIR for SQLite, a database
// svc_soak_<pid> made on the PostgreSQL or MariaDB server and dropped at the end), and the
// service as a real process (compiled dist/, or src/ through tsx) with bench/loop-monitor.mjs
// preloaded, which writes its event-loop delay and RSS to a file every 250 ms.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { dropDatabase, runOnServer } from '../database-admin.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The soak's database. `given` (--database-url) is used as it is and left in place; otherwise
 * SQLite lives in the data dir and a server engine gets svc_soak_<pid>, dropped by drop().
 */
export async function createDatabase(root, engine, given) {
  if (given || engine === 'sqlite') return { url: given || undefined, name: null, drop: async () => {} };
  const serverUrl =
    engine === 'postgres'
      ? process.env.SOAK_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test'
      : process.env.SOAK_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test';
  const name = `svc_soak_${process.pid}`;
  await runOnServer(engine, serverUrl, [dropDatabase(engine, name), `create database ${name}`]);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => runOnServer(engine, serverUrl, [dropDatabase(engine, name)]),
  };
}

/** Starts `svc serve` and resolves once /health answers. */
export async function startServer({ root, fromSource, databaseUrl, env, log }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-soak-'));
  const statsFile = path.join(dataDir, 'loop-stats.json');
  const port = await freePort();
  const main = fromSource ? 'src/cli/main.ts' : 'dist/cli/main.js';
  if (!fs.existsSync(path.join(root, main)))
    throw new Error(`${main} is missing: run \`npm run build\` first (npm run soak does).`);
  const environment = { ...process.env };
  for (const name of ['DATABASE_URL', 'DB_CONNECTIONS', 'REDIS_URL', 'WORKERS', 'TENANT_ISOLATION', 'PUSHER_HOST'])
    delete environment[name];
  Object.assign(environment, {
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    LOOP_STATS_FILE: statsFile,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
  const child = spawn(
    process.execPath,
    [...(fromSource ? ['--import', 'tsx'] : []), '--import', './bench/loop-monitor.mjs', main, 'serve'],
    { cwd: root, env: environment, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // The server's warnings and errors go to the soak's stderr, and are kept for the report.
  const errors = [];
  const relay = (chunk) => {
    const text = chunk.toString('utf8');
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      if (errors.length < 200) errors.push(line.slice(0, 2000));
      log(`server: ${line.slice(0, 500)}`);
    }
  };
  child.stdout.on('data', relay);
  child.stderr.on('data', relay);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {}
    if (i > 600) throw new Error('the server did not answer /health within 60 s');
    await sleep(100);
  }
  return {
    base,
    dataDir,
    pid: child.pid,
    errors,
    exited,
    /** The monitor's latest figures: event-loop p50/p99/max (ms) since the last reset, RSS (MiB). */
    stats: () => {
      try {
        return JSON.parse(fs.readFileSync(statsFile, 'utf8'));
      } catch {
        return null;
      }
    },
    /** Starts a new event-loop measurement (bench/loop-monitor.mjs resets on SIGUSR2). */
    resetLoopStats: () => child.kill('SIGUSR2'),
    alive: () => child.exitCode === null && child.signalCode === null,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Counts read straight from the database, beside the API: templates, their detail rows, and
 * detail rows whose template is gone (a delete that left part of itself behind).
 */
export async function directCounts(root, engine, databaseUrl, dataDir) {
  const statements = {
    templates: 'select count(*) as n from import_templates',
    group_rows: 'select count(*) as n from import_template_groups',
    user_rows: 'select count(*) as n from import_template_users',
    orphan_group_rows:
      'select count(*) as n from import_template_groups where template_id not in (select id from import_templates)',
    orphan_user_rows:
      'select count(*) as n from import_template_users where template_id not in (select id from import_templates)',
  };
  const require = createRequire(path.join(root, 'package.json'));
  const out = {};
  if (engine === 'sqlite') {
    const file = databaseUrl ? databaseUrl.replace(/^sqlite:/, '') : path.join(dataDir, 'svc.sqlite');
    const db = new (require('better-sqlite3'))(file, { readonly: true });
    try {
      for (const [k, s] of Object.entries(statements)) out[k] = Number(db.prepare(s).get().n);
    } finally {
      db.close();
    }
    return out;
  }
  if (engine === 'postgres') {
    const client = new (require('pg').Client)({ connectionString: databaseUrl });
    await client.connect();
    try {
      for (const [k, s] of Object.entries(statements)) out[k] = Number((await client.query(s)).rows[0].n);
    } finally {
      await client.end();
    }
    return out;
  }
  const connection = await require('mysql2/promise').createConnection(databaseUrl);
  try {
    for (const [k, s] of Object.entries(statements)) out[k] = Number((await connection.query(s))[0][0].n);
  } finally {
    await connection.end();
  }
  return out;
}
