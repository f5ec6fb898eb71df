// The Pusher Channels protocol, version 7, as a typed message set (STYLE.md example 14): what a
// client may send, validated on arrival into a tagged union, and every frame the server sends,
// built here only. https://pusher.com/docs/channels/library_auth_reference/pusher-websockets-protocol/
export const PROTOCOL_VERSION = 7;

/** The client message size limit (Pusher's own 10 KB); bigger ones get a pusher:error. */
export const MAX_MESSAGE_BYTES = 10 * 1024;
/** Pusher's channel name rules (length: Soketi's 200, a little above Pusher's 164). */
export const CHANNEL_NAME = /^[-a-zA-Z0-9_=@,.;]{1,200}$/;
export const MAX_EVENT_NAME = 200;

/**
 * Codes of `pusher:error` and of close frames. 4000-4099: do not reconnect; 4100-4199: reconnect
 * after a back-off; 4200-4299: reconnect at once; 4300-4399: other errors, connection kept.
 */
export const ErrorCode = {
  APP_NOT_FOUND: 4001,
  INVALID_VERSION: 4006,
  UNSUPPORTED_VERSION: 4007,
  NO_VERSION: 4008,
  /** No private channel within REALTIME_AUTH_TIMEOUT_MS; 4000-4099, so pusher-js does not retry. */
  UNAUTHORIZED_TIMEOUT: 4009,
  OVER_CAPACITY: 4100,
  RECONNECT: 4200,
  PONG_NOT_RECEIVED: 4201,
  /** Malformed, unknown or oversized messages: answered, the connection stays. */
  INVALID_MESSAGE: 4300,
  CLIENT_EVENT_REJECTED: 4301,
} as const;

export type ClientMessage =
  | { readonly kind: 'ping' }
  | { readonly kind: 'pong' }
  | {
      readonly kind: 'subscribe';
      readonly channel: string;
      readonly auth: string | null;
      readonly channelData: string | null;
    }
  | { readonly kind: 'unsubscribe'; readonly channel: string }
  | { readonly kind: 'client-event'; readonly event: string; readonly channel: string | null }
  | { readonly kind: 'invalid'; readonly reason: string };

function object(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** `data` may arrive as an object or as a JSON string of one (both occur in the wild). */
function dataOf(message: Record<string, unknown>): Record<string, unknown> {
  const data = message.data;
  if (typeof data === 'string') {
    try {
      return object(JSON.parse(data)) ?? {};
    } catch {
      return {};
    }
  }
  return object(data) ?? {};
}

const optionalString = (value: unknown): string | null =>
  typeof value === 'string' ? value : null;

export function parseClientMessage(text: string): ClientMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'invalid', reason: 'The message is not valid JSON.' };
  }
  const message = object(parsed);
  const event = message?.event;
  if (!message || typeof event !== 'string')
    return { kind: 'invalid', reason: 'The message must be a JSON object with an "event" string.' };
  switch (event) {
    case 'pusher:ping':
      return { kind: 'ping' };
    case 'pusher:pong':
      return { kind: 'pong' };
    case 'pusher:subscribe':
    case 'pusher:unsubscribe': {
      const data = dataOf(message);
      const channel = data.channel;
      if (typeof channel !== 'string')
        return { kind: 'invalid', reason: `${event} needs data.channel, a string.` };
      if (event === 'pusher:unsubscribe') return { kind: 'unsubscribe', channel };
      return {
        kind: 'subscribe',
        channel,
        auth: optionalString(data.auth),
        channelData: optionalString(data.channel_data),
      };
    }
  }
  if (event.startsWith('client-'))
    return { kind: 'client-event', event, channel: optionalString(message.channel) };
  return { kind: 'invalid', reason: `Unknown event "${event.slice(0, MAX_EVENT_NAME)}".` };
}

// ---- frames the server sends -------------------------------------------------------------

interface Frame {
  readonly event: string;
  readonly channel?: string;
  readonly data: unknown;
}

const encode = (frame: Frame): string => JSON.stringify(frame);

/** pusher-js requires both fields; activity_timeout is in seconds. */
export const connectionEstablished = (socketId: string, activityTimeout: number): string =>
  encode({
    event: 'pusher:connection_established',
    data: JSON.stringify({ socket_id: socketId, activity_timeout: activityTimeout }),
  });

export const pong = (): string => encode({ event: 'pusher:pong', data: {} });
export const ping = (): string => encode({ event: 'pusher:ping', data: {} });

export const protocolError = (code: number, message: string): string =>
  encode({ event: 'pusher:error', data: { code, message } });

export const subscriptionSucceeded = (channel: string): string =>
  encode({ event: 'pusher_internal:subscription_succeeded', channel, data: '{}' });

/** Channel-scoped, so pusher-js hands it to that channel (laravel-echo's `.error()`). */
export const subscriptionError = (
  channel: string,
  type: string,
  error: string,
  status: number,
): string => encode({ event: 'pusher:subscription_error', channel, data: { type, error, status } });

/** An application event; `data` is the string the publisher gave (pusher-js parses JSON text). */
export const channelEvent = (channel: string, event: string, data: string): string =>
  encode({ event, channel, data });

/** A close frame's reason: at most 123 bytes of UTF-8, cut on a character boundary. */
export function closeReason(text: string): string {
  let reason = [...text].slice(0, 123).join('');
  while (Buffer.byteLength(reason, 'utf8') > 123) reason = [...reason].slice(0, -1).join('');
  return reason;
}

export function isPrivateChannel(channel: string): boolean {
  return channel.startsWith('private-');
}
