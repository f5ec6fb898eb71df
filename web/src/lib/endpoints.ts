// Every address of svc's that the admin asks (docs/api.md), in one place: the session's and the
// admin's own routes under /app, and a resource's routes under the path GET /app/resources gives
// it (`meta.path`). Screens name an endpoint by these constants and functions, never by a string of their own.
// (The channel auth endpoints come from GET /app/realtime.)

/** A query string from a plain object, leaving out empty values. */
export function query(params: Record<string, string | number | null | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== null && value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

// The session (docs/api.md "Session").
export const SESSION = '/app/session';
export const LOGIN = '/app/login';
export const LOGOUT = '/app/logout';
/** Switches the session's unit. */
export const SESSION_UNIT = '/app/session/unit';

/** What the signed-in user may see: every resource's metadata. */
export const RESOURCES = '/app/resources';
/** Whether real time is on, and its channels' auth endpoints. */
export const REALTIME = '/app/realtime';

// The signed-in user's notifications.
export const notificationsPath = (page: { page?: number; per_page: number }) =>
  `/app/notifications${query(page)}`;
export const notificationReadPath = (id: number) => `/app/notifications/${id}/read`;
export const notificationUnreadPath = (id: number) => `/app/notifications/${id}/unread`;
export const ALL_NOTIFICATIONS_READ = '/app/notifications/mark-all-read';

// The signed-in user's API tokens.
export const TOKENS = '/app/tokens-api';
export const tokenPath = (id: number) => `${TOKENS}/${id}`;
/** The abilities the signed-in user may grant a token. */
export const GRANTABLE_ABILITIES = '/app/tokens-api/abilities';

/** The picker lookup of a resource (`users`, `units`): `?search=` or `?ids=`. */
export const lookupPath = (resource: string) => `/app/lookups/${resource}`;
/** A user's record (its units, for a token's unit). */
export const userPath = (id: string) => `/api/users/${encodeURIComponent(id)}`;

// A resource's routes, from its collection path (`meta.path`).
/** A record's address in the API. */
export const recordPath = (meta: { readonly path: string }, id: string | number | null): string =>
  `${meta.path}/${encodeURIComponent(String(id))}`;
/** The resource's changes after `after` (DESIGN.md 3.9). */
export const changesPath = (path: string, after: number, limit: number) =>
  `${path}/changes?after=${after}&limit=${limit}`;
/** The records deleted and not restored since (DESIGN.md 3.11). */
export const deletedPath = (path: string) => `${path}/deleted`;
/** A record's revisions, from its address (recordPath). */
export const historyPath = (record: string) => `${record}/history`;
/** Restores a record (from its address) as revision `seq` left it. */
export const restorePath = (record: string, seq: number | null) =>
  `${record}/history/${seq}/restore`;

// A webhook's deliveries, from its record's address (DESIGN.md 3.10).
export const deliveriesPath = (webhook: string, limit: number) =>
  `${webhook}/deliveries${query({ limit })}`;
export const replayPath = (webhook: string, delivery: number) =>
  `${webhook}/deliveries/${delivery}/replay`;
export const replayDeadPath = (webhook: string) => `${webhook}/deliveries/replay-dead`;
