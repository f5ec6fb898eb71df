// Sessions in Redis (REDIS_URL), so every instance sees the same ones: one hash per session under
// `<prefix>session:<SHA-256 of the session id>`, never the id itself. Idle expiry stays the
// SessionAuth's decision on the injected clock, as with the table; the Redis TTL only makes
// abandoned keys go away, so it is generously longer than the idle time. The acting user, unit
// and company are read from the system database, fresh on every request as with the table.
import type { Database } from '../../database/database.js';
import type { SharedRedis } from '../../kernel/shared-redis.js';
import { findIdentity } from '../identity-query.js';
import type { SessionStore } from './session-store.js';

/** At least a day, and twice the idle time: only a leak guard, expiry is the clock's. */
export function sessionTtlSeconds(idleMinutes: number): number {
  return Math.max(2 * idleMinutes * 60, 24 * 60 * 60);
}

// Sets one field of a session that still exists (a destroyed one is not brought back as a
// fragment) and renews its TTL, atomically.
const UPDATE_EXISTING = `
if redis.call('exists', KEYS[1]) == 0 then return 0 end
redis.call('hset', KEYS[1], ARGV[1], ARGV[2])
redis.call('expire', KEYS[1], ARGV[3])
return 1`;

export function redisSessionStore(
  redis: SharedRedis,
  database: Database,
  idleMinutes: number,
): SessionStore {
  const { client } = redis;
  const ttl = sessionTtlSeconds(idleMinutes);
  const keyOf = (key: string) => redis.key('session', key);
  // The keys of a user's sessions, to end them on a password change; a key whose session is gone
  // (logged out, expired) stays until then or until the set's own TTL, and deleting it is a no-op.
  const userSetOf = (userId: number) => redis.key('user-sessions', String(userId));
  const update = (key: string, field: string, value: number) =>
    client.eval(UPDATE_EXISTING, 1, keyOf(key), field, String(value), String(ttl));
  return {
    async create(record) {
      const fields = {
        user_id: record.userId,
        unit_id: record.unitId,
        csrf_secret: record.csrfSecret,
        last_activity: record.lastActivity,
      };
      const replies = await client
        .multi()
        .hset(keyOf(record.key), fields)
        .expire(keyOf(record.key), ttl)
        .sadd(userSetOf(record.userId), record.key)
        .expire(userSetOf(record.userId), ttl)
        .exec();
      const failed = replies?.find(([error]) => error)?.[0];
      if (failed) throw failed;
    },
    async find(key) {
      const fields = await client.hgetall(keyOf(key));
      if (
        fields.user_id === undefined ||
        fields.unit_id === undefined ||
        fields.csrf_secret === undefined
      )
        return null;
      const session = {
        key,
        userId: Number(fields.user_id),
        unitId: Number(fields.unit_id),
        csrfSecret: fields.csrf_secret,
        lastActivity: Number(fields.last_activity ?? 0),
      };
      return { session, identity: await findIdentity(database, session.userId, session.unitId) };
    },
    async touch(key, now) {
      await update(key, 'last_activity', now);
    },
    async setUnit(key, unitId) {
      await update(key, 'unit_id', unitId);
    },
    async destroy(key) {
      await client.del(keyOf(key));
    },
    async endUserSessions(userId, keep) {
      const set = userSetOf(userId);
      const ending = (await client.smembers(set)).filter((key) => key !== keep);
      if (ending.length === 0) return;
      const replies = await client
        .multi()
        .del(...ending.map(keyOf))
        .srem(set, ...ending)
        .exec();
      const failed = replies?.find(([error]) => error)?.[0];
      if (failed) throw failed;
    },
  };
}
