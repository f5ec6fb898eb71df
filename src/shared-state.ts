// Where the state that instances must agree on lives: in Redis with REDIS_URL (sessions,
// auth-failure counters, REST driver nonces, and the connections real-time fan-out uses), else in
// the system database and this process's memory, which serve one instance.
import type { Clock, FailureStore } from './auth/failure-limiter.js';
import { redisSessionStore } from './auth/session/redis-session-store.js';
import { databaseSessionStore, type SessionStore } from './auth/session/session-store.js';
import { databaseFailureStore } from './auth/stores/database-failure-store.js';
import { redisFailureStore } from './auth/stores/redis-failure-store.js';
import type { Config } from './config/config.js';
import type { Database } from './database/database.js';
import { connectRedis, type SharedRedis } from './kernel/shared-redis.js';
import { MemoryNonceStore, type NonceStore } from './rest-driver/nonce-store.js';
import { redisNonceStore } from './rest-driver/redis-nonce-store.js';

export interface SharedState {
  readonly sessions: SessionStore;
  readonly failures: FailureStore;
  readonly nonces: NonceStore;
  /** Null without REDIS_URL. */
  readonly redis: SharedRedis | null;
  close(): Promise<void>;
}

export async function openSharedState(
  config: Config,
  database: Database,
  clock: Clock,
): Promise<SharedState> {
  if (!config.redis) {
    return {
      sessions: databaseSessionStore(database),
      failures: databaseFailureStore(database),
      nonces: new MemoryNonceStore(clock),
      redis: null,
      close: async () => {},
    };
  }
  const redis = await connectRedis(config.redis);
  return {
    sessions: redisSessionStore(redis, database, config.sessionIdleMinutes),
    failures: redisFailureStore(redis),
    nonces: redisNonceStore(redis, clock),
    redis,
    close: () => redis.close(),
  };
}
