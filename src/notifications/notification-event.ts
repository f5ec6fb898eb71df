// The real-time event of a notification (SPEC.md 6): its short name, the recipient's private
// channel, and the payload, with unread_count as computed for the recipient at send time.
import type { Level, NotificationAction, NotificationRecord } from './notification-record.js';

export const NOTIFICATION_EVENT = 'SvcNotificationReceived';

/** The channel on the wire; clients call `Echo.private('notifications.' + id)`. */
export function notificationChannel(userId: number): string {
  return `private-notifications.${userId}`;
}

export interface NotificationEventPayload {
  readonly id: number;
  readonly title: string;
  readonly message: string;
  readonly icon: string;
  readonly level: Level;
  readonly action: NotificationAction | null;
  readonly created_at: string;
  readonly unread_count: number;
}

export function eventPayload(
  record: NotificationRecord,
  unreadCount: number,
): NotificationEventPayload {
  const { title, message, icon, level } = record.data;
  return {
    id: record.id,
    title,
    message,
    icon,
    level,
    action: record.action,
    created_at: record.created_at,
    unread_count: unreadCount,
  };
}
