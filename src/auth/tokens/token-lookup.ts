// The whole token check in one indexed statement (DESIGN.md 4): the token by its hash with its
// user, unit and company (auth/identity-query.ts), so every request re-validates the scope.
import type { Db } from '../../database/database.js';
import { param, runCached } from '../../database/query-cache.js';
import type { Row } from '../../model/entity.js';
import { identityOf, withIdentity, type Identity } from '../identity-query.js';

export interface TokenIdentity extends Identity {
  readonly tokenId: number;
  readonly tokenHash: string;
  readonly abilities: readonly string[];
  readonly expiresAt: unknown;
  readonly revokedAt: unknown;
  readonly lastUsedAt: unknown;
}

function parseAbilities(value: unknown): string[] {
  try {
    const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
    return Array.isArray(parsed) ? parsed.filter((a): a is string => typeof a === 'string') : [];
  } catch {
    return [];
  }
}

export async function findTokenIdentity(db: Db, hash: string): Promise<TokenIdentity | null> {
  const [row] = await runCached<Row>(
    db,
    'token-identity',
    () =>
      withIdentity(
        db
          .selectFrom('api_tokens as c')
          .select(['c.id as token_id', 'c.token_hash', 'c.abilities', 'c.expires_at', 'c.revoked_at', 'c.last_used_at'])
          .where('c.token_hash', '=', param('hash')),
      ),
    { hash },
  );
  if (!row) return null;
  return {
    ...identityOf(row),
    tokenId: Number(row.token_id),
    tokenHash: String(row.token_hash),
    abilities: parseAbilities(row.abilities),
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}
