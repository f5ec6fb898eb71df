// Import templates carry a version (issue 21 item 3): the engine increments it in every write of
// a template, details-only ones included, and answers it as the strong ETag. Existing rows start
// at 1, so every stored template stays readable and gets an ETag at once.
import type { Db } from '../../db.js';

export async function up(db: Db): Promise<void> {
  await db.schema
    .alterTable('import_templates')
    .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.alterTable('import_templates').dropColumn('version').execute();
}
