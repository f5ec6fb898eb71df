// The deliveries outbox (DESIGN.md 3.10), in the main database: each database's change log is
// turned into one delivery per change and subscribed endpoint (fanOut, under that database's
// cursor row, so with several instances a change becomes deliveries once), then an endpoint's
// oldest pending deliveries are claimed together with a lease (claimBatch: one read, then one
// compare-and-set UPDATE of their lease, so of several instances one claims them; stricter than
// FOR UPDATE SKIP LOCKED, which would let a second instance take the deliveries after a held
// run and send them out of order, and the same on every engine), sent one after another, and
// their outcomes recorded against the lease in one UPDATE (settleBatch). A worker killed after
// its claim leaves a lease that runs out: the deliveries are claimed again. Only a run from an
// endpoint's oldest pending delivery is ever claimed: deliveries go out in order, one at a time.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../database/database.js';
import { changeOf } from '../engine/changes/change.js';
import { readTail, TAIL_BATCH } from '../engine/changes/change-tail.js';
import { refreshKnownSeq } from '../engine/changes/retention.js';
import type { Row } from '../model/entity.js';
import { subscribes } from './webhook-events.js';

export const DELIVERIES = 'webhook_deliveries';
const CURSORS = 'webhook_cursors';
/** How long a claim holds a delivery: past the attempt's time limit, with room. */
export const LEASE_MS = 15_000;

export type DeliveryStatus = 'pending' | 'succeeded' | 'dead';

const lockingReads = (db: Database) => db.adapter.name !== 'sqlite';

/** Whether any endpoint is active (one indexed read of at most one row). */
export async function hasActiveEndpoints(system: Database): Promise<boolean> {
  const rows = await system.db
    .selectFrom('webhooks')
    .select('id')
    .where('active', '=', 'Y')
    .limit(1)
    .execute();
  return rows.length > 0;
}

/** What fanOut needs of the app: the resources whose ids are integers, whether tenants are isolated. */
export interface FanOutRules {
  readonly integerKey: (resource: string) => boolean;
  readonly isolated: boolean;
}

/**
 * Turns the changes of `source` (named `key`) after this database's cursor into deliveries for
 * the active endpoints that subscribe to them (`rules.isolated`, TENANT_ISOLATION: only those of
 * the change's company; DESIGN.md 3.10),
 * adding those endpoints to `given`; answers how many changes it read (at most `limit`). The
 * first time, the cursor starts at the log's end. `cursors` keeps each cursor as this process last saw it (read
 * again under its lock before it is moved), which saves a read of it each time.
 */
export async function fanOut(
  system: Database,
  key: string,
  source: Database,
  rules: FanOutRules,
  now: number,
  given: Set<number> = new Set(),
  cursors: Map<string, number> = new Map(),
  limit: Parameters<typeof readTail>[2] = TAIL_BATCH,
): Promise<number> {
  let from = cursors.get(key);
  if (from === undefined) {
    const [cursor] = await system.db
      .selectFrom(CURSORS)
      .select('seq')
      .where('db', '=', key)
      .execute();
    if (!cursor) {
      const last = await refreshKnownSeq(source);
      await system.db
        .insertInto(CURSORS)
        .values({ db: key, seq: last })
        .execute()
        // Another instance started the cursor first.
        .catch(() => undefined);
      return 0;
    }
    from = Number(cursor.seq);
  }
  const changes = await readTail(source, from, limit);
  const last = changes[changes.length - 1];
  if (!last) {
    cursors.set(key, from);
    return 0;
  }
  let moved: number | null = null;
  await system.transaction(async (trx) => {
    let locked = trx.selectFrom(CURSORS).select('seq').where('db', '=', key);
    if (lockingReads(system)) locked = locked.forUpdate();
    const [held] = await locked.execute();
    // Another instance has moved it meanwhile: its deliveries stand, this read is dropped.
    if (Number(held?.seq) !== from) {
      moved = Number(held?.seq);
      return;
    }
    const endpoints = await trx
      .selectFrom('webhooks')
      .select(['id', 'events', 'company_id'])
      .where('active', '=', 'Y')
      .where('secret', 'is not', null)
      .execute();
    const subscribed = endpoints.map((e) => ({
      id: Number(e.id),
      company: e.company_id == null ? null : Number(e.company_id),
      events: eventsOf(e.events),
    }));
    const rows: Row[] = [];
    for (const row of changes) {
      const resource = String(row.resource);
      const action = String(row.action);
      const company = row.company_id == null ? null : Number(row.company_id);
      const receivers = subscribed.filter(
        (e) =>
          (!rules.isolated || e.company === null || e.company === company) &&
          subscribes(e.events, resource, action),
      );
      if (receivers.length === 0) continue;
      const change = changeOf(row, rules.integerKey(resource));
      const payload = JSON.stringify({
        type: `${resource}.${action}`,
        timestamp: change.at,
        data: change,
      });
      for (const endpoint of receivers) {
        given.add(endpoint.id);
        rows.push({
          webhook_id: endpoint.id,
          db: key,
          seq: change.seq,
          event: `${resource}.${action}`,
          payload,
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          created_at: now,
          updated_at: now,
        });
      }
    }
    for (let i = 0; i < rows.length; i += 100)
      await trx
        .insertInto(DELIVERIES)
        .values(rows.slice(i, i + 100))
        .execute();
    await trx
      .updateTable(CURSORS)
      .set({ seq: Number(last.seq) })
      .where('db', '=', key)
      .execute();
  });
  cursors.set(key, moved ?? Number(last.seq));
  // Read again from where the other instance left it.
  if (moved !== null) return fanOut(system, key, source, rules, now, given, cursors, limit);
  return changes.length;
}

