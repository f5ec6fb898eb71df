// The deliveries outbox (DESIGN.md 3.10), in the main database: each database's change log is
// turned into one delivery per change and subscribed endpoint (fanOut, under that database's
// cursor row, so with several instances a change becomes deliveries once), then deliveries are
// claimed with a lease (headsOf, claim: a compare-and-set of the lease, so with several
// instances one claims each; a cheaper and stricter form of FOR UPDATE SKIP LOCKED here, since
// only an endpoint's head may be claimed at all), sent, and their outcome recorded against the
// lease (settle). A worker killed after its claim leaves a lease that runs out: the delivery is
// claimed again. Per endpoint only the oldest pending delivery is ever claimed: deliveries go out
// in order, one at a time.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../database/database.js';
import type { Db } from '../database/db.js';
import { changeOf } from '../engine/changes/change.js';
import { readTail } from '../engine/changes/change-tail.js';
import { refreshKnownSeq } from '../engine/changes/retention.js';
import type { Row } from '../model/entity.js';
import { subscribes } from './webhook-events.js';

export const DELIVERIES = 'webhook_deliveries';
const CURSORS = 'webhook_cursors';
/** How long a claim holds a delivery: past the attempt's time limit, with room. */
export const LEASE_MS = 15_000;

export type DeliveryStatus = 'pending' | 'succeeded' | 'dead';

export interface ClaimedDelivery {
  readonly id: number;
  readonly webhookId: number;
  readonly payload: string;
  readonly firstAttemptAt: number;
  readonly attempts: number;
  readonly leaseToken: string;
  readonly url: string;
  readonly secret: string;
}

const lockingReads = (db: Database) => db.adapter.name !== 'sqlite';

/**
 * Turns the changes of `source` (named `key`) after this database's cursor into deliveries for
 * the active endpoints that subscribe to them (in isolation, only of the change's company);
 * answers how many changes it read. The first time, the cursor starts at the log's end.
 */
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

export async function fanOut(
  system: Database,
  key: string,
  source: Database,
  integerKey: (resource: string) => boolean,
  now: number,
): Promise<number> {
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
  const from = Number(cursor.seq);
  const changes = await readTail(source, from);
  const last = changes[changes.length - 1];
  if (!last) return 0;
  await system.transaction(async (trx) => {
    let locked = trx.selectFrom(CURSORS).select('seq').where('db', '=', key);
    if (lockingReads(system)) locked = locked.forUpdate();
    const [held] = await locked.execute();
    // Another instance has moved it meanwhile: its deliveries stand, this read is dropped.
    if (Number(held?.seq) !== from) return;
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
          (e.company === null || e.company === company) && subscribes(e.events, resource, action),
      );
      if (receivers.length === 0) continue;
      const change = changeOf(row, integerKey(resource));
      const payload = JSON.stringify({
        type: `${resource}.${action}`,
        timestamp: change.at,
        data: change,
      });
      for (const endpoint of receivers)
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
  return changes.length;
}

function eventsOf(value: unknown): string[] {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(parsed) ? parsed.map(String) : [];
}

/** An endpoint's oldest pending delivery: the only one of it that may go out. */
export interface Head {
  readonly webhookId: number;
  readonly id: number;
  /** Epoch ms: when it is due, or when its claim runs out, whichever is later. */
  readonly notBefore: number;
}

/**
 * The oldest pending delivery of each endpoint in `webhooks` (default: every endpoint): one
 * indexed probe each, however long the endpoint's backlog (a receiver down for a day).
 */
export async function headsOf(system: Database, skip: ReadonlySet<number>): Promise<Head[]> {
  const { db } = system;
  const endpoints = await db.selectFrom('webhooks').select('id').execute();
  const heads: Head[] = [];
  for (const { id: raw } of endpoints) {
    const webhookId = Number(raw);
    if (skip.has(webhookId)) continue;
    const [head] = await db
      .selectFrom(DELIVERIES)
      .select(['id', 'next_attempt_at', 'lease_until'])
      .where('status', '=', 'pending')
      .where('webhook_id', '=', webhookId)
      .orderBy('id')
      .limit(sql.lit(1))
      .execute();
    if (head)
      heads.push({
        webhookId,
        id: Number(head.id),
        notBefore: Math.max(Number(head.next_attempt_at), Number(head.lease_until ?? 0)),
      });
  }
  return heads;
}

/**
 * Claims `head` for LEASE_MS if it is still pending and nobody holds it: a compare-and-set
 * UPDATE, so of several instances one claims it (the others' UPDATE finds the lease taken).
 * Counts the attempt at the claim, so one cut short by a kill still counts.
 */
export async function claim(
  system: Database,
  head: Head,
  now: number,
): Promise<ClaimedDelivery | null> {
  const { db } = system;
  const leaseToken = randomUUID();
  const result = await db
    .updateTable(DELIVERIES)
    .set({
      lease_until: now + LEASE_MS,
      lease_token: leaseToken,
      attempts: sql`attempts + 1`,
      first_attempt_at: sql`coalesce(first_attempt_at, ${now})`,
      updated_at: now,
    })
    .where('id', '=', head.id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return null;
  const [row] = await db
    .selectFrom(DELIVERIES)
    .select(['payload', 'attempts', 'first_attempt_at'])
    .where('id', '=', head.id)
    .execute();
  const endpoint = (await endpointsOf(db, [head.webhookId])).get(head.webhookId);
  if (!row || !endpoint) return null;
  return {
    id: head.id,
    webhookId: head.webhookId,
    payload: String(row.payload),
    firstAttemptAt: row.first_attempt_at == null ? now : Number(row.first_attempt_at),
    attempts: Number(row.attempts),
    leaseToken,
    url: endpoint.url,
    secret: endpoint.secret,
  };
}

async function endpointsOf(db: Db, ids: number[]) {
  const rows = await db
    .selectFrom('webhooks')
    .select(['id', 'url', 'secret'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [Number(r.id), { url: String(r.url), secret: String(r.secret) }]));
}

export interface Settlement {
  readonly status: DeliveryStatus;
  readonly nextAttemptAt: number;
  readonly lastStatus: number | null;
  readonly durationMs: number;
  readonly error: string | null;
}

/** Records an attempt's outcome, if the claim is still this worker's (its lease token). */
export async function settle(
  system: Database,
  delivery: ClaimedDelivery,
  outcome: Settlement,
  now: number,
): Promise<void> {
  await system.db
    .updateTable(DELIVERIES)
    .set({
      status: outcome.status,
      next_attempt_at: outcome.nextAttemptAt,
      lease_until: null,
      lease_token: null,
      last_status: outcome.lastStatus,
      last_duration_ms: outcome.durationMs,
      last_error: outcome.error?.slice(0, 300) ?? null,
      updated_at: now,
    })
    .where('id', '=', delivery.id)
    .where('lease_token', '=', delivery.leaseToken)
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
