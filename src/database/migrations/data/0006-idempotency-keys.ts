// Idempotency keys of creates (issue 21 item 4, docs/api.md "Idempotent creates"). A data table:
// it lives in every database that holds records (the main one and each unit's), so a key's
// answer is stored in the same transaction as the record it created. A row is a claim while
// `claim` is set (the request is running) and a stored answer once it is null. Times are epoch
// milliseconds, compared the same way on every engine.
import { sql } from 'kysely';
import { adapterOf } from '../../connect.js';
import type { Db } from '../../db.js';
import { columnTypes } from '../column-types.js';

export async function up(db: Db): Promise<void> {
  const types = columnTypes(db);
  // An answer may be large (a record with 1,000 detail rows): MySQL's text stops at 64 KiB.
  const answer = adapterOf(db).name === 'mysql' ? sql`longtext` : 'text';
  await types
    .table(
      db.schema
        .createTable('idempotency_keys')
        .addColumn('caller', 'varchar(64)', (c) => c.notNull())
        .addColumn('idempotency_key', 'varchar(255)', (c) => c.notNull())
        .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
        .addColumn('claim', 'varchar(32)')
        .addColumn('claimed_at', types.bigint, (c) => c.notNull())
        .addColumn('expires_at', types.bigint, (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('etag', 'varchar(100)')
        .addColumn('answer', answer)
        .addPrimaryKeyConstraint('idempotency_keys_primary', ['caller', 'idempotency_key']),
    )
    .execute();
  await db.schema
    .createIndex('idempotency_keys_expires_at_index')
    .on('idempotency_keys')
    .column('expires_at')
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
