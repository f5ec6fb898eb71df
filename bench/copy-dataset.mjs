// npm run bench -- --engine postgres|mysql: a fresh database `name` on the server at `serverUrl`
// (dropped first, so writes of an earlier run are gone), svc's own migrations, then every row of
// the cached SQLite seed with its id: multi-row inserts through Kysely, timestamps in the
// engine's stored form (adapter.toTimestamp), PostgreSQL id sequences moved past the copied ids,
// ANALYZE (VACUUM ANALYZE on PostgreSQL). Returns the new database's URL and the server's version.

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { dropDatabase, runOnServer } from './database-admin.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'package.json'));
const dist = (p) => import(path.join(ROOT, 'dist', p));
const PARAMETERS_PER_INSERT = 30000; // under both engines' 65,535 placeholders per statement

export async function copyDataset({ engine, serverUrl, name, seedFile, log = () => {} }) {
  const t0 = Date.now();
  await runOnServer(engine, serverUrl, [dropDatabase(engine, name), `create database ${name}`]);
  const parsed = new URL(serverUrl);
  parsed.pathname = `/${name}`;
  const url = parsed.toString();

  const [{ connectDatabase }, { migrate }, { loadConfig }] = await Promise.all([
    dist('database/connect.js'),
    dist('database/migrator.js'),
    dist('config/config.js'),
  ]);
  const target = connectDatabase(url, loadConfig({ ...process.env, DATABASE_URL: url }));
  const { db, adapter } = target;
  try {
    await migrate(db, ['system', 'data']);
    // timestamp columns by the target's own schema (timestamptz on PostgreSQL, datetime on MySQL)
    const stamps = new Map(
      (await db.introspection.getTables()).map((t) => [
        t.name,
        new Set(
          t.columns
            .filter((c) => /^(timestamptz|timestamp|datetime)$/.test(c.dataType))
            .map((c) => c.name),
        ),
      ]),
    );

    const Database = require('better-sqlite3');
    const src = new Database(seedFile, { readonly: true });
    // creation order (rowid of sqlite_master) is the migrations' order: parents before children.
    // The change log (its revisions with it) is not copied: their columns and counters differ per
    // engine (the seq is numbered after commit there), and the benchmark needs none of the seed's.
    const tables = src
      .prepare(`select name from sqlite_master where type = 'table'
      and name not like 'sqlite\\_%' escape '\\' and name not like 'svc\\_migrations%' escape '\\'
      and name not like 'svc\\_change%' escape '\\' order by rowid`)
      .pluck()
      .all();
    const copied = [];
    for (const table of tables) {
      const columns = src.prepare(`select name from pragma_table_info(?)`).pluck().all(table);
      const perInsert = Math.floor(PARAMETERS_PER_INSERT / columns.length);
      const stamp = stamps.get(table) ?? new Set();
      let count = 0;
      // all() per slice of rowids: the reader is not held open across the awaits
      const slice = src.prepare(
        `select rowid as _r, * from "${table}" where rowid > ? order by rowid limit ${perInsert}`,
      );
      for (let last = 0; ; ) {
        const got = slice.all(last);
        if (!got.length) break;
        last = got[got.length - 1]._r;
        for (const r of got) {
          delete r._r;
          for (const c of stamp) if (r[c] != null) r[c] = adapter.toTimestamp(new Date(r[c]));
        }
        await db.insertInto(table).values(got).execute();
        count += got.length;
      }
      if (count) copied.push(table);
      if (engine === 'postgres' && columns.includes('id')) {
        // explicit ids leave the sequence at 1: the next create would collide with a copied row
        const seq = (await sql`select pg_get_serial_sequence(${table}, 'id') as s`.execute(db))
          .rows[0].s;
        if (seq)
          await sql`select setval(${seq}, coalesce(max(id), 0) + 1, false) from ${sql.table(table)}`.execute(
            db,
          );
      }
    }
    src.close();
    // PostgreSQL: VACUUM too, as autovacuum would soon after a load: it sets the visibility map
    // (index-only scans without heap fetches) and the hint bits the first reads would otherwise write
    const analyze = engine === 'postgres' ? 'vacuum analyze' : 'analyze table';
    for (const table of tables) await sql`${sql.raw(analyze)} ${sql.table(table)}`.execute(db);
    const version = (await sql`select version() as v`.execute(db)).rows[0].v;
    log(`copied ${copied.join(', ')} into ${name} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return {
      url,
      version: String(version)
        .split(' ')
        .slice(0, engine === 'postgres' ? 2 : 1)
        .join(' '),
    };
  } finally {
    await target.close();
  }
}
