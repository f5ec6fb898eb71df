// The notification record as GET /app/notifications answers it (SPEC.md 6, DESIGN.md 3.6), and
// one change signal that the bell and the reader share: whoever changes or learns of a change
// says so, the others fetch again.

export type NotificationAction =
  | {
      readonly kind: 'go';
      readonly screen: string;
      readonly method?: string | null;
      readonly parameters?: Record<string, unknown>;
      readonly label?: string | null;
    }
  | { readonly kind: 'navigate'; readonly url: string; readonly label?: string | null }
  | { readonly kind: 'url'; readonly url: string; readonly label?: string | null };

export interface NotificationRecord {
  readonly id: number;
  readonly user_from_id: number | null;
  readonly type: string;
  readonly data: {
    readonly title: string;
    readonly message: string;
    readonly icon: string;
    readonly level: 'info' | 'success' | 'warning' | 'danger';
  };
  readonly action: NotificationAction | null;
  readonly read_at: string | null;
  readonly created_at: string;
}

export interface NotificationPage {
  readonly data: NotificationRecord[];
  readonly meta: {
    readonly total: number;
    readonly per_page: number;
    readonly current_page: number;
    readonly last_page: number;
    readonly unread_count: number;
  };
}

const CHANGED = 'svc:notifications-changed';

export function notificationsChanged(): void {
  dispatchEvent(new Event(CHANGED));
}

export function onNotificationsChanged(listener: () => void): () => void {
  addEventListener(CHANGED, listener);
  return () => removeEventListener(CHANGED, listener);
}

/** Where a `go` action leads: a resource's list or record, or another screen of the app. */
export function screenPath(action: {
  screen: string;
  parameters?: Record<string, unknown>;
}): string {
  const screen = action.screen.replace(/^\/+|\/+$/g, '');
  const id = action.parameters?.id;
  if (screen === 'tokens' || screen === 'notifications') return `/admin/${screen}`;
  const path = `/admin/r/${encodeURIComponent(screen)}`;
  return id === undefined || id === null ? path : `${path}/${encodeURIComponent(String(id))}`;
}
