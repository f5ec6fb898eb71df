// PostgreSQL only: the indexes that serve a list's sort, rebuilt with the sort column NULLS
// FIRST. Lists sort NULL lowest on every engine, so PostgreSQL is asked for `asc nulls first` /
// `desc nulls last`; a plain index (asc nulls last) serves neither direction, and every page
// sorted the whole table (npm run bench -- --engine postgres, 10,000 templates: L1 page 10.5 ms
// with a sequential scan and a top-N sort, 0.8 ms through the index). An index built `asc nulls
// first` serves both: forwards for asc, backwards for desc. SQLite's and MySQL's plain indexes
// already put NULL first, so there this migration does nothing.
import { sql } from 'kysely';
import { adapterOf } from '../../connect.js';
import type { Db } from '../../db.js';

// name, table, the key columns; `*` marks the sort column
const INDEXES: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ['import_templates_title_index', 'import_templates', ['*title']],
  ['import_templates_code_index', 'import_templates', ['*code']],
  ['import_templates_created_at_index', 'import_templates', ['*created_at']],
  ['import_templates_updated_at_index', 'import_templates', ['*updated_at']],
  [
    'import_templates_active_created_at_id_title_index',
    'import_templates',
    ['active', '*created_at', 'id', 'title'],
  ],
  [
    'import_template_logs_unit_id_created_at_index',
    'import_template_logs',
    ['unit_id', '*created_at'],
  ],
];

async function rebuild(db: Db, nullsFirst: boolean): Promise<void> {
  for (const [name, table, columns] of INDEXES) {
    const keys = columns.map((c) =>
      c.startsWith('*') && nullsFirst
        ? sql`${sql.ref(c.slice(1))} nulls first`
        : sql.ref(c.replace(/^\*/, '')),
    );
    await db.schema.dropIndex(name).execute();
    await sql`create index ${sql.id(name)} on ${sql.table(table)} (${sql.join(keys)})`.execute(db);
  }
}

export async function up(db: Db): Promise<void> {
  if (!adapterOf(db).nullsSortLow) await rebuild(db, true);
}

export async function down(db: Db): Promise<void> {
  if (!adapterOf(db).nullsSortLow) await rebuild(db, false);
}
