// Webhooks (DESIGN.md 3.10, issue 34): the endpoints, their deliveries (an outbox filled from
// each database's change log) and how far the log of each database has been turned into
// deliveries. Times of the delivery tables are epoch milliseconds, compared the same way on
// every engine. `db` names the change's database: '' the main one, else its DB_CONNECTIONS name.
import { sql } from 'kysely';
import { adapterOf } from '../../connect.js';
import type { Db } from '../../db.js';
import { columnTypes } from '../column-types.js';

export async function up(db: Db): Promise<void> {
  const t = columnTypes(db);
  const longText = adapterOf(db).name === 'mysql' ? sql`longtext` : 'text';
  await t
    .id(db.schema.createTable('webhooks'))
    .addColumn('url', 'varchar(2000)', (c) => c.notNull())
    .addColumn('events', t.json, (c) => c.notNull())
    .addColumn('active', 'varchar(1)', (c) => c.notNull().defaultTo('Y'))
    .addColumn('description', 'varchar(1000)')
    // The signing key (whsec_<base64>): HMAC needs it itself, so it is kept, never answered.
    .addColumn('secret', 'varchar(200)')
    .addColumn('company_id', t.bigint)
    .addColumn('created_by', t.bigint)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await t
    .id(db.schema.createTable('webhook_deliveries'))
    .addColumn('webhook_id', t.bigint, (c) =>
      c.notNull().references('webhooks.id').onDelete('cascade'),
    )
    .addColumn('db', 'varchar(64)', (c) => c.notNull())
    .addColumn('seq', t.bigint, (c) => c.notNull())
    .addColumn('event', 'varchar(120)', (c) => c.notNull())
    // The body as first sent: every retry sends the same bytes under the same webhook-id.
    .addColumn('payload', longText, (c) => c.notNull())
    .addColumn('status', 'varchar(9)', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', t.bigint, (c) => c.notNull())
    .addColumn('first_attempt_at', t.bigint)
    .addColumn('lease_until', t.bigint)
    .addColumn('lease_token', 'varchar(36)')
    .addColumn('last_status', 'integer')
    .addColumn('last_duration_ms', 'integer')
    .addColumn('last_error', 'varchar(300)')
    .addColumn('created_at', t.bigint, (c) => c.notNull())
    .addColumn('updated_at', t.bigint, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_change_unique')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'db', 'seq'])
    .unique()
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_status_index')
    .on('webhook_deliveries')
    .columns(['status', 'webhook_id', 'id'])
    .execute();
  await t
    .table(
      db.schema
        .createTable('webhook_cursors')
        .addColumn('db', 'varchar(64)', (c) => c.primaryKey())
        .addColumn('seq', t.bigint, (c) => c.notNull()),
    )
    .execute();
}

export async function down(db: Db): Promise<void> {
  for (const table of ['webhook_cursors', 'webhook_deliveries', 'webhooks'])
    await db.schema.dropTable(table).execute();
}
