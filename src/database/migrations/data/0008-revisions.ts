// The revisions of every record (DESIGN.md 3.11, issue 35): one row per change, appended in the
// write's transaction beside its change (svc_changes), carrying the record as show answered it
// right after the write (before projection; null after a delete). A snapshot per revision: the
// read of any revision is one indexed row, however deep (docs/api.md "History" gives the
// measurements). Kept HISTORY_RETENTION_DAYS, apart from the change log's CHANGES_RETENTION_DAYS,
// so the change's columns are copied rather than referenced. `change_id` is the change's row
// (SQLite: its seq; PostgreSQL, MySQL: svc_changes.id), `seq` the change's seq: given at once on
// SQLite, by the numbering that numbers the change elsewhere (database/change-statements.ts).
import { sql } from 'kysely';
import { adapterOf } from '../../connect.js';
import type { Db } from '../../db.js';
import { columnTypes } from '../column-types.js';

export async function up(db: Db): Promise<void> {
  const types = columnTypes(db);
  const text = adapterOf(db).name === 'mysql' ? sql`longtext` : 'text';
  await types
    .id(db.schema.createTable('svc_revisions'))
    .addColumn('change_id', types.bigint, (c) => c.notNull())
    .addColumn('seq', types.bigint, (c) => c.unique())
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
    .addColumn('changes', text, (c) => c.notNull())
    .addColumn('record', text)
    .execute();
  // A record's history, newest first, by its change order (the record's writes hold its lock).
  await db.schema
    .createIndex('svc_revisions_record_index')
    .on('svc_revisions')
    .columns(['resource', 'record_id', 'change_id'])
    .execute();
  await db.schema
    .createIndex('svc_revisions_change_index')
    .on('svc_revisions')
    .column('change_id')
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('svc_revisions').execute();
}
