// Import templates written straight to the database (set-up, not behaviour under test), each
// returned as the JSON record the resource must answer for it (SPEC.md 2.3, DESIGN.md 3.6:
// creator, detail rows and every <relation>_count), and table snapshots for "nothing saved".
import type { Db } from '../../src/database/db.js';
import { insertRow } from './rows.js';

export interface DetailRow {
  id: number;
  template_id: number;
  group_id?: number;
  user_id?: number;
}

export interface TemplateRecord {
  id: number;
  title: string;
  code: string | null;
  description: string | null;
  database_name: string;
  mapping_json: string;
  csv_model_path: string | null;
  import_mode: string | null;
  active: string | null;
  created_by: number | null;
  created_at: string;
  updated_at: string;
  creator: { id: number; login: string; name: string } | null;
  groups: DetailRow[];
  users: DetailRow[];
  groups_count: number;
  users_count: number;
  logs_count: number;
}

export interface TemplateSeed {
  title: string;
  code?: string | null;
  description?: string | null;
  database_name?: string;
  mapping_json?: string;
  csv_model_path?: string | null;
  import_mode?: string | null;
  active?: string | null;
  created_by?: number | null;
  created_at?: string;
  updated_at?: string;
  /** group ids, one detail row each */
  groups?: number[];
  /** user ids, one detail row each */
  users?: number[];
  /** how many run logs to add, in unit 1 (the test server's token unit; logs are unit-bound) */
  logs?: number;
}

const STAMP = '2024-01-01T00:00:00.000Z';

export async function creatorOf(db: Db, userId: number | null): Promise<TemplateRecord['creator']> {
  if (userId === null) return null;
  const row = await db
    .selectFrom('users')
    .select(['id', 'login', 'name'])
    .where('id', '=', userId)
    .executeTakeFirst();
  return row ? { id: Number(row.id), login: String(row.login), name: String(row.name) } : null;
}

export async function insertTemplate(db: Db, seed: TemplateSeed): Promise<TemplateRecord> {
  const master = {
    title: seed.title,
    code: seed.code === undefined ? null : seed.code,
    description: seed.description ?? null,
    database_name: seed.database_name ?? 'erp',
    mapping_json: seed.mapping_json ?? '{"columns":[]}',
    csv_model_path: seed.csv_model_path ?? null,
    import_mode: seed.import_mode ?? null,
    active: seed.active === undefined ? 'Y' : seed.active,
    created_by: seed.created_by ?? null,
    created_at: seed.created_at ?? STAMP,
    updated_at: seed.updated_at ?? seed.created_at ?? STAMP,
  };
  const inserted = await insertRow(db, 'import_templates', master);
  const id = inserted;
  const detail = async (
    table: string,
    column: 'group_id' | 'user_id',
    values: number[],
  ): Promise<DetailRow[]> => {
    const rows: DetailRow[] = [];
    for (const value of values) {
      const row = await insertRow(db, table, { template_id: id, [column]: value });
      rows.push({ id: row, template_id: id, [column]: value });
    }
    return rows;
  };
  const groups = await detail('import_template_groups', 'group_id', seed.groups ?? []);
  const users = await detail('import_template_users', 'user_id', seed.users ?? []);
  for (let i = 0; i < (seed.logs ?? 0); i++) {
    await insertRow(db, 'import_template_logs', {
      template_id: id,
      unit_id: 1,
      status: 'succeeded',
      created_at: STAMP,
    });
  }
  return {
    id,
    ...master,
    creator: await creatorOf(db, master.created_by),
    groups,
    users,
    groups_count: groups.length,
    users_count: users.length,
    logs_count: seed.logs ?? 0,
  };
}

/** Every row of the import-template tables, in key order, as one comparable value. */
export async function snapshot(db: Db): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of ['import_templates', 'import_template_groups', 'import_template_users']) {
    out[table] = await db.selectFrom(table).selectAll().orderBy('id').execute();
  }
  return out;
}

/** Row counts of the import-template tables. */
export async function counts(db: Db): Promise<Record<string, number>> {
  const snap = await snapshot(db);
  return Object.fromEntries(Object.entries(snap).map(([table, rows]) => [table, rows.length]));
}

/** The stored detail rows of one template, in key order, as the resource serialises them. */
export async function storedDetails(
  db: Db,
  templateId: number,
): Promise<{ groups: DetailRow[]; users: DetailRow[] }> {
  const read = async (table: string, column: 'group_id' | 'user_id'): Promise<DetailRow[]> => {
    const rows = await db
      .selectFrom(table)
      .selectAll()
      .where('template_id', '=', templateId)
      .orderBy('id')
      .execute();
    return rows.map((r: Record<string, unknown>) => ({
      id: Number(r.id),
      template_id: Number(r.template_id),
      [column]: Number(r[column]),
    }));
  };
  return {
    groups: await read('import_template_groups', 'group_id'),
    users: await read('import_template_users', 'user_id'),
  };
}
