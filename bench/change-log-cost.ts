// What the change log's seq lock costs concurrent writers (issue 32, docs/performance.md "The
// change log"). Each of --writers workers runs, for --seconds, write transactions of its own
// import template (one UPDATE), in three modes on a fresh database:
//   none     the UPDATE alone (the write path before the change log)
//   insert   the UPDATE and a plain INSERT of the change under a seq made in the process (no
//            lock: what the INSERT itself costs)
//   change   the UPDATE and the change appended as svc does (adapter.appendChange), and, on
//            PostgreSQL and MySQL, after the COMMIT the numbering started as svc starts it
//            (changesAppended: in the background, one short transaction serving every write
//            committed before it), then awaited at the end of the mode
// and prints transactions per second and p50 / p99 latency per mode.
//   npx tsx bench/change-log-cost.ts --url postgres://postgres@127.0.0.1:5432/test [--writers 16] [--seconds 5]
// The database named in --url is used as is (tables svc_changes and import_templates are made by
// svc's migrations when missing; the rows it writes are its own and deleted after).
import os from 'node:os';
import { loadConfig } from '../src/config/config.js';
import { connectDatabase } from '../src/database/connect.js';
import type { StoredChange } from '../src/database/change-statements.js';
import type { AppendedChange } from '../src/engine/changes/change.js';
import { migrate } from '../src/database/migrator.js';
import { insertRows } from '../src/database/write-statements.js';
import { changesAppended, numberCommitted } from '../src/engine/changes/committed.js';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? (argv[i + 1] ?? fallback) : fallback;
};
const url = arg('url', '');
const writers = Number(arg('writers', '16'));
const seconds = Number(arg('seconds', '5'));
if (!url) throw new Error('--url <DATABASE_URL> is required');

const config = loadConfig({
  DATABASE_URL: url,
  DATA_DIR: os.tmpdir(),
  DB_POOL_SIZE: String(writers),
});
const database = connectDatabase(url, config);
const { db, adapter } = database;
await migrate(db, ['data']);

const ids: number[] = [];
for (let i = 0; i < writers; i++)
  ids.push(
    await adapter.insertReturningId(
      db,
      'import_templates',
      { title: `cost ${i}`, database_name: 'x', mapping_json: '{}', version: 1 },
      'id',
    ),
  );

const change = (id: number): StoredChange => ({
  resource: 'change-log-cost',
  record_id: String(id),
  action: 'updated',
  version: 1,
  at: Date.now(),
  user_id: 1,
  token_id: 1,
  via: 'bearer',
  unit_id: null,
  company_id: null,
  changes: '{"fields":{"title":"x","updated_at":"2026-01-01T00:00:00.000Z"}}',
  record: null,
});

let localSeq = 1e12;
type Mode = 'none' | 'insert' | 'change';

async function run(mode: Mode) {
  const latencies: number[] = [];
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    ids.map(async (id, n) => {
      for (let i = 0; Date.now() < end; i++) {
        const started = performance.now();
        await database.transaction(async (trx) => {
          await trx
            .updateTable('import_templates')
            .set({ title: `cost ${n} ${i}` })
            .where('id', '=', id)
            .execute();
          if (mode === 'insert')
            await insertRows(trx, 'svc_changes', [{ seq: (localSeq += 1), ...change(id) }]);
          if (mode === 'change') await adapter.appendChange(trx, change(id));
        });
        if (mode === 'change')
          changesAppended(database, [{ seq: null } as unknown as AppendedChange]);
        latencies.push(performance.now() - started);
      }
    }),
  );
  // What the mode's writes left to number is numbered within its time.
  if (mode === 'change') await numberCommitted(database);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    mode,
    'tx/s': Math.round(latencies.length / seconds),
    'p50 ms': Number(at(0.5).toFixed(2)),
    'p99 ms': Number(at(0.99).toFixed(2)),
  };
}

const results = [];
for (const mode of ['none', 'insert', 'change', 'none', 'insert', 'change'] as Mode[])
  results.push(await run(mode));
console.log(`${adapter.name}, ${writers} writers, ${seconds} s per mode (each mode twice):`);
console.table(results);
await db.deleteFrom('svc_changes').where('resource', '=', 'change-log-cost').execute();
await db.deleteFrom('import_templates').where('id', 'in', ids).execute();
await database.close();
