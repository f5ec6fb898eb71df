// /admin/notifications (issue 18 item 7, SPEC.md 3): every notification of the user, newest
// first, read and unread. Opening one marks it read (POST /app/notifications/<id>/read, which
// answers it) and shows its message and action; `Mark as unread` and `Mark all read` do what they say. `?open=<id>` opens
// one from the address (the bell's links), `?page=<n>` pages.
import { useEffect, useState } from 'preact/hooks';
import { Alert } from '../components/alert.js';
import { NotificationAction } from '../components/notification-action.js';
import { ApiError, get, post } from '../lib/api.js';
import {
  ALL_NOTIFICATIONS_READ,
  notificationReadPath,
  notificationsPath,
  notificationUnreadPath,
} from '../lib/endpoints.js';
import { formatDate } from '../lib/format.js';
import {
  type NotificationPage,
  type NotificationRecord,
  notificationsChanged,
  onNotificationsChanged,
} from '../lib/notifications.js';
import { navigate, useLocation } from '../lib/router.js';
import { useTitle } from '../lib/title.js';

const PER_PAGE = 15;

export function NotificationsScreen() {
  useTitle('Notifications');
  const place = useLocation();
  const page = Math.max(1, Number(place.search.get('page')) || 1);
  const openId = Number(place.search.get('open')) || null;
  const [answer, setAnswer] = useState<NotificationPage | null>(null);
  const [opened, setOpened] = useState<NotificationRecord | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = () =>
    get<NotificationPage>(notificationsPath({ page, per_page: PER_PAGE })).then(
      setAnswer,
      (failure: unknown) =>
        setError(
          failure instanceof ApiError ? failure.message : 'The notifications could not be read.',
        ),
    );

  useEffect(() => {
    load();
    return onNotificationsChanged(load);
  }, [page]);

  // Opening marks read: the bell and this list hear of it.
  useEffect(() => {
    if (openId === null) {
      setOpened(null);
      return;
    }
    post<{ data: NotificationRecord }>(notificationReadPath(openId)).then(
      (one) => {
        setOpened(one.data);
        notificationsChanged();
      },
      (failure: unknown) =>
        setError(
          failure instanceof ApiError ? failure.message : 'The notification could not be read.',
        ),
    );
  }, [openId]);

  const address = (next: { page?: number; open?: number | null }) => {
    const search = new URLSearchParams();
    const p = next.page ?? page;
    if (p > 1) search.set('page', String(p));
    const o = next.open === undefined ? openId : next.open;
    if (o !== null) search.set('open', String(o));
    const text = search.toString();
    return `/admin/notifications${text ? `?${text}` : ''}`;
  };
  const markUnread = async (id: number) => {
    await post(notificationUnreadPath(id));
    if (openId === id) navigate(address({ open: null }), { replace: true });
    notificationsChanged();
  };
  const markAllRead = async () => {
    await post(ALL_NOTIFICATIONS_READ);
    notificationsChanged();
  };

  const unread = answer?.meta.unread_count ?? 0;
  const lastPage = answer?.meta.last_page ?? 1;
  return (
    <section>
      <div class="toolbar">
        <h1 tabIndex={-1}>Notifications</h1>
        <button type="button" onClick={markAllRead} disabled={unread === 0}>
          Mark all read
        </button>
      </div>
      <p role="status">
        {answer
          ? `${answer.meta.total} ${answer.meta.total === 1 ? 'notification' : 'notifications'}, ${unread} unread`
          : 'Loading…'}
      </p>
      <Alert message={error} />
      <ul class="inbox">
        {(answer?.data ?? []).map((n) => {
          const isOpen = opened?.id === n.id;
          const record = isOpen && opened ? opened : n;
          return (
            <li key={n.id} class={record.read_at ? 'read' : 'unread'}>
              <div class="inbox-head">
                <h2 class={`inbox-title level-${record.data.level}`}>
                  <button
                    type="button"
                    class="link-button"
                    aria-expanded={isOpen}
                    onClick={() => navigate(address({ open: isOpen ? null : n.id }))}
                  >
                    {record.data.title}
                  </button>
                  {record.read_at ? null : <span class="badge-text"> (unread)</span>}
                </h2>
                <time class="muted" dateTime={n.created_at}>
                  {formatDate(n.created_at)}
                </time>
              </div>
              {isOpen ? (
                <div class="inbox-body">
                  <p>{record.data.message}</p>
                  <div class="inbox-actions">
                    {record.action ? <NotificationAction action={record.action} /> : null}
                    <button type="button" onClick={() => markUnread(n.id)}>
                      Mark as unread
                    </button>
                  </div>
                </div>
              ) : null}
            </li>
          );
        })}
      </ul>
      {answer && answer.data.length === 0 ? <p>No notifications.</p> : null}
      <div class="pager">
        <button
          type="button"
          disabled={page <= 1}
          onClick={() => navigate(address({ page: page - 1, open: null }))}
        >
          Previous page
        </button>
        <span>
          Page {page} of {lastPage}
        </span>
        <button
          type="button"
          disabled={page >= lastPage}
          onClick={() => navigate(address({ page: page + 1, open: null }))}
        >
          Next page
        </button>
      </div>
    </section>
  );
}
