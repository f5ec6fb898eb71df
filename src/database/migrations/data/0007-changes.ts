// The change log (DESIGN.md 3.9, issue 32): one row per written record, appended in the write's
// own transaction. A data table: it lives in every database that holds records (the main one
// and each unit's), beside the records it describes. `seq` orders the changes of one database
// in commit order (database/change-statements.ts says how each engine takes it); `at` is epoch
// milliseconds, compared the same way on every engine; `unit_id` and `company_id` are the
// record's scope, so a scoped reader is told of a delete too; `changes` is JSON text.
// svc_change_state holds named counters: `seq` (the last seq given; PostgreSQL and MySQL, where
// SQLite's AUTOINCREMENT keeps it in sqlite_sequence) and `pruned` (every change at or below it
// has been pruned: GET .../changes answers 410 below it).
import { sql } from 'kysely';
import { adapterOf } from '../../connect.js';
import type { Db } from '../../db.js';
import { columnTypes } from '../column-types.js';

export async function up(db: Db): Promise<void> {
  const types = columnTypes(db);
  const sqlite = adapterOf(db).name === 'sqlite';
  // A change may be large (a record with 1,000 detail rows): MySQL's text stops at 64 KiB.
  const changes = adapterOf(db).name === 'mysql' ? sql`longtext` : 'text';
  // SQLite: `seq` is the AUTOINCREMENT key, which never hands out a value again, even once the
  // table is pruned empty. PostgreSQL, MySQL: a change is inserted with `id` only and gets its
  // `seq` once committed (database/change-statements.ts), so `seq` is nullable and unique.
  const table = db.schema.createTable('svc_changes');
  await (sqlite
    ? types.table(table.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement()))
    : types.id(table).addColumn('seq', 'bigint', (c) => c.unique())
  )
    .addColumn('resource', 'varchar(100)', (c) => c.notNull())
    .addColumn('record_id', 'varchar(191)', (c) => c.notNull())
    .addColumn('action', 'varchar(7)', (c) => c.notNull())
    .addColumn('version', types.bigint)
    .addColumn('at', types.bigint, (c) => c.notNull())
    .addColumn('user_id', types.bigint)
    .addColumn('token_id', types.bigint)
    .addColumn('via', 'varchar(7)', (c) => c.notNull())
    .addColumn('unit_id', types.bigint)
    .addColumn('company_id', types.bigint)
    .addColumn('changes', changes, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('svc_changes_resource_seq_index')
    .on('svc_changes')
    .columns(['resource', 'seq'])
    .execute();
  await types
    .table(
      db.schema
        .createTable('svc_change_state')
        .addColumn('name', 'varchar(16)', (c) => c.primaryKey())
        .addColumn('value', types.bigint, (c) => c.notNull()),
    )
    .execute();
  await db
    .insertInto('svc_change_state')
    .values([{ name: 'pruned', value: 0 }, ...(sqlite ? [] : [{ name: 'seq', value: 0 }])])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('svc_change_state').execute();
  await db.schema.dropTable('svc_changes').execute();
}
