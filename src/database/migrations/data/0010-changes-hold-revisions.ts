// The revisions move into the change log (issues 32 and 35: a write appended a change and a
// revision, two INSERTs, seven indexes and the changes' JSON twice). A change now carries its
// revision's `record` (the record as show answered it right after the write; null after a
// delete), so a write appends one row. Each retention keeps its own mark in svc_change_state:
// `pruned` (the feed answers 410 below it) and `history_pruned` (the history shows nothing at or
// below it); a change is deleted once below both (engine/changes/retention.ts).
// The order of one record's changes is the row's key: `seq` on SQLite, `id` elsewhere (where
// `seq` is given after the commit). Revisions whose change was already pruned come back as
// changes below the `pruned` mark, so the feed never answers them again.
import { sql } from 'kysely';
import { adapterOf } from '../../connect.js';
import type { Db } from '../../db.js';
import { columnTypes } from '../column-types.js';
import * as revisionsTable from './0008-revisions.js';
import * as revisionDeletes from './0009-revision-deletes.js';

const COPIED = [
  'resource',
  'record_id',
  'action',
  'version',
  'at',
  'user_id',
  'token_id',
  'via',
  'unit_id',
  'company_id',
  'changes',
  'record',
] as const;

export async function up(db: Db): Promise<void> {
  const engine = adapterOf(db).name;
  const key = engine === 'sqlite' ? 'seq' : 'id';
  const text = engine === 'mysql' ? sql`longtext` : 'text';
  await db.schema.alterTable('svc_changes').addColumn('record', text).execute();
  // Revisions outliving their change (the history keeps longer than the feed).
  const columns = COPIED.map((c) => sql.ref(c));
  await sql`insert into svc_changes (${sql.ref(key)}, ${engine === 'sqlite' ? sql`` : sql`seq, `}${sql.join(columns)})
    select ${sql.ref(engine === 'sqlite' ? 'seq' : 'change_id')}, ${engine === 'sqlite' ? sql`` : sql`seq, `}${sql.join(columns)}
    from svc_revisions r
    where not exists (select 1 from svc_changes c where c.${sql.ref(key)} = r.change_id)`.execute(
    db,
  );
  // The others' records.
  await sql`update svc_changes set record = (
      select r.record from svc_revisions r where r.change_id = svc_changes.${sql.ref(key)})
    where record is null and action <> 'deleted'`.execute(db);
  await db.schema
    .createIndex('svc_changes_record_index')
    .on('svc_changes')
    .columns(['resource', 'record_id', key])
    .execute();
  // GET /api/<resource>/deleted: the deletes of a resource, newest first. MySQL has no partial
  // index; elsewhere only the deletes are indexed.
  const deletes = db.schema
    .createIndex('svc_changes_delete_index')
    .on('svc_changes')
    .columns(['resource', key]);
  await (engine === 'mysql'
    ? db.schema
        .createIndex('svc_changes_delete_index')
        .on('svc_changes')
        .columns(['resource', 'action', key])
    : deletes.where(sql.ref('action'), '=', 'deleted')
  ).execute();
  await db.insertInto('svc_change_state').values({ name: 'history_pruned', value: 0 }).execute();
  await db.schema.dropTable('svc_revisions').execute();
}

export async function down(db: Db): Promise<void> {
  const engine = adapterOf(db).name;
  const key = engine === 'sqlite' ? 'seq' : 'id';
  // 0008's table and 0009's index, as they were, and every change's revision in it.
  await revisionsTable.up(db);
  await revisionDeletes.up(db);
  const columns = COPIED.map((c) => sql.ref(c));
  await sql`insert into svc_revisions (change_id, seq, ${sql.join(columns)})
    select ${sql.ref(key)}, seq, ${sql.join(columns)} from svc_changes`.execute(db);
  const types = columnTypes(db);
  await types.dropIndex('svc_changes_delete_index', 'svc_changes').execute();
  await types.dropIndex('svc_changes_record_index', 'svc_changes').execute();
  await db.deleteFrom('svc_change_state').where('name', '=', 'history_pruned').execute();
  await db.schema.alterTable('svc_changes').dropColumn('record').execute();
}
