// Rows the tests start from, written straight to the database (set-up, not behaviour under test).
import type { Db } from '../../src/database/db.js';
import { insertRow } from './rows.js';

const now = () => new Date().toISOString();

export async function seedUsers(db: Db, logins: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const login of logins) {
    const row = await insertRow(db, 'users', {
      login,
      name: `User ${login}`,
      email: `${login}@example.test`,
      password_hash: 'x',
      created_at: now(),
      updated_at: now(),
    });
    ids.push(row);
  }
  return ids;
}

export async function seedGroups(db: Db, names: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const name of names) {
    const row = await insertRow(db, 'groups', { name, created_at: now(), updated_at: now() });
    ids.push(row);
  }
  return ids;
}

/** A valid import-template payload; override any field. */
export function templatePayload(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Customers',
    code: 'CUST',
    description: 'Customer import',
    database_name: 'erp',
    mapping_json: JSON.stringify({ columns: [{ source: 'a', target: 'b' }] }),
    csv_model_path: '/models/customers.csv',
    import_mode: 'upsert',
    active: 'Y',
    ...overrides,
  };
}
