// Issuing, listing and revoking API tokens: shared by the CLI and the token admin API. The
// plain token is returned once; only its hash is stored.
import type { Database } from '../../database/database.js';
import { type ErrorBag, errors } from '../../errors.js';
import { readCasts } from '../../model/casts.js';
import { issueToken } from './api-token.js';

export interface TokenRequest {
  readonly userId: number;
  readonly unitId: number;
  readonly name: string;
  readonly abilities: readonly string[];
  readonly expiresAt: Date | null;
}

export interface TokenRecord {
  readonly id: number;
  readonly user_id: number;
  readonly unit_id: number;
  readonly name: string;
  readonly abilities: string[];
  readonly expires_at: string | null;
  readonly last_used_at: string | null;
  readonly revoked_at: string | null;
  readonly created_at: string | null;
}

const iso = readCasts.datetime as (v: unknown) => string | null;

function toRecord(row: Record<string, unknown>): TokenRecord {
  const abilities = readCasts.json(row.abilities);
  return {
    id: Number(row.id),
    user_id: Number(row.user_id),
    unit_id: Number(row.unit_id),
    name: String(row.name),
    abilities: Array.isArray(abilities) ? abilities.map(String) : [],
    expires_at: iso(row.expires_at),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
    created_at: iso(row.created_at),
  };
}

/** Checks a token request (422 naming the field) and stores its hash; returns the plain token once. */
export async function createToken(
  database: Database,
  grantable: readonly string[],
  request: TokenRequest,
): Promise<{ token: string; record: TokenRecord }> {
  const bag: ErrorBag = {};
  const name = request.name.trim();
  if (name === '') bag.name = ['The name field is required.'];
  else if (name.length > 200)
    bag.name = ['The name field must not be greater than 200 characters.'];
  request.abilities.forEach((ability, i) => {
    if (!grantable.includes(ability))
      bag[`abilities.${i}`] = [`The ability "${ability}" is not declared on any route.`];
  });
  if (request.expiresAt && Number.isNaN(request.expiresAt.getTime()))
    bag.expires_at = ['The expires at field must be a valid date.'];
  // A token born expired is a mistake of its issuer, not a token (DESIGN.md 3.6 "Bounds").
  else if (request.expiresAt && request.expiresAt.getTime() <= Date.now())
    bag.expires_at = ['The expires at field must be a date after now.'];
  const { db, adapter } = database;
  const user = await db
    .selectFrom('users')
    .select('id')
    .where('id', '=', request.userId)
    .executeTakeFirst();
  if (!user) bag.user_id = ['The selected user id is invalid.'];
  const link = await db
    .selectFrom('user_units')
    .select('id')
    .where('user_id', '=', request.userId)
    .where('unit_id', '=', request.unitId)
    .executeTakeFirst();
  if (user && !link)
    bag.unit_id = ['The selected unit id is invalid: the unit does not belong to the user.'];
  if (Object.keys(bag).length > 0) throw errors.validation(bag);

  const issued = issueToken();
  const id = await adapter.insertReturningId(
    db,
    'api_tokens',
    {
      user_id: request.userId,
      unit_id: request.unitId,
      name,
      token_hash: issued.hash,
      abilities: JSON.stringify([...new Set(request.abilities)]),
      expires_at: request.expiresAt ? adapter.toTimestamp(request.expiresAt) : null,
      created_at: adapter.toTimestamp(new Date()),
    },
    'id',
  );
  const row = await db
    .selectFrom('api_tokens')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return { token: issued.plain, record: toRecord(row) };
}

export async function listTokens(database: Database): Promise<TokenRecord[]> {
  const rows = await database.db
    .selectFrom('api_tokens')
    .select([
      'id',
      'user_id',
      'unit_id',
      'name',
      'abilities',
      'expires_at',
      'last_used_at',
      'revoked_at',
      'created_at',
    ])
    .orderBy('id')
    .execute();
  return rows.map(toRecord);
}

/** Revokes a token; false when there is no such token. Revoking twice keeps the first time. */
export async function revokeToken(database: Database, id: number): Promise<TokenRecord | null> {
  const { db, adapter } = database;
  await db
    .updateTable('api_tokens')
    .set({ revoked_at: adapter.toTimestamp(new Date()) })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
  const row = await db.selectFrom('api_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toRecord(row) : null;
}
