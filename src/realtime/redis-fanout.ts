// Real-time fan-out between instances (REDIS_URL): an event published on one instance (the send
// service, POST /api/notifications, the Pusher HTTP events API, hence `svc notify`) goes to this
// instance's sockets at once and, through the pub/sub channel `<prefix>realtime`, to every other
// instance, which delivers it to its own sockets. Each message names the instance it came from,
// and an instance skips its own: its sockets already have the event, and get it once.
import { randomUUID } from 'node:crypto';
import type { SharedRedis } from '../kernel/shared-redis.js';
import type { WarnLog } from '../support/warn-log.js';
import type { BroadcastEvent, Broadcaster } from './broadcaster.js';

export interface RedisFanoutOptions {
  readonly redis: SharedRedis;
  /** This instance's sockets: the embedded server. */
  readonly local: Broadcaster;
  readonly log: WarnLog;
  /** How long a publish may wait for Redis (default 2 s, as for an external push server). */
  readonly timeoutMs?: number;
}

interface FanoutMessage {
  readonly origin: string;
  readonly events: readonly BroadcastEvent[];
}

export const PUBLISH_TIMEOUT_MS = 2000;

const isString = (value: unknown): value is string => typeof value === 'string';

function isEvent(value: unknown): value is BroadcastEvent {
  if (value === null || typeof value !== 'object') return false;
  const event = value as Record<string, unknown>;
  return (
    isString(event.channel) &&
    isString(event.name) &&
    isString(event.data) &&
    (event.exceptSocketId === undefined || isString(event.exceptSocketId))
  );
}

/** A message of the fan-out channel, or null for anything else found there. */
function readMessage(text: string): FanoutMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  const { origin, events } = value as Record<string, unknown>;
  return isString(origin) && Array.isArray(events) && events.every(isEvent)
    ? { origin, events }
    : null;
}

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

export class RedisFanout implements Broadcaster {
  /** Names this instance in its messages. */
  private readonly origin = randomUUID();
  private readonly channel: string;

  constructor(private readonly options: RedisFanoutOptions) {
    this.channel = options.redis.key('realtime');
  }

  /** Subscribes to the other instances' events; resolves once Redis confirms the subscription. */
  async start(): Promise<void> {
    const subscriber = await this.options.redis.subscriber();
    subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.receive(text);
    });
    await subscriber.subscribe(this.channel);
  }

  /** Delivers here, then to the other instances; rejects when Redis does not take it in time. */
  async publish(events: readonly BroadcastEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.options.local.publish(events);
    const message: FanoutMessage = { origin: this.origin, events };
    const published = this.options.redis.client.publish(this.channel, JSON.stringify(message));
    await withDeadline(
      published,
      this.options.timeoutMs ?? PUBLISH_TIMEOUT_MS,
      'Publishing to the other instances through Redis',
    );
  }

  private receive(text: string): void {
    const message = readMessage(text);
    if (!message) {
      this.options.log.warn(
        { channel: this.channel },
        'Ignored a message of unknown shape on the real-time fan-out channel.',
      );
      return;
    }
    if (message.origin === this.origin) return;
    this.options.local.publish(message.events).catch((error: unknown) => {
      this.options.log.warn({ err: error }, 'Delivering events from another instance failed.');
    });
  }
}
