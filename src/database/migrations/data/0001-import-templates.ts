// Data tables: import templates, their detail rows and their run logs. These live in a unit's
// own database when the unit has a connection (DESIGN.md 3.5), so they hold no foreign keys to
// system tables (users, groups, units): the resource rules check those ids instead.
import type { Db } from '../../db.js';
import { columnTypes } from '../column-types.js';

export async function up(db: Db): Promise<void> {
  const t = columnTypes(db);
  await t
    .id(db.schema.createTable('import_templates'))
    .addColumn('title', 'varchar(200)', (c) => c.notNull())
    .addColumn('code', 'varchar(100)')
    .addColumn('description', 'text')
    .addColumn('database_name', 'varchar(200)', (c) => c.notNull())
    .addColumn('mapping_json', 'text', (c) => c.notNull())
    .addColumn('csv_model_path', 'varchar(500)')
    .addColumn('import_mode', 'varchar(50)')
    .addColumn('active', 'varchar(1)', (c) => c.defaultTo('Y'))
    .addColumn('created_by', t.bigint)
    .addColumn('created_at', t.timestamp)
    .addColumn('updated_at', t.timestamp)
    .execute();
  // One index per searchable and sortable column; (active, created_at) serves the common
  // "active ones, newest first" list.
  const indexes: Array<[string, string[]]> = [
    ['title', ['title']],
    ['code', ['code']],
    ['database_name', ['database_name']],
    ['active_created_at', ['active', 'created_at']],
    ['created_by', ['created_by']],
    ['created_at', ['created_at']],
    ['updated_at', ['updated_at']],
  ];
  for (const [name, columns] of indexes) {
    await db.schema
      .createIndex(`import_templates_${name}_index`)
      .on('import_templates')
      .columns(columns)
      .execute();
  }
  for (const [table, column] of [
    ['import_template_groups', 'group_id'],
    ['import_template_users', 'user_id'],
  ] as const) {
    await t
      .id(db.schema.createTable(table))
      .addColumn('template_id', t.bigint, (c) =>
        c.notNull().references('import_templates.id').onDelete('cascade'),
      )
      .addColumn(column, t.bigint, (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex(`${table}_template_id_index`)
      .on(table)
      .column('template_id')
      .execute();
  }
  await t
    .id(db.schema.createTable('import_template_logs'))
    .addColumn('template_id', t.bigint, (c) =>
      c.notNull().references('import_templates.id').onDelete('cascade'),
    )
    .addColumn('unit_id', t.bigint)
    .addColumn('status', 'varchar(20)', (c) => c.notNull())
    .addColumn('message', 'text')
    .addColumn('rows_total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rows_failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', t.timestamp)
    .execute();
  await db.schema
    .createIndex('import_template_logs_template_id_index')
    .on('import_template_logs')
    .column('template_id')
    .execute();
  await db.schema
    .createIndex('import_template_logs_unit_id_created_at_index')
    .on('import_template_logs')
    .columns(['unit_id', 'created_at'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  for (const table of [
    'import_template_logs',
    'import_template_users',
    'import_template_groups',
    'import_templates',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
