// The notification push of SPEC.md 6 in the browser: pusher-js on the user's private channel
// (GET /app/realtime says where), authorised through the auth endpoint with the session's CSRF
// token. pusher-js is loaded only here, by a dynamic import: its own chunk, fetched only when
// real time is on. It reconnects by itself; every (re)subscription also counts as a change, so
// what was pushed before the channel was (again) subscribed is fetched then: the first one is
// the screen's first fetch, with nothing missed between it and the socket.

export interface RealtimeSettings {
  readonly enabled: boolean;
  readonly key: string | null;
  readonly cluster: string | null;
  readonly host: string | null;
  readonly port: number | null;
  readonly path: string | null;
  readonly force_tls: boolean;
  readonly auth_endpoint: string | null;
  readonly channel: string | null;
}

export const NOTIFICATION_EVENT = 'SvcNotificationReceived';

/**
 * Connects and calls `onChange` once the channel is subscribed (and subscribed again after a
 * reconnection) and for each pushed notification; returns the disconnect.
 */
export async function connectRealtime(
  settings: RealtimeSettings,
  csrfToken: () => string | null,
  onChange: () => void,
): Promise<() => void> {
  if (!settings.enabled || !settings.key || !settings.channel) return () => {};
  const { default: Pusher } = await import('pusher-js');
  const port = settings.port ?? undefined;
  const pusher = new Pusher(settings.key, {
    cluster: settings.cluster ?? 'mt1',
    ...(settings.host ? { wsHost: settings.host } : {}),
    ...(port ? { wsPort: port, wssPort: port } : {}),
    forceTLS: settings.force_tls,
    enabledTransports: ['ws', 'wss'],
    disableStats: true,
    channelAuthorization: {
      transport: 'ajax',
      endpoint: settings.auth_endpoint ?? '/broadcasting/auth-notifications',
      headersProvider: () => ({ 'X-CSRF-TOKEN': csrfToken() ?? '' }),
    },
  });
  const channel = pusher.subscribe(settings.channel);
  channel.bind('pusher:subscription_succeeded', onChange);
  channel.bind(NOTIFICATION_EVENT, onChange);
  return () => pusher.disconnect();
}
