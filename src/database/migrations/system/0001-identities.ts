// System tables (DESIGN.md 3.3): companies, units, users, their links, groups and API tokens.
import type { Db } from '../../db.js';
import { columnTypes } from '../column-types.js';

export async function up(db: Db): Promise<void> {
  const t = columnTypes(db);
  await t
    .id(db.schema.createTable('companies'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('active', 'varchar(1)', (c) => c.notNull().defaultTo('Y'))
    .addColumn('created_at', t.timestamp)
    .addColumn('updated_at', t.timestamp)
    .execute();
  await t
    .id(db.schema.createTable('units'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    // A company with units cannot be deleted: its units' tokens would silently lose their tenant.
    .addColumn('company_id', t.bigint, (c) => c.references('companies.id').onDelete('restrict'))
    .addColumn('connection', 'varchar(64)')
    .addColumn('active', 'varchar(1)', (c) => c.notNull().defaultTo('Y'))
    .addColumn('created_at', t.timestamp)
    .addColumn('updated_at', t.timestamp)
    .execute();
  await t
    .id(db.schema.createTable('users'))
    .addColumn('login', 'varchar(100)', (c) => c.notNull().unique())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('email', 'varchar(255)')
    .addColumn('password_hash', 'varchar(255)', (c) => c.notNull())
    .addColumn('admin', 'varchar(1)', (c) => c.notNull().defaultTo('N'))
    .addColumn('active', 'varchar(1)', (c) => c.notNull().defaultTo('Y'))
    .addColumn('created_at', t.timestamp)
    .addColumn('updated_at', t.timestamp)
    .execute();
  await t
    .id(db.schema.createTable('user_units'))
    .addColumn('user_id', t.bigint, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('unit_id', t.bigint, (c) => c.notNull().references('units.id').onDelete('cascade'))
    .addUniqueConstraint('user_units_user_unit_unique', ['user_id', 'unit_id'])
    .execute();
  await db.schema
    .createIndex('user_units_unit_id_index')
    .on('user_units')
    .column('unit_id')
    .execute();
  await t
    .id(db.schema.createTable('groups'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('created_at', t.timestamp)
    .addColumn('updated_at', t.timestamp)
    .execute();
  await t
    .id(db.schema.createTable('user_groups'))
    .addColumn('user_id', t.bigint, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('group_id', t.bigint, (c) => c.notNull().references('groups.id').onDelete('cascade'))
    .addUniqueConstraint('user_groups_user_group_unique', ['user_id', 'group_id'])
    .execute();
  await db.schema
    .createIndex('user_groups_group_id_index')
    .on('user_groups')
    .column('group_id')
    .execute();
  await t
    .id(db.schema.createTable('api_tokens'))
    .addColumn('user_id', t.bigint, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('unit_id', t.bigint, (c) => c.notNull().references('units.id').onDelete('cascade'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('abilities', t.json, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp)
    .addColumn('last_used_at', t.timestamp)
    .addColumn('revoked_at', t.timestamp)
    .addColumn('created_at', t.timestamp)
    .execute();
}

export async function down(db: Db): Promise<void> {
  for (const table of [
    'api_tokens',
    'user_groups',
    'groups',
    'user_units',
    'users',
    'units',
    'companies',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
