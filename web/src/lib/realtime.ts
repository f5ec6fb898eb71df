// Real time in the browser: one pusher-js connection per page (GET /app/realtime says where),
// shared by the bell (the user's private notification channel, SPEC.md 6) and the screens that
// follow a resource (`private-resource.<resource>`, DESIGN.md 3.9). Each channel is authorized
// at its own endpoint with the session's CSRF token. pusher-js is loaded only here, by a
// dynamic import: its own chunk, fetched only when real time is on. It reconnects by itself and
// subscribes again; every (re)subscription counts as a change, so what was pushed before the
// channel was (again) subscribed is read then, with nothing missed between a read and a push.
import type Pusher from 'pusher-js';
import type { Channel } from 'pusher-js';
import type { RealtimeSettings } from './realtime-settings.js';

export const NOTIFICATION_EVENT = 'SvcNotificationReceived';
export const RESOURCE_EVENT = 'SvcResourceChanged';
const RESOURCE_PREFIX = 'private-resource.';

interface Shared {
  readonly pusher: Pusher;
  /** Subscribers per channel: a channel nobody follows any more is left. */
  readonly channels: Map<string, number>;
}

let shared: Shared | null = null;

async function connection(
  settings: RealtimeSettings,
  csrfToken: () => string | null,
): Promise<Pusher> {
  if (shared) return shared.pusher;
  const { default: PusherClient } = await import('pusher-js');
  if (shared) return (shared as Shared).pusher;
  const port = settings.port ?? undefined;
  const pusher = new PusherClient(settings.key ?? '', {
    cluster: settings.cluster ?? 'mt1',
    ...(settings.host ? { wsHost: settings.host } : {}),
    ...(port ? { wsPort: port, wssPort: port } : {}),
    forceTLS: settings.force_tls,
    enabledTransports: ['ws', 'wss'],
    disableStats: true,
    channelAuthorization: {
      // Each kind of channel has its endpoint: the notifications' own, or the scoped one.
      customHandler: ({ socketId, channelName }, callback) => {
        const endpoint = channelName.startsWith(RESOURCE_PREFIX)
          ? settings.resource_auth_endpoint
          : settings.auth_endpoint;
        if (!endpoint) return callback(new Error(`${channelName}: no auth endpoint`), null);
        fetch(endpoint, {
          method: 'POST',
          credentials: 'same-origin',
          headers: {
            accept: 'application/json',
            'content-type': 'application/json',
            'x-csrf-token': csrfToken() ?? '',
          },
          body: JSON.stringify({ socket_id: socketId, channel_name: channelName }),
        })
          .then(async (response) => {
            if (!response.ok) throw new Error(`${channelName}: ${response.status}`);
            callback(null, await response.json());
          })
          .catch((error: Error) => callback(error, null));
      },
    },
  });
  shared = { pusher, channels: new Map() };
  return pusher;
}

export interface Subscription {
  readonly channel: string;
  readonly event: string;
  /** Each pushed event. */
  readonly onEvent: () => void;
  /** Subscribed (true; again after a reconnection), or the socket or subscription lost. */
  readonly onLive: (live: boolean) => void;
}

/** Subscribes on the page's connection; returns the unsubscribe (the last one disconnects). */
export async function subscribe(
  settings: RealtimeSettings,
  csrfToken: () => string | null,
  subscription: Subscription,
): Promise<() => void> {
  const pusher = await connection(settings, csrfToken);
  const { channels } = shared as Shared;
  const { channel: name, event, onEvent, onLive } = subscription;
  channels.set(name, (channels.get(name) ?? 0) + 1);
  const channel: Channel = pusher.channel(name) ?? pusher.subscribe(name);
  const up = () => onLive(true);
  const down = () => onLive(false);
  const changed = ({ current }: { current: string }) => {
    if (current !== 'connected') down();
  };
  channel.bind('pusher:subscription_succeeded', up);
  channel.bind('pusher:subscription_error', down);
  channel.bind(event, onEvent);
  pusher.connection.bind('state_change', changed);
  if (channel.subscribed) up();
  return () => {
    channel.unbind('pusher:subscription_succeeded', up);
    channel.unbind('pusher:subscription_error', down);
    channel.unbind(event, onEvent);
    pusher.connection.unbind('state_change', changed);
    const left = (channels.get(name) ?? 1) - 1;
    if (left > 0) channels.set(name, left);
    else {
      channels.delete(name);
      pusher.unsubscribe(name);
    }
    if (channels.size === 0) {
      pusher.disconnect();
      shared = null;
    }
  };
}

/** The bell's subscription: `onChange` once subscribed (again after a reconnection) and per push. */
export function connectRealtime(
  settings: RealtimeSettings,
  csrfToken: () => string | null,
  onChange: () => void,
): Promise<() => void> {
  if (!settings.enabled || !settings.channel) return Promise.resolve(() => {});
  return subscribe(settings, csrfToken, {
    channel: settings.channel,
    event: NOTIFICATION_EVENT,
    onEvent: onChange,
    onLive: (live) => live && onChange(),
  });
}

/** Follows `private-resource.<resource>`; null when the service offers no such channel. */
export async function followResource(
  settings: RealtimeSettings,
  csrfToken: () => string | null,
  resource: string,
  onEvent: () => void,
  onLive: (live: boolean) => void,
): Promise<(() => void) | null> {
  if (!settings.enabled || !settings.resource_auth_endpoint) return null;
  return subscribe(settings, csrfToken, {
    channel: `${RESOURCE_PREFIX}${resource}`,
    event: RESOURCE_EVENT,
    onEvent,
    onLive,
  });
}
