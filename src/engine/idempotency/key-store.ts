// The stored Idempotency-Keys of creates (table idempotency_keys, data migration 0006), shared by
// every instance through the database. A key goes through two states:
// - claimed: inserted, and committed at once, before the create's transaction begins, so a
//   retry that arrives while the first request runs sees it (409) instead of waiting for it;
// - answered: the create's own transaction sets the answer and clears the claim, so the record
//   and its stored answer commit together or not at all.
// A create that fails deletes its claim: a corrected retry with the same key runs afresh. A claim
// whose instance died is taken over after CLAIM_EXPIRY_MS; the answer is only stored by the
// holder of the current claim, so the slower of two holders rolls back instead of creating twice.
import { randomBytes } from 'node:crypto';
import type { Db } from '../../database/db.js';
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { param, runStatement, statementSite } from '../../database/statement-runner.js';
import { errors } from '../../errors.js';

const TABLE = 'idempotency_keys';
/** A claim older than this belongs to a request that died with its instance: another may take it. */
export const CLAIM_EXPIRY_MS = 60_000;
/** How often one process deletes a database's expired keys (one indexed statement). */
const SWEEP_EVERY_MS = 60_000;

export interface KeyRequest {
  /** `token:<id>` or `user:<id>` (EngineContext.caller). */
  readonly caller: string;
  readonly key: string;
  /** What the request asked for (method, route, body): a retry must ask for the same. */
  readonly fingerprint: string;
}

export interface StoredAnswer {
  readonly status: number;
  readonly etag: string | null;
  /** The answer's JSON text, as first sent. */
  readonly body: string;
}

export type ClaimOutcome =
  | { readonly kind: 'claimed'; readonly claim: string }
  | { readonly kind: 'answered'; readonly answer: StoredAnswer }
  | { readonly kind: 'running' }
  | { readonly kind: 'mismatch' };

interface KeyRow {
  readonly fingerprint: string;
  readonly claim: string | null;
  readonly claimed_at: number | string;
  readonly expires_at: number | string;
  readonly status: number | null;
  readonly etag: string | null;
  readonly answer: string | null;
}

const READ_KEY = statementSite('idempotency key');
const lastSweep = new WeakMap<Db, number>();

/** Deletes the expired keys of `db`, at most once a minute per process. */
async function sweep(db: Db, now: number): Promise<void> {
  if ((lastSweep.get(db) ?? Number.NEGATIVE_INFINITY) > now - SWEEP_EVERY_MS) return;
  lastSweep.set(db, now);
  await db.deleteFrom(TABLE).where('expires_at', '<=', now).execute();
}

/** The key's row as committed (on SQLite, read beside a write transaction that may be running). */
async function readKey(db: Db, request: KeyRequest): Promise<KeyRow | undefined> {
  const [row] = await runStatement<KeyRow>(
    db,
    [READ_KEY],
    () =>
      db
        .selectFrom(TABLE)
        .select(['fingerprint', 'claim', 'claimed_at', 'expires_at', 'status', 'etag', 'answer'])
        .where('caller', '=', param('caller'))
        .where('idempotency_key', '=', param('key')),
    { caller: request.caller, key: request.key },
  );
  return row;
}

const newClaim = () => randomBytes(16).toString('hex');

/** Claims `request`'s key for a create about to run, or says what the key already holds. */
export async function claimKey(
  db: Db,
  adapter: DialectAdapter,
  request: KeyRequest,
  ttlMs: number,
  now = Date.now(),
): Promise<ClaimOutcome> {
  await sweep(db, now);
  // Three rounds at most: an expired row deleted, then a claim lost to a concurrent insert.
  for (let round = 0; round < 3; round += 1) {
    const row = await readKey(db, request);
    if (!row) {
      const claim = newClaim();
      try {
        await db
          .insertInto(TABLE)
          .values({
            caller: request.caller,
            idempotency_key: request.key,
            fingerprint: request.fingerprint,
            claim,
            claimed_at: now,
            expires_at: now + ttlMs,
          })
          .execute();
        return { kind: 'claimed', claim };
      } catch (error) {
        if (adapter.translateError(error)?.kind !== 'unique') throw error;
        continue;
      }
    }
    if (Number(row.expires_at) <= now) {
      await db
        .deleteFrom(TABLE)
        .where('caller', '=', request.caller)
        .where('idempotency_key', '=', request.key)
        .where('expires_at', '<=', now)
        .execute();
      continue;
    }
    if (row.fingerprint !== request.fingerprint) return { kind: 'mismatch' };
    if (row.claim === null)
      return {
        kind: 'answered',
        answer: { status: Number(row.status), etag: row.etag, body: row.answer ?? '' },
      };
    if (Number(row.claimed_at) <= now - CLAIM_EXPIRY_MS) {
      const claim = newClaim();
      const taken = await db
        .updateTable(TABLE)
        .set({ claim, claimed_at: now })
        .where('caller', '=', request.caller)
        .where('idempotency_key', '=', request.key)
        .where('claim', '=', row.claim)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return { kind: 'claimed', claim };
    }
    return { kind: 'running' };
  }
  return { kind: 'running' };
}

/**
 * Stores the answer of the create holding `claim`, in the create's transaction (`trx`). A claim
 * taken over meanwhile is a 409, which rolls the create back: the key's new holder creates.
 */
export async function storeAnswer(
  trx: Db,
  request: KeyRequest,
  claim: string,
  answer: StoredAnswer,
): Promise<void> {
  const stored = await trx
    .updateTable(TABLE)
    .set({ claim: null, status: answer.status, etag: answer.etag, answer: answer.body })
    .where('caller', '=', request.caller)
    .where('idempotency_key', '=', request.key)
    .where('claim', '=', claim)
    .executeTakeFirst();
  if (Number(stored.numUpdatedRows) !== 1) throw errors.idempotencyKeyInUse();
}

/** Frees the key of a create that failed, so a corrected retry with the same key runs. */
export async function releaseKey(db: Db, request: KeyRequest, claim: string): Promise<void> {
  await db
    .deleteFrom(TABLE)
    .where('caller', '=', request.caller)
    .where('idempotency_key', '=', request.key)
    .where('claim', '=', claim)
    .execute();
}
