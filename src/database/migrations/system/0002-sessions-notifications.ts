// System tables for sessions, notifications (SPEC.md 6) and the per-IP failure counters.
import type { Db } from '../../db.js';
import { columnTypes } from '../column-types.js';

export async function up(db: Db): Promise<void> {
  const t = columnTypes(db);
  await t
    .table(db.schema.createTable('sessions'))
    .addColumn('id', 'varchar(128)', (c) => c.primaryKey())
    .addColumn('user_id', t.bigint, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('unit_id', t.bigint)
    .addColumn('csrf_token', 'varchar(128)', (c) => c.notNull())
    .addColumn('last_activity', t.timestamp, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_id_index').on('sessions').column('user_id').execute();
  await t
    .id(db.schema.createTable('notifications'))
    .addColumn('user_to_id', t.bigint, (c) =>
      c.notNull().references('users.id').onDelete('cascade'),
    )
    .addColumn('user_from_id', t.bigint, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('type', 'varchar(255)', (c) => c.notNull())
    .addColumn('data', t.json, (c) => c.notNull())
    .addColumn('action', t.json)
    .addColumn('read_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notifications_user_to_id_read_at_index')
    .on('notifications')
    .columns(['user_to_id', 'read_at'])
    .execute();
  await t
    .table(db.schema.createTable('auth_failures'))
    .addColumn('ip', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', t.timestamp, (c) => c.notNull())
    .execute();
}

export async function down(db: Db): Promise<void> {
  for (const table of ['auth_failures', 'notifications', 'sessions'])
    await db.schema.dropTable(table).execute();
}