function eventsOf(value: unknown): string[] {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

/** Every endpoint's id (an inactive one may still have pending deliveries). */
export async function endpointIds(system: Database): Promise<number[]> {
  const rows = await system.db.selectFrom('webhooks').select('id').execute();
  return rows.map((row) => Number(row.id));
}

/** Deliveries one claim takes at most (an endpoint's oldest pending ones, sent in order). */
export const BATCH = 50;

/** A delivery of a claimed batch. */
export interface ClaimedDelivery {
  readonly id: number;
  readonly payload: string;
  /** Attempts before this one. */
  readonly attempts: number;
  /** Epoch ms of its first attempt, null before it. */
  readonly firstAttemptAt: number | null;
}

/** An endpoint's oldest pending deliveries, claimed together under one lease. */
export interface ClaimedBatch {
  readonly webhookId: number;
  readonly leaseToken: string;
  /** Epoch ms: the claim holds until then; no attempt may run past it. */
  readonly leaseUntil: number;
  readonly url: string;
  /** The endpoint's signing secret as stored (webhook-secret.ts openSecret reads it). */
  readonly storedSecret: string;
  /** In id order; the first is the endpoint's oldest pending delivery. */
  readonly deliveries: readonly ClaimedDelivery[];
}

/**
 * What a claim found: a batch; the head not due before `notBefore` (a retry waits); the head
 * held by another claim (`held`); or no pending delivery.
 */
export type Claim =
  | { readonly batch: ClaimedBatch }
  | { readonly notBefore: number }
  | { readonly held: true }
  | null;

/**
 * Claims the oldest pending deliveries of endpoint `webhookId` (at most `limit`) for LEASE_MS:
 * one read of them (with the endpoint's URL and secret), then one compare-and-set UPDATE of
 * their lease, so of several instances one claims them (the others' UPDATE finds them held).
 * Only a run from the endpoint's oldest pending delivery is claimed, and only while each is due
 * and free, so the batch goes out in order. Counts the first's attempt at the claim, so one cut
 * short by a kill still counts (the others count theirs when they are settled).
 */
export async function claimBatch(
  system: Database,
  webhookId: number,
  now: number,
  limit = BATCH,
): Promise<Claim> {
  const { db } = system;
  const rows = await db
    .selectFrom(`${DELIVERIES} as d`)
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select([
      'd.id',
      'd.payload',
      'd.attempts',
      'd.first_attempt_at',
      'd.next_attempt_at',
      'd.lease_until',
      'w.url',
      'w.secret',
    ])
    .where('d.status', '=', 'pending')
    .where('d.webhook_id', '=', webhookId)
    .orderBy('d.id')
    .limit(sql.lit(limit)) // MySQL binds no LIMIT
    .execute();
  const [head] = rows;
  if (!head) return null;
  if (Number(head.next_attempt_at) > now) return { notBefore: Number(head.next_attempt_at) };
  const free = (row: Row) =>
    Number(row.next_attempt_at) <= now &&
    (row.lease_until == null || Number(row.lease_until) < now);
  if (!free(head)) return { held: true };
  let run = rows.findIndex((row) => !free(row));
  if (run < 0) run = rows.length;
  const claimed = rows.slice(0, run);
  const ids = claimed.map((row) => Number(row.id));
  const headId = ids[0] as number;
  const leaseToken = randomUUID();
  const leaseUntil = now + LEASE_MS;
  const result = await db
    .updateTable(DELIVERIES)
    .set((eb) => ({
      lease_until: leaseUntil,
      lease_token: leaseToken,
      attempts: eb
        .case()
        .when('id', '=', headId)
        .then(sql<number>`attempts + 1`)
        .else(eb.ref('attempts'))
        .end(),
      first_attempt_at: eb
        .case()
        .when('id', '=', headId)
        .then(sql<number>`coalesce(first_attempt_at, ${now})`)
        .else(eb.ref('first_attempt_at'))
        .end(),
    }))
    .where('id', 'in', ids)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  const got = Number(result.numUpdatedRows);
  if (got !== ids.length) {
    // Another instance claimed some of them meanwhile: ours go back (the head's attempt counted
    // only if it was ours, and then it is not given back: it is rare and errs on counting).
    if (got > 0)
      await db
        .updateTable(DELIVERIES)
        .set({ lease_until: null, lease_token: null })
        .where('lease_token', '=', leaseToken)
        .execute();
    return { held: true };
  }
  return {
    batch: {
      webhookId,
      leaseToken,
      leaseUntil,
      url: String(head.url),
      storedSecret: String(head.secret ?? ''),
      deliveries: claimed.map((row) => ({
        id: Number(row.id),
        payload: String(row.payload),
        attempts: Number(row.attempts) + (Number(row.id) === headId ? 1 : 0),
        firstAttemptAt:
          Number(row.id) === headId
            ? Number(row.first_attempt_at ?? now)
            : row.first_attempt_at == null
              ? null
              : Number(row.first_attempt_at),
      })),
    },
  };
}

export interface Settlement {
  readonly id: number;
  readonly status: DeliveryStatus;
  readonly nextAttemptAt: number;
  readonly lastStatus: number | null;
  readonly durationMs: number;
  readonly error: string | null;
}

/**
 * Records the outcomes of a batch's attempts (`settled`, in order; the batch's deliveries after
 * them were not attempted and are only let go) and ends its claim: one UPDATE, which changes
 * nothing if the claim is no longer this worker's (its lease token; it ran out and another
 * took it).
 */
export async function settleBatch(
  system: Database,
  batch: ClaimedBatch,
  settled: readonly Settlement[],
  now: number,
): Promise<void> {
  const headId = batch.deliveries[0]?.id;
  const ids = batch.deliveries.map((d) => d.id);
  /** `column` given value(s) for each settled delivery, kept for the others. */
  const each = (column: string, value: (s: Settlement) => unknown) =>
    settled.length === 0
      ? sql.ref(column)
      : sql`case ${sql.join(
          settled.map((s) => sql`when id = ${s.id} then ${value(s)}`),
          sql` `,
        )} else ${sql.ref(column)} end`;
  await system.db
    .updateTable(DELIVERIES)
    .set({
      status: each('status', (s) => s.status),
      next_attempt_at: each('next_attempt_at', (s) => s.nextAttemptAt),
      last_status: each('last_status', (s) => s.lastStatus),
      last_duration_ms: each('last_duration_ms', (s) => s.durationMs),
      last_error: each('last_error', (s) => s.error?.slice(0, 300) ?? null),
      // The head's attempt was counted at the claim; each other one counts here.
      attempts: each('attempts', (s) =>
        s.id === headId ? sql.ref('attempts') : sql`attempts + 1`,
      ),
      first_attempt_at: each('first_attempt_at', (s) =>
        s.id === headId ? sql.ref('first_attempt_at') : sql`coalesce(first_attempt_at, ${now})`,
      ),
      lease_until: null,
      lease_token: null,
      updated_at: now,
    })
    .where('id', 'in', ids)
    .where('lease_token', '=', batch.leaseToken)
    .execute();
}

/**
 * Deletes the succeeded and dead deliveries last changed before `cutoff` (epoch ms), at most
 * `batch` (the delivery log's retention); answers how many.
 */
export async function pruneDeliveries(
  system: Database,
  cutoff: number,
  batch = 1000,
): Promise<number> {
  const old = await system.db
    .selectFrom(DELIVERIES)
    .select('id')
    .where('status', 'in', ['succeeded', 'dead'])
    .where('updated_at', '<', cutoff)
    .orderBy('id')
    .limit(sql.lit(batch))
    .execute();
  if (old.length === 0) return 0;
  await system.db
    .deleteFrom(DELIVERIES)
    .where(
      'id',
      'in',
      old.map((row) => Number(row.id)),
    )
    .execute();
  return old.length;
}
