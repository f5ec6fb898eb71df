// The Redis that several instances share (REDIS_URL, DESIGN.md 2 and 3.2): one command
// connection for the stores (sessions, failure counters, REST driver nonces) and the fan-out's
// publishes, plus dedicated connections for SUBSCRIBE (a subscribed connection runs nothing
// else). Every key and channel starts with REDIS_PREFIX. The only module that opens ioredis.
import { Redis, type RedisOptions } from 'ioredis';
import type { RedisConfig } from '../config/config.js';
import type { WarnLog } from '../support/warn-log.js';

export interface SharedRedis {
  /** The command connection. */
  readonly client: Redis;
  /** REDIS_PREFIX + the parts joined with ':' (`svc:session:<hash>`). */
  key(...parts: string[]): string;
  /** A new connection for SUBSCRIBE, ready; closed with the others by close(). */
  subscriber(): Promise<Redis>;
  /** Where connection failures are reported from now on (before: nowhere, the start fails). */
  reportTo(log: WarnLog): void;
  /** Closes every connection; pending replies are awaited while Redis answers. */
  close(): Promise<void>;
}

// While Redis is away a command fails at once instead of queueing for the reconnect (with the
// queue, requests waited up to 20 s, the backoff growing between attempts); reconnect attempts
// come at most a second apart, so the instance is back within a second of Redis.
const OPTIONS: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 5000,
  retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
};

/** Reports a failing connection once, and its recovery, never the URL (it may hold a password). */
function watch(connection: Redis, name: string, log: () => WarnLog | null): Redis {
  let failing = false;
  connection.on('error', (error: Error) => {
    if (failing) return;
    failing = true;
    log()?.warn({ reason: error.message }, `Redis ${name} connection failed; retrying.`);
  });
  connection.on('ready', () => {
    if (!failing) return;
    failing = false;
    log()?.warn({}, `Redis ${name} connection is back.`);
  });
  return connection;
}

async function opened(connection: Redis): Promise<Redis> {
  try {
    await connection.connect();
    return connection;
  } catch (error) {
    connection.disconnect();
    throw new Error(
      `Cannot connect to REDIS_URL: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

async function closed(connection: Redis): Promise<void> {
  // QUIT waits for pending replies; on a connection that is not up it would wait for a
  // reconnect, so that one is dropped at once.
  if (connection.status === 'ready') await connection.quit().catch(() => connection.disconnect());
  else connection.disconnect();
}

export async function connectRedis(config: RedisConfig): Promise<SharedRedis> {
  const connections: Redis[] = [];
  let log: WarnLog | null = null;
  const open = async (name: string) => {
    const connection = watch(new Redis(config.url, OPTIONS), name, () => log);
    connections.push(connection);
    return opened(connection);
  };
  const client = await open('command');
  return {
    client,
    key: (...parts) => config.prefix + parts.join(':'),
    subscriber: () => open('subscriber'),
    reportTo(to) {
      log = to;
    },
    async close() {
      await Promise.all(connections.splice(0).map(closed));
    },
  };
}
