// Import templates are tenant-bound under TENANT_ISOLATION=true (issue 19, DESIGN.md 3.6):
// `company_id` stamps each with its company. Existing rows stay readable: where the system
// tables live in the same database (the main one), a template takes the company of its
// creator's first unit with a company (the unit a session starts in), else the first company
// (`Default` on a bootstrapped database). Without isolation the column is not read.
import { sql } from 'kysely';
import { adapterOf } from '../../connect.js';
import type { Db } from '../../db.js';

async function hasTable(db: Db, name: string): Promise<boolean> {
  const tables = await db.introspection.getTables();
  return tables.some((table) => table.name === name);
}

export async function up(db: Db): Promise<void> {
  await db.schema.alterTable('import_templates').addColumn('company_id', 'bigint').execute();
  await db.schema
    .createIndex('import_templates_company_id_index')
    .on('import_templates')
    .column('company_id')
    .execute();
  if (!(await hasTable(db, 'user_units')) || !(await hasTable(db, 'companies'))) return;
  await sql`
    update import_templates set company_id = (
      select units.company_id from user_units
      join units on units.id = user_units.unit_id
      where user_units.user_id = import_templates.created_by and units.company_id is not null
      order by user_units.id
      limit 1
    )
    where company_id is null`.execute(db);
  await sql`
    update import_templates set company_id = (select min(id) from companies)
    where company_id is null`.execute(db);
}

export async function down(db: Db): Promise<void> {
  const drop = db.schema.dropIndex('import_templates_company_id_index');
  // MySQL names the table of an index; the others refuse it.
  await (adapterOf(db).name === 'mysql' ? drop.on('import_templates') : drop).execute();
  await db.schema.alterTable('import_templates').dropColumn('company_id').execute();
}
