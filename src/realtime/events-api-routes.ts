// The Pusher HTTP events API of the embedded server (DESIGN.md 3.5): `POST /apps/{id}/events`
// and `POST /apps/{id}/batch_events`, so any Pusher server SDK, or another svc instance with
// PUSHER_HOST set, can publish through it. The body is kept as received: body_md5 is checked on
// those exact bytes before any parsing.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import type { Broadcaster } from './broadcaster.js';
import { CHANNEL_NAME, MAX_EVENT_NAME, MAX_MESSAGE_BYTES } from './pusher-protocol.js';
import { type PusherCredentials, signatureRefusal } from './pusher-signatures.js';

export interface EventsApiOptions {
  readonly credentials: PusherCredentials;
  /** This instance's sockets (and, with Redis, every other instance's). */
  readonly local: Broadcaster;
  readonly clock: () => number;
}

interface ApiEvent {
  readonly channels: readonly string[];
  readonly name: string;
  readonly data: string;
  readonly socketId: string | undefined;
}

const MAX_CHANNELS_PER_EVENT = 100;
const MAX_BATCH = 10;
const SOCKET_ID = /^\d+\.\d+$/;

function fieldsOf(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw errors.pusherInvalidEvent(`${what} must be a JSON object.`);
  return value as Record<string, unknown>;
}

/** One event of either endpoint: `channels` (or `channel`), `name`, `data` text, optional `socket_id`. */
function readEvent(value: unknown, what: string): ApiEvent {
  const fields = fieldsOf(value, what);
  const { name, data } = fields;
  const channels = Array.isArray(fields.channels)
    ? (fields.channels as unknown[])
    : fields.channel !== undefined
      ? [fields.channel]
      : [];
  if (channels.length === 0 || channels.length > MAX_CHANNELS_PER_EVENT) {
    throw errors.pusherInvalidEvent(
      `${what} needs "channels" (1 to ${MAX_CHANNELS_PER_EVENT} names) or "channel".`,
    );
  }
  const invalid = channels.find((c) => typeof c !== 'string' || !CHANNEL_NAME.test(c));
  if (invalid !== undefined)
    throw errors.pusherInvalidEvent(`${what}: invalid channel name ${JSON.stringify(invalid)}.`);
  if (typeof name !== 'string' || name === '' || name.length > MAX_EVENT_NAME) {
    throw errors.pusherInvalidEvent(
      `${what} needs "name", a string of 1 to ${MAX_EVENT_NAME} characters.`,
    );
  }
  if (typeof data !== 'string')
    throw errors.pusherInvalidEvent(`${what} needs "data", a string (JSON-encode objects).`);
  if (Buffer.byteLength(data, 'utf8') > MAX_MESSAGE_BYTES)
    throw errors.pusherEventTooLarge(MAX_MESSAGE_BYTES);
  const socketId = fields.socket_id;
  if (socketId !== undefined && (typeof socketId !== 'string' || !SOCKET_ID.test(socketId))) {
    throw errors.pusherInvalidEvent(`${what}: socket_id must look like 1234.5678.`);
  }
  return { channels: channels as string[], name, data, socketId };
}

export function registerEventsApi(app: FastifyInstance, options: EventsApiOptions): void {
  const { credentials, local, clock } = options;

  /** The request's JSON body once its signature holds. */
  const verified = (request: FastifyRequest): unknown => {
    const appId = (request.params as { appId: string }).appId;
    if (appId !== credentials.appId) throw errors.pusherUnknownApp(appId.slice(0, 100));
    const at = request.url.indexOf('?');
    const path = at === -1 ? request.url : request.url.slice(0, at);
    const parameters = [...new URLSearchParams(at === -1 ? '' : request.url.slice(at + 1))];
    const body = typeof request.body === 'string' ? request.body : '';
    const refusal = signatureRefusal(
      credentials,
      { method: request.method, path, parameters, body },
      clock(),
    );
    if (refusal) throw errors.pusherUnauthenticated(refusal);
    try {
      return JSON.parse(body) as unknown;
    } catch {
      throw errors.pusherInvalidEvent('The body is not valid JSON.');
    }
  };

  const deliver = (events: readonly ApiEvent[]): Promise<void> =>
    local.publish(
      events.flatMap((event) =>
        event.channels.map((channel) => ({
          channel,
          name: event.name,
          data: event.data,
          exceptSocketId: event.socketId,
        })),
      ),
    );

  // Scoped: only these two routes take their JSON body as text.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );

    scope.post('/apps/:appId/events', async (request) => {
      await deliver([readEvent(verified(request), 'The event')]);
      return {};
    });

    scope.post('/apps/:appId/batch_events', async (request) => {
      const batch = fieldsOf(verified(request), 'The body').batch;
      if (!Array.isArray(batch) || batch.length === 0 || batch.length > MAX_BATCH) {
        throw errors.pusherInvalidEvent(`"batch" must be an array of 1 to ${MAX_BATCH} events.`);
      }
      // Every event is checked before any is delivered: a batch is all or nothing.
      await deliver(batch.map((event, i) => readEvent(event, `Event ${i}`)));
      return {};
    });
  });
}
