// The whole token check in one indexed statement (DESIGN.md 4): the token by its hash with its
// user, unit and company (auth/identity-query.ts), so every request re-validates the scope, and,
// when the failure counters live in the same database, the caller IP's failure window. On SQLite
// a repeated check is answered from the exact result memo (statement-runner `reuse`) until a commit
// that may change one of the tables it reads: writes to the resources' own tables leave it.

import { type Expression, sql } from 'kysely';
import type { Database } from '../../database/database.js';
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { param, runStatement, statementSite } from '../../database/statement-runner.js';
import { readCasts, toMillis } from '../../model/casts.js';
import type { Row } from '../../model/entity.js';
import type { FailureWindow } from '../failure-limiter.js';
import {
  CREDENTIAL_IDS,
  IDENTITY_TABLES,
  type Identity,
  identityExpressions,
  identityOf,
} from '../identity-query.js';
import { failureWindow } from '../stores/database-failure-store.js';

export interface TokenIdentity extends Identity {
  readonly tokenId: number;
  readonly tokenHash: string;
  readonly abilities: readonly string[];
  /** Epoch milliseconds, or null for none. */
  readonly expiresAt: number | null;
  readonly revokedAt: unknown;
  /** Epoch milliseconds, or null for never. */
  readonly lastUsedAt: number | null;
  /** The caller IP's failure window, when it was asked for (`ip`). */
  readonly ipWindow: FailureWindow | null;
  /** What the check decided on, as text, where a statement can carry the check (else null). */
  readonly fingerprint: string | null;
}

function ipWindow(value: unknown) {
  const window = readCasts.json(value) as { failures?: unknown; started_at?: unknown } | null;
  return window && typeof window === 'object'
    ? failureWindow(window.failures, window.started_at)
    : null;
}

function parseAbilities(value: unknown): string[] {
  try {
    const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
    return Array.isArray(parsed) ? parsed.filter((a): a is string => typeof a === 'string') : [];
  } catch {
    return [];
  }
}

const TOKEN_IDENTITY = statementSite('token identity');

const TOKEN_MEMO = { tables: ['api_tokens', 'auth_failures', ...IDENTITY_TABLES] };

/**
 * The token's columns by name, for the token `hash` (and the failure window of `ip`, when
 * given) over alias `c`: what the check reads, and what its fingerprint is made of.
 */
function tokenExpressions(
  adapter: DialectAdapter,
  ip: Expression<unknown> | null,
): Record<string, Expression<unknown>> {
  const columns: Record<string, Expression<unknown>> = {
    token_id: sql.ref('c.id'),
    token_hash: sql.ref('c.token_hash'),
    abilities: sql.ref('c.abilities'),
    expires_at: sql.ref('c.expires_at'),
    revoked_at: sql.ref('c.revoked_at'),
    ...identityExpressions(adapter, CREDENTIAL_IDS),
  };
  if (ip !== null) {
    const window = adapter.jsonObject({
      failures: sql.ref('failures'),
      started_at: sql.ref('window_started_at'),
    });
    columns.ip_window = sql`(select ${window} from auth_failures where ip = ${ip})`;
  }
  return columns;
}

/**
 * Everything the check decides on, as one text (adapter.jsonText): equal texts, equal verdicts
 * at the same clock. last_used_at is left out: it moves once a minute and decides nothing.
 */
function fingerprint(
  adapter: DialectAdapter,
  jsonText: NonNullable<DialectAdapter['jsonText']>,
  ip: Expression<unknown> | null,
) {
  return jsonText(adapter.jsonObject(tokenExpressions(adapter, ip)));
}

/**
 * The column that carries the check in another statement (carried-token-check.ts): whether the
 * token `hash_param` still has the fingerprint `fingerprint_param`; null when it is gone.
 */
export function carriedFingerprintTest(
  adapter: DialectAdapter,
  jsonText: NonNullable<DialectAdapter['jsonText']>,
  names: { readonly hash: string; readonly ip: string | null; readonly fingerprint: string },
) {
  const ip = names.ip === null ? null : param(names.ip);
  return sql<
    boolean | null
  >`((select ${fingerprint(adapter, jsonText, ip)} from api_tokens as c where c.token_hash = ${param(names.hash)}) = ${param(names.fingerprint)})`;
}

/** The token by its hash; with `ip`, also that IP's failure window from auth_failures. */
export async function findTokenIdentity(
  database: Database,
  hash: string,
  ip: string | null,
): Promise<TokenIdentity | null> {
  const { db, adapter } = database;
  const [row] = await runStatement<Row>(
    db,
    [TOKEN_IDENTITY, ip !== null],
    () => {
      const ipParam = ip === null ? null : param('ip');
      const columns: Record<string, Expression<unknown>> = {
        ...tokenExpressions(adapter, ipParam),
        last_used_at: sql.ref('c.last_used_at'),
      };
      if (adapter.jsonText)
        columns.identity_fingerprint = fingerprint(adapter, adapter.jsonText, ipParam);
      return db
        .selectFrom('api_tokens as c')
        .select(Object.entries(columns).map(([name, expression]) => sql`${expression}`.as(name)))
        .where('c.token_hash', '=', param('hash'));
    },
    ip === null ? { hash } : { hash, ip },
    // Exact: answered from the last result only while no commit may have changed these tables.
    { reuse: TOKEN_MEMO },
  );
  if (!row) return null;
  let identity = parsed.get(row);
  if (!identity) parsed.set(row, (identity = tokenIdentity(row)));
  return identity;
}

/** A memoised result is the same row object again: its parsed form is kept with it. */
const parsed = new WeakMap<Row, TokenIdentity>();

/** Frozen: concurrent requests may hold the same memoised identity. */
function tokenIdentity(row: Row): TokenIdentity {
  const identity = identityOf(row);
  if (identity.user) Object.freeze(identity.user);
  return Object.freeze({
    ...identity,
    tokenId: Number(row.token_id),
    tokenHash: String(row.token_hash),
    expiresAt: toMillis(row.expires_at),
    revokedAt: row.revoked_at,
    lastUsedAt: toMillis(row.last_used_at),
    ipWindow: ipWindow(row.ip_window),
    fingerprint: row.identity_fingerprint == null ? null : String(row.identity_fingerprint),
    abilities: Object.freeze(parseAbilities(row.abilities)),
  });
}
