// Issue 22: the state of each token that the last full check of this process saw pass, per
// database, which carryBearerCheck (bearer-guard.ts) reads its route's statement on. Only what
// the database said; a token leaves when a carried test finds its state moved.
import type { Database } from '../../database/database.js';
import type { TokenIdentity } from './token-lookup.js';

export interface KnownToken {
  readonly identity: TokenIdentity;
  /** When the token's last use was stored (epoch ms), or null for never. */
  readonly lastUsedAt: number | null;
}

/** Tokens kept per database; past it the store starts again empty. */
const LIMIT = 1000;
const stores = new WeakMap<Database, Map<string, KnownToken>>();

/** By hash, and by the caller IP where the check reads its failure window too. */
const keyOf = (hash: string, ip: string | null) => (ip === null ? hash : `${hash}\u0000${ip}`);

export function rememberToken(
  database: Database,
  hash: string,
  ip: string | null,
  identity: TokenIdentity,
  lastUsedAt: number | null,
): void {
  // Without a fingerprint (an engine that cannot carry the check) there is nothing to carry.
  if (identity.fingerprint === null) return;
  let store = stores.get(database);
  if (!store) stores.set(database, (store = new Map()));
  if (store.size >= LIMIT) store.clear();
  store.set(keyOf(hash, ip), { identity, lastUsedAt });
}

export function knownToken(
  database: Database,
  hash: string,
  ip: string | null,
): KnownToken | undefined {
  return stores.get(database)?.get(keyOf(hash, ip));
}

export function forgetToken(database: Database, hash: string, ip: string | null): void {
  stores.get(database)?.delete(keyOf(hash, ip));
}
