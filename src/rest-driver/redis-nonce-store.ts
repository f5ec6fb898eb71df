// Driver nonces in Redis (REDIS_URL): `SET <prefix>nonce:<nonce> NX PX <ms>` claims a nonce for
// every instance at once, so a request replayed to another instance is refused too. The key
// lives as long as the memory store would keep it: until the signed timestamp could no longer
// pass the clock-skew check.
import type { Clock } from '../auth/failure-limiter.js';
import type { SharedRedis } from '../kernel/shared-redis.js';
import type { NonceStore } from './nonce-store.js';

export function redisNonceStore(redis: SharedRedis, clock: Clock = Date.now): NonceStore {
  return {
    async claim(nonce, expiresAt) {
      const ttlMs = Math.max(1, Math.ceil(expiresAt - clock()));
      return (await redis.client.set(redis.key('nonce', nonce), '1', 'PX', ttlMs, 'NX')) === 'OK';
    },
  };
}
