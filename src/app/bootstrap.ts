// First start (DESIGN.md 3.1): on a database without users, create company Default, unit Main
// in it, and the admin user linked to Main. The password is ADMIN_PASSWORD or a generated one,
// reported once through `announce` (the log) and never stored in clear.
import { randomBytes } from 'node:crypto';
import { hashPassword } from '../auth/passwords.js';
import type { Database } from '../database/database.js';

export interface BootstrapResult {
  readonly created: boolean;
  readonly generatedPassword: string | null;
}

export async function bootstrap(
  database: Database,
  adminPassword: string | null,
): Promise<BootstrapResult> {
  const { db, adapter } = database;
  const existing = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (existing) return { created: false, generatedPassword: null };
  const password = adminPassword ?? randomBytes(12).toString('base64url');
  const passwordHash = await hashPassword(password);
  const now = adapter.toTimestamp(new Date());
  await database.transaction(async (trx) => {
    const companyId = await adapter.insertReturningId(
      trx,
      'companies',
      { name: 'Default', active: 'Y', created_at: now, updated_at: now },
      'id',
    );
    const unitId = await adapter.insertReturningId(
      trx,
      'units',
      { name: 'Main', company_id: companyId, active: 'Y', created_at: now, updated_at: now },
      'id',
    );
    const userId = await adapter.insertReturningId(
      trx,
      'users',
      {
        login: 'admin',
        name: 'Administrator',
        password_hash: passwordHash,
        admin: 'Y',
        active: 'Y',
        created_at: now,
        updated_at: now,
      },
      'id',
    );
    await trx.insertInto('user_units').values({ user_id: userId, unit_id: unitId }).execute();
  });
  return { created: true, generatedPassword: adminPassword ? null : password };
}
