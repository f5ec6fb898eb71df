// The operators' webhook endpoints beyond the resource's own (DESIGN.md 3.10): the secret's
// rotation, an endpoint's deliveries, and the replay of one or of every dead delivery. Each asks
// `endpointOf` first, which answers 403 or 404 exactly as the resource's show would (the
// resource's admin check and company scope), so these see only what the resource shows.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../database/database.js';
import { errors } from '../errors.js';
import type { Middleware } from '../kernel/middleware.js';
import type { Row } from '../model/entity.js';
import { DELIVERIES, type DeliveryStatus } from './delivery-store.js';
import { newWebhookSecret, sealingKeyOf, sealSecret } from './webhook-secret.js';

export const DEFAULT_DELIVERIES_LIMIT = 50;
export const MAX_DELIVERIES_LIMIT = 500;
const STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'dead'];

export interface WebhookRouteOptions {
  readonly system: Database;
  readonly middleware: (spec: string) => Middleware;
  /** Throws the answer (403, 404) unless the request may `action` the endpoint `id`. */
  readonly endpointOf: (
    request: FastifyRequest,
    action: 'show' | 'update',
    id: number,
  ) => Promise<void>;
  /** Something was replayed: the worker looks now. */
  readonly replayed: () => void;
  readonly clock?: () => number;
}

const iso = (value: unknown) => (value == null ? null : new Date(Number(value)).toISOString());

/** A delivery as the API answers it. */
function deliveryOf(row: Row) {
  const pending = row.status === 'pending';
  return {
    id: Number(row.id),
    webhook_id: Number(row.webhook_id),
    event: String(row.event),
    change: { database: String(row.db), seq: Number(row.seq) },
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    next_attempt_at: pending ? iso(row.next_attempt_at) : null,
    last_status: row.last_status == null ? null : Number(row.last_status),
    last_duration_ms: row.last_duration_ms == null ? null : Number(row.last_duration_ms),
    last_error: row.last_error == null ? null : String(row.last_error),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

function idParam(value: unknown): number {
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) throw errors.resourceNotFound();
  return Number(value);
}

function whole(value: unknown, field: string, min: number, max: number): number | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value) || +value < min || +value > max)
    throw errors.validation({
      [field]: [`The ${field} field must be a whole number from ${min} to ${max}.`],
    });
  return Number(value);
}

export function registerWebhookRoutes(app: FastifyInstance, options: WebhookRouteOptions): void {
  const { system } = options;
  const { db } = system;
  const clock = options.clock ?? Date.now;
  const read = { preHandler: options.middleware('svc.api:webhooks.read') };
  const write = { preHandler: options.middleware('svc.api:webhooks.write') };
  const params = (request: FastifyRequest) => request.params as Record<string, string>;

  app.post('/api/webhooks/:webhook/rotate-secret', write, async (request) => {
    const id = idParam(params(request).webhook);
    await options.endpointOf(request, 'update', id);
    const secret = newWebhookSecret();
    const sealed = sealSecret(secret, sealingKeyOf(system), id);
    await db.updateTable('webhooks').set({ secret: sealed }).where('id', '=', id).execute();
    return { data: { id, secret } };
  });

  app.get('/api/webhooks/:webhook/deliveries', read, async (request) => {
    const id = idParam(params(request).webhook);
    await options.endpointOf(request, 'show', id);
    const query = (request.query ?? {}) as Record<string, unknown>;
    const limit = whole(query.limit, 'limit', 1, MAX_DELIVERIES_LIMIT) ?? DEFAULT_DELIVERIES_LIMIT;
    const before = whole(query.before, 'before', 1, Number.MAX_SAFE_INTEGER);
    const status = query.status;
    if (status !== undefined && !STATUSES.includes(status as DeliveryStatus))
      throw errors.validation({ status: ['The status field must be pending, succeeded or dead.'] });
    let q = db.selectFrom(DELIVERIES).selectAll().where('webhook_id', '=', id);
    if (status !== undefined) q = q.where('status', '=', String(status));
    if (before !== null) q = q.where('id', '<', before);
    // A literal LIMIT: MySQL binds none.
    const rows = await q
      .orderBy('id', 'desc')
      .limit(sql.lit(limit + 1))
      .execute();
    const data = rows.slice(0, limit).map(deliveryOf);
    const last = data[data.length - 1];
    return { data, meta: { next_before: rows.length > limit && last ? last.id : null } };
  });

  const replay = (now: number) =>
    ({
      status: 'pending',
      attempts: 0,
      first_attempt_at: null,
      next_attempt_at: now,
      lease_until: null,
      lease_token: null,
      updated_at: now,
    }) as const;

  app.post('/api/webhooks/:webhook/deliveries/:delivery/replay', write, async (request, reply) => {
    const id = idParam(params(request).webhook);
    const delivery = idParam(params(request).delivery);
    await options.endpointOf(request, 'update', id);
    const where = db
      .selectFrom(DELIVERIES)
      .selectAll()
      .where('id', '=', delivery)
      .where('webhook_id', '=', id);
    const [found] = await where.execute();
    if (!found) throw errors.resourceNotFound();
    // A delivery under way is left to its attempt.
    if (found.status !== 'pending')
      await db.updateTable(DELIVERIES).set(replay(clock())).where('id', '=', delivery).execute();
    options.replayed();
    const [row] = await where.execute();
    return reply.code(202).send({ data: deliveryOf(row ?? found) });
  });

  app.post('/api/webhooks/:webhook/deliveries/replay-dead', write, async (request, reply) => {
    const id = idParam(params(request).webhook);
    await options.endpointOf(request, 'update', id);
    const result = await db
      .updateTable(DELIVERIES)
      .set(replay(clock()))
      .where('webhook_id', '=', id)
      .where('status', '=', 'dead')
      .executeTakeFirst();
    options.replayed();
    return reply.code(202).send({ replayed: Number(result.numUpdatedRows) });
  });
}
