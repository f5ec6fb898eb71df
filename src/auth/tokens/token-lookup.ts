// The whole token check in one indexed statement (DESIGN.md 4): the token by its hash, with its
// user, unit, the unit's company and whether the unit is still linked to the user, so every
// request re-validates the scope (SPEC.md 5.1.2) at the cost of one lookup.
import { sql } from 'kysely';
import type { Db } from '../../database/database.js';
import type { Row } from '../../model/entity.js';

export interface TokenIdentity {
  readonly tokenId: number;
  readonly tokenHash: string;
  readonly abilities: readonly string[];
  readonly expiresAt: unknown;
  readonly revokedAt: unknown;
  readonly lastUsedAt: unknown;
  /** The user's stored record, or null when the user no longer exists. */
  readonly user: Row | null;
  readonly unit: { readonly id: number; readonly active: unknown; readonly companyId: number | null; readonly connection: string | null } | null;
  readonly company: { readonly id: number; readonly active: unknown } | null;
  readonly linked: boolean;
}

const USER_COLUMNS = ['id', 'login', 'name', 'email', 'admin', 'active', 'created_at', 'updated_at'] as const;

function parseAbilities(value: unknown): string[] {
  try {
    const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
    return Array.isArray(parsed) ? parsed.filter((a): a is string => typeof a === 'string') : [];
  } catch {
    return [];
  }
}

export async function findTokenIdentity(db: Db, hash: string): Promise<TokenIdentity | null> {
  const row: Row | undefined = await db
    .selectFrom('api_tokens as t')
    .leftJoin('users as u', 'u.id', 't.user_id')
    .leftJoin('units as n', 'n.id', 't.unit_id')
    .leftJoin('companies as c', 'c.id', 'n.company_id')
    .select(['t.id as token_id', 't.token_hash', 't.abilities', 't.expires_at', 't.revoked_at', 't.last_used_at'])
    .select(USER_COLUMNS.map((c) => `u.${c} as user_${c}` as const))
    .select(['n.id as unit_id', 'n.active as unit_active', 'n.company_id as unit_company_id', 'n.connection as unit_connection'])
    .select(['c.id as company_id', 'c.active as company_active'])
    .select(
      sql<number>`(select count(*) from user_units l where l.user_id = t.user_id and l.unit_id = t.unit_id)`.as('linked'),
    )
    .where('t.token_hash', '=', hash)
    .executeTakeFirst();
  if (!row) return null;
  return {
    tokenId: Number(row.token_id),
    tokenHash: String(row.token_hash),
    abilities: parseAbilities(row.abilities),
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
    user: row.user_id == null ? null : Object.fromEntries(USER_COLUMNS.map((c) => [c, row[`user_${c}`]])),
    unit:
      row.unit_id == null
        ? null
        : {
            id: Number(row.unit_id),
            active: row.unit_active,
            companyId: row.unit_company_id == null ? null : Number(row.unit_company_id),
            connection: (row.unit_connection as string | null) ?? null,
          },
    company: row.company_id == null ? null : { id: Number(row.company_id), active: row.company_active },
    linked: Number(row.linked) > 0,
  };
}
