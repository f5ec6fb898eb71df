// The bell (DESIGN.md 3.7): a button named `Notifications, N unread` that opens the newest few.
// The count follows the pushes of the user's private channel when GET /app/realtime says real
// time is on (first read once the channel is subscribed, so a full load reads it once), and a
// poll every 30 s when it is off.
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { get, getCsrfToken, post } from '../lib/api.js';
import { ALL_NOTIFICATIONS_READ, notificationsPath } from '../lib/endpoints.js';
import { formatAgo, formatDate } from '../lib/format.js';
import {
  type NotificationPage,
  notificationsChanged,
  onNotificationsChanged,
} from '../lib/notifications.js';
import { realtimeSettings } from '../lib/realtime-settings.js';
import { Link } from '../lib/router.js';
import { useApp } from '../lib/session.js';

const POLL_MS = 30_000;
/** How long the first read waits for the channel to be subscribed (real time on). */
const SUBSCRIBE_WAIT_MS = 5_000;
const NEWEST = 5;

export function NotificationBell() {
  const { session } = useApp();
  const [page, setPage] = useState<NotificationPage | null>(null);
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  const refresh = () => {
    get<NotificationPage>(notificationsPath({ per_page: NEWEST })).then(setPage, () => {});
  };

  useEffect(() => {
    const offChanged = onNotificationsChanged(refresh);
    let stop: () => void = () => {};
    let stopped = false;
    realtimeSettings(session.user.id).then(
      async (settings) => {
        if (stopped) return;
        if (!settings.enabled) {
          refresh();
          const timer = setInterval(refresh, POLL_MS);
          stop = () => clearInterval(timer);
          return;
        }
        // A socket slow to subscribe (or refused) does not keep the count from showing.
        const late = setTimeout(refresh, SUBSCRIBE_WAIT_MS);
        const { connectRealtime } = await import('../lib/realtime.js');
        const disconnect = await connectRealtime(settings, getCsrfToken, () => {
          clearTimeout(late);
          notificationsChanged();
        });
        stop = () => {
          clearTimeout(late);
          disconnect();
        };
        if (stopped) stop();
      },
      () => refresh(),
    );
    return () => {
      stopped = true;
      offChanged();
      stop();
    };
  }, [session.user.id]);

  // Closes on a click elsewhere (Esc: the root's onKeyDown, so no key is missed before this runs).
  useEffect(() => {
    if (!open) return;
    const onClick = (event: MouseEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    addEventListener('click', onClick);
    return () => removeEventListener('click', onClick);
  }, [open]);

  const unread = page?.meta.unread_count ?? 0;
  const markAll = async () => {
    await post(ALL_NOTIFICATIONS_READ);
    notificationsChanged();
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Esc from anywhere inside the dropdown closes it
    <div
      class="bell"
      ref={root}
      onKeyDown={(event) => {
        if (event.key !== 'Escape' || !open) return;
        event.stopPropagation();
        setOpen(false);
        button.current?.focus();
      }}
    >
      <button
        type="button"
        ref={button}
        class="bell-button"
        aria-expanded={open}
        aria-controls={panelId}
        aria-label={`Notifications, ${unread} unread`}
        onClick={() => {
          if (!open) refresh();
          setOpen(!open);
        }}
      >
        <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20">
          <path
            fill="currentColor"
            d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1Z"
          />
        </svg>
        {unread > 0 ? (
          <span class="badge" aria-hidden="true">
            {unread > 99 ? '99+' : unread}
          </span>
        ) : null}
      </button>
      <div id={panelId} class="bell-panel" hidden={!open}>
        <div class="bell-head">
          <h2>Notifications</h2>
          <button type="button" class="link-button" onClick={markAll} disabled={unread === 0}>
            Mark all read
          </button>
        </div>
        {page && page.data.length > 0 ? (
          <ul class="bell-list">
            {page.data.map((n) => (
              <li key={n.id} class={n.read_at ? 'read' : 'unread'}>
                <Link href={`/admin/notifications?open=${n.id}`} onClick={() => setOpen(false)}>
                  <span class="bell-title">
                    {n.read_at ? null : <span class="visually-hidden">Unread: </span>}
                    {n.data.title}
                  </span>
                  <time class="muted" dateTime={n.created_at} title={formatDate(n.created_at)}>
                    {formatAgo(n.created_at)}
                  </time>
                </Link>
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">No notifications.</p>
        )}
        <Link href="/admin/notifications" onClick={() => setOpen(false)}>
          Show all notifications
        </Link>
      </div>
    </div>
  );
}
