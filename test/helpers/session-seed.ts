// Rows the session tests start from, written straight to the database (set-up, not behaviour
// under test): users who can log in (a real password hash), units, and user-unit links.
import { hashPassword } from '../../src/auth/passwords.js';
import type { Db } from '../../src/database/db.js';
import { insertRow } from './rows.js';

const now = () => new Date().toISOString();

export const USER_PASSWORD = 'user-password-for-tests';

export async function seedUnit(
  db: Db,
  name: string,
  companyId: number | null = 1,
): Promise<number> {
  const row = await insertRow(db, 'units', {
    name,
    company_id: companyId,
    active: 'Y',
    created_at: now(),
    updated_at: now(),
  });
  return row;
}

export async function linkUnit(db: Db, userId: number, unitId: number): Promise<void> {
  await db.insertInto('user_units').values({ user_id: userId, unit_id: unitId }).execute();
}

/** A user with password USER_PASSWORD (non-admin unless told), linked to the given units in order. */
export async function seedLoginUser(
  db: Db,
  login: string,
  unitIds: readonly number[],
  admin: 'Y' | 'N' = 'N',
): Promise<number> {
  const row = await insertRow(db, 'users', {
    login,
    name: `User ${login}`,
    email: `${login}@example.test`,
    password_hash: await hashPassword(USER_PASSWORD),
    admin,
    active: 'Y',
    created_at: now(),
    updated_at: now(),
  });
  const userId = row;
  for (const unitId of unitIds) await linkUnit(db, userId, unitId);
  return userId;
}
