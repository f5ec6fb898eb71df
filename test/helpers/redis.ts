// The Redis suites' set-up: TEST_REDIS_URL (the suites skip, saying why, when it is unset), a
// random REDIS_PREFIX per test so tests and parallel runs never see each other's keys, and a
// look at what a prefix holds (what the service stored, then cleared away).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? '';

/** `{ skip }` for describe(): false with TEST_REDIS_URL, else the reason. */
export const redisSuite = {
  skip:
    TEST_REDIS_URL === ''
      ? 'TEST_REDIS_URL is not set: the Redis suites need a Redis server (e.g. TEST_REDIS_URL=redis://127.0.0.1:6379)'
      : false,
} as const;

/** REDIS_URL and a fresh REDIS_PREFIX, for a test's servers. */
export function redisEnv(prefix = `svc-test-${randomBytes(6).toString('hex')}:`): {
  REDIS_URL: string;
  REDIS_PREFIX: string;
} {
  return { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix };
}

/** A direct connection to the test Redis, for looking at and clearing a prefix. */
export class RedisProbe {
  private readonly client = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });

  constructor(readonly prefix: string) {}

  /** Every key under the prefix, without it, sorted. */
  async keys(): Promise<string[]> {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await this.client.scan(
        cursor,
        'MATCH',
        `${this.escaped()}*`,
        'COUNT',
        1000,
      );
      cursor = next;
      found.push(...batch);
    } while (cursor !== '0');
    return found.map((key) => key.slice(this.prefix.length)).sort();
  }

  /** A hash's fields (key without the prefix). */
  hash(key: string): Promise<Record<string, string>> {
    return this.client.hgetall(this.prefix + key);
  }

  /** Seconds to live of a key (key without the prefix); -2 when absent, -1 without a TTL. */
  ttl(key: string): Promise<number> {
    return this.client.ttl(this.prefix + key);
  }

  /** Deletes every key of the prefix and closes the connection. */
  async clear(): Promise<void> {
    const keys = await this.keys();
    if (keys.length > 0) await this.client.del(...keys.map((key) => this.prefix + key));
    await this.client.quit();
  }

  /** The prefix as a literal SCAN pattern. */
  private escaped(): string {
    return this.prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
  }
}
