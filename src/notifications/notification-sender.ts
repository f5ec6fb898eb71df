// The send service (SPEC.md 3 "(none) -> unread", SPEC.md 6): validate, store one unread record
// per recipient in one transaction, then attempt the real-time push. Persistence never depends
// on the push server: the records are committed first, and a failed or slow push is logged,
// never thrown (the HTTP broadcaster bounds its own time).
import type { Database } from '../database/database.js';
import type { Db } from '../database/db.js';
import { databaseLookup } from '../engine/validation/database-lookup.js';
import { errors } from '../errors.js';
import type { Broadcaster } from '../realtime/broadcaster.js';
import type { WarnLog } from '../support/warn-log.js';
import { eventPayload, NOTIFICATION_EVENT, notificationChannel } from './notification-event.js';
import {
  type NotificationInput,
  type PreparedNotification,
  prepareNotification,
} from './notification-input.js';
import { NOTIFICATION_COLUMNS, type NotificationRecord, toRecord } from './notification-record.js';

export interface SenderOptions {
  readonly database: Database;
  /** Null when real-time notifications are off: nothing is pushed. */
  readonly broadcaster: Broadcaster | null;
  readonly log: WarnLog;
  /** Milliseconds since the epoch, for created_at. */
  readonly clock?: () => number;
}

export interface SendOptions {
  /** The acting user, the sender unless the input names one. */
  readonly actingUserId?: number | null;
  /**
   * Isolation mode: the sender's company. Every recipient must be linked to a unit of it
   * (DESIGN.md 3.6); otherwise the send is a 422 and nothing is stored.
   */
  readonly tenantId?: number | null;
}

/** The recipients not linked to any unit of company `tenantId`, in one statement. */
async function outsideTenant(
  db: Db,
  recipients: readonly number[],
  tenantId: number,
): Promise<number[]> {
  const inside = await db
    .selectFrom('user_units')
    .innerJoin('units', 'units.id', 'user_units.unit_id')
    .select('user_units.user_id')
    .where('user_units.user_id', 'in', [...recipients])
    .where('units.company_id', '=', tenantId)
    .execute();
  const found = new Set(inside.map((row: Record<string, unknown>) => Number(row.user_id)));
  return recipients.filter((id) => !found.has(id));
}

/** Unread notifications per recipient, in one grouped statement. */
export async function unreadCounts(
  db: Db,
  userIds: readonly number[],
): Promise<Map<number, number>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('notifications')
    .select(['user_to_id', (eb) => eb.fn.countAll().as('unread')])
    .where('user_to_id', 'in', [...userIds])
    .where('read_at', 'is', null)
    .groupBy('user_to_id')
    .execute();
  return new Map(
    rows.map((r: Record<string, unknown>) => [Number(r.user_to_id), Number(r.unread)]),
  );
}

export class NotificationSender {
  private readonly clock: () => number;

  constructor(private readonly options: SenderOptions) {
    this.clock = options.clock ?? Date.now;
  }

  /** Sends from TypeScript; returns the created records, one per recipient. */
  send(input: NotificationInput, options: SendOptions = {}): Promise<NotificationRecord[]> {
    return this.sendUntyped(input, options);
  }

  /** Sends from any value (a request body): the same validation decides. */
  async sendUntyped(input: unknown, options: SendOptions = {}): Promise<NotificationRecord[]> {
    const { database } = this.options;
    const lookup = databaseLookup({ system: database.db, data: database.db });
    const prepared = await prepareNotification(input, options.actingUserId ?? null, lookup);
    const tenantId = options.tenantId ?? null;
    if (tenantId !== null && prepared.recipients.length > 0) {
      // Another company's user is answered like an unknown one: their existence is not told.
      const outside = await outsideTenant(database.db, prepared.recipients, tenantId);
      if (outside.length > 0) throw errors.validation({ to: ['The selected to is invalid.'] });
    }
    const { records, unread } = await this.store(prepared);
    await this.push(records, unread);
    return records;
  }

  private async store(
    prepared: PreparedNotification,
  ): Promise<{ records: NotificationRecord[]; unread: Map<number, number> }> {
    const { database, broadcaster } = this.options;
    const { adapter } = database;
    const createdAt = adapter.toTimestamp(new Date(this.clock()));
    const data = JSON.stringify(prepared.data);
    const action = prepared.action ? JSON.stringify(prepared.action) : null;
    try {
      return await database.transaction(async (trx) => {
        const ids: number[] = [];
        for (const userId of prepared.recipients) {
          const values = {
            user_to_id: userId,
            user_from_id: prepared.senderId,
            type: prepared.type,
            data,
            action,
            read_at: null,
            created_at: createdAt,
          };
          ids.push(await adapter.insertReturningId(trx, 'notifications', values, 'id'));
        }
        const rows = await trx
          .selectFrom('notifications')
          .select([...NOTIFICATION_COLUMNS])
          .where('id', 'in', ids)
          .orderBy('id')
          .execute();
        // Counted inside the transaction, so each count includes the record just sent.
        const unread = broadcaster
          ? await unreadCounts(trx, prepared.recipients)
          : new Map<number, number>();
        return { records: rows.map(toRecord), unread };
      });
    } catch (error) {
      // A recipient or sender deleted between validation and insert.
      if (adapter.translateError(error)?.kind === 'foreign-key')
        throw errors.validation({ to: ['The selected to is invalid.'] });
      throw error;
    }
  }

  private async push(
    records: readonly NotificationRecord[],
    unread: ReadonlyMap<number, number>,
  ): Promise<void> {
    const { broadcaster, log } = this.options;
    if (!broadcaster || records.length === 0) return;
    const events = records.map((record) => ({
      channel: notificationChannel(record.user_to_id),
      name: NOTIFICATION_EVENT,
      data: JSON.stringify(eventPayload(record, unread.get(record.user_to_id) ?? 0)),
    }));
    try {
      await broadcaster.publish(events);
    } catch (error) {
      log.warn(
        { err: error, notifications: records.map((r) => r.id) },
        'Real-time push of notifications failed; the notifications are stored.',
      );
    }
  }
}
