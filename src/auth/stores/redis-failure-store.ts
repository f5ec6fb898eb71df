// Failure counters in Redis (REDIS_URL), so a failure on one instance counts on all: one hash
// per IP under `<prefix>auth-failures:<ip>` holding the current window. Counting is one Lua
// script, so instances failing the same IP at once never lose an increment. The window is the
// limiter's, on the injected clock; the Redis TTL only clears idle IPs away.
import type { SharedRedis } from '../../kernel/shared-redis.js';
import type { FailureStore } from '../failure-limiter.js';

// KEYS[1] the IP's window; ARGV now (ms), window length (ms), TTL (ms). Starts a window of one
// failure when there is none or it has ended, else counts one more in it.
const RECORD = `
local started = tonumber(redis.call('hget', KEYS[1], 'started_at'))
if started == nil or tonumber(ARGV[1]) >= started + tonumber(ARGV[2]) then
  redis.call('hset', KEYS[1], 'failures', 1, 'started_at', ARGV[1])
else
  redis.call('hincrby', KEYS[1], 'failures', 1)
end
redis.call('pexpire', KEYS[1], ARGV[3])
return 1`;

export function redisFailureStore(redis: SharedRedis): FailureStore {
  const { client } = redis;
  const keyOf = (ip: string) => redis.key('auth-failures', ip);
  return {
    inSystemDatabase: false,
    async get(ip) {
      const [failures, startedAt] = await client.hmget(keyOf(ip), 'failures', 'started_at');
      return failures == null || startedAt == null
        ? null
        : { failures: Number(failures), startedAt: Number(startedAt) };
    },
    async record(ip, now, windowMs) {
      // Twice the window in real time: long after the clock-driven window has ended.
      await client.eval(RECORD, 1, keyOf(ip), String(now), String(windowMs), String(2 * windowMs));
    },
  };
}
