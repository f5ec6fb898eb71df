// The notification record of SPEC.md 6 as the API answers it: `data` and `action` decoded,
// timestamps as ISO-8601 UTC whatever the engine stored.
import { readCasts } from '../model/casts.js';

export const LEVELS = ['info', 'success', 'warning', 'danger'] as const;
export type Level = (typeof LEVELS)[number];

export type NotificationAction =
  | {
      readonly kind: 'go';
      readonly screen: string;
      readonly method: string | null;
      readonly parameters: Record<string, unknown>;
      readonly label: string | null;
    }
  | { readonly kind: 'navigate'; readonly url: string; readonly label: string | null }
  | { readonly kind: 'url'; readonly url: string; readonly label: string | null };

/** `data`: the display fields plus the sender's extra keys. */
export interface NotificationData {
  readonly title: string;
  readonly message: string;
  readonly icon: string;
  readonly level: Level;
  readonly [extra: string]: unknown;
}

export interface NotificationRecord {
  readonly id: number;
  readonly user_to_id: number;
  readonly user_from_id: number | null;
  readonly type: string;
  readonly data: NotificationData;
  readonly action: NotificationAction | null;
  readonly read_at: string | null;
  readonly created_at: string;
}

export const NOTIFICATION_COLUMNS = [
  'id',
  'user_to_id',
  'user_from_id',
  'type',
  'data',
  'action',
  'read_at',
  'created_at',
] as const;

const integer = readCasts.integer;
const datetime = readCasts.datetime;

export function toRecord(row: Record<string, unknown>): NotificationRecord {
  return {
    id: integer(row.id) as number,
    user_to_id: integer(row.user_to_id) as number,
    user_from_id: integer(row.user_from_id) as number | null,
    type: String(row.type),
    data: readCasts.json(row.data) as NotificationData,
    action: (readCasts.json(row.action) ?? null) as NotificationAction | null,
    read_at: datetime(row.read_at) as string | null,
    created_at: datetime(row.created_at) as string,
  };
}
