// One user's notifications and the read/unread transitions of SPEC.md 3. Every statement is
// bound to the owner, so another user's id behaves as a missing one.
import { sql } from 'kysely';
import type { Database } from '../database/database.js';
import { parsePage } from '../engine/query/paginate.js';
import { NOTIFICATION_COLUMNS, type NotificationRecord, toRecord } from './notification-record.js';

export const PER_PAGE = 15;
export const MAX_PER_PAGE = 200;

export interface InboxPage {
  readonly data: NotificationRecord[];
  readonly meta: {
    total: number;
    per_page: number;
    current_page: number;
    last_page: number;
    unread_count: number;
  };
}

export class NotificationInbox {
  constructor(
    private readonly database: Database,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Newest first, paginated like a resource list, with the unread count. */
  async list(userId: number, input: Record<string, unknown>): Promise<InboxPage> {
    const { db } = this.database;
    const { page, perPage, offset } = parsePage(input, PER_PAGE, MAX_PER_PAGE);
    const counts = await db
      .selectFrom('notifications')
      .select([
        sql<number>`count(*)`.as('total'),
        sql<number>`sum(case when read_at is null then 1 else 0 end)`.as('unread'),
      ])
      .where('user_to_id', '=', userId)
      .executeTakeFirst();
    const total = Number(counts?.total ?? 0);
    const rows =
      offset < total
        ? await db
            .selectFrom('notifications')
            .select([...NOTIFICATION_COLUMNS])
            .where('user_to_id', '=', userId)
            .orderBy('created_at', 'desc')
            .orderBy('id', 'desc')
            .limit(perPage)
            .offset(offset)
            .execute()
        : [];
    return {
      data: rows.map(toRecord),
      meta: {
        total,
        per_page: perPage,
        current_page: page,
        last_page: Math.max(1, Math.ceil(total / perPage)),
        unread_count: Number(counts?.unread ?? 0),
      },
    };
  }

  async find(userId: number, id: number): Promise<NotificationRecord | null> {
    const row = await this.database.db
      .selectFrom('notifications')
      .select([...NOTIFICATION_COLUMNS])
      .where('id', '=', id)
      .where('user_to_id', '=', userId)
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async unreadCount(userId: number): Promise<number> {
    const row = await this.database.db
      .selectFrom('notifications')
      .select(sql<number>`count(*)`.as('unread'))
      .where('user_to_id', '=', userId)
      .where('read_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.unread ?? 0);
  }

  /** unread -> read; a read one keeps the time it was first read. */
  async markRead(userId: number, id: number): Promise<NotificationRecord | null> {
    await this.database.db
      .updateTable('notifications')
      .set({ read_at: this.now() })
      .where('id', '=', id)
      .where('user_to_id', '=', userId)
      .where('read_at', 'is', null)
      .execute();
    return this.find(userId, id);
  }

  /** read -> unread. */
  async markUnread(userId: number, id: number): Promise<NotificationRecord | null> {
    await this.database.db
      .updateTable('notifications')
      .set({ read_at: null })
      .where('id', '=', id)
      .where('user_to_id', '=', userId)
      .execute();
    return this.find(userId, id);
  }

  /** Every unread notification of the user -> read; returns how many changed. */
  async markAllRead(userId: number): Promise<number> {
    const result = await this.database.db
      .updateTable('notifications')
      .set({ read_at: this.now() })
      .where('user_to_id', '=', userId)
      .where('read_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  private now(): unknown {
    return this.database.adapter.toTimestamp(new Date(this.clock()));
  }
}
