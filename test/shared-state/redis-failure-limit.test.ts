// The per-IP failure limit with its counters in Redis (REDIS_URL, issue 8; SPEC.md 5.1.8,
// DESIGN.md 3.5/3.6): 20 failures within 600 s from one IP block it with 429 and Retry-After: 600
// until 600 s after its first counted failure, on the injected clock as with the database store;
// failed logins count too; concurrent failures are all counted (one atomic script per failure).
// Each test has its own server and its own key prefix, so its own counters.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { assert429, assertBearer401, bearer, issue } from '../helpers/bearer.js';
import { assertJson } from '../helpers/http.js';
import { RedisProbe, redisEnv, redisSuite } from '../helpers/redis.js';
import { SessionClient } from '../helpers/session-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const LIST = '/api/import-templates';
const WINDOW_MS = 600_000;

describe('per-IP failure limit with counters in Redis', redisSuite, () => {
  let server: TestServer | null = null;
  let probe: RedisProbe | null = null;
  let now = Date.parse('2030-01-01T00:00:00.000Z');
  afterEach(async () => {
    await server?.close();
    await probe?.clear();
    server = null;
    probe = null;
  });

  async function start(): Promise<{ server: TestServer; token: string; probe: RedisProbe }> {
    now = Date.parse('2030-01-01T00:00:00.000Z');
    const env = redisEnv();
    probe = new RedisProbe(env.REDIS_PREFIX);
    server = await startTestServer(env, { anonymous: true, clock: () => now });
    const { token } = await issue(server);
    return { server, token, probe };
  }

  /** Failures that count (DESIGN.md 3.6): a presented credential that fails (a malformed token). */
  async function fail(s: TestServer, times: number): Promise<void> {
    for (let i = 0; i < times; i++)
      assertBearer401(await s.get(LIST, { headers: bearer('svc_api_short') }), 'Invalid token.');
  }

  it('returns 429 with Retry-After: 600 after 20 failures from one IP, counted in Redis, not in auth_failures', async () => {
    const { server: s, token, probe: p } = await start();
    await fail(s, 20);
    assert429(await s.get(LIST, { headers: bearer(token) }));
    assert.deepStrictEqual(await p.keys(), ['auth-failures:127.0.0.1']);
    assert.deepStrictEqual(await p.hash('auth-failures:127.0.0.1'), {
      failures: '20',
      started_at: String(now),
    });
    assert.deepStrictEqual(
      await s.service.database.db.selectFrom('auth_failures').selectAll().execute(),
      [],
    );
  });

  it('a request with no credential is answered 401 and not counted toward the failure limit: nothing is written to Redis', async () => {
    const { server: s, token, probe: p } = await start();
    for (let i = 0; i < 25; i++) assertBearer401(await s.get(LIST), 'Unauthenticated.');
    assert.deepStrictEqual(await p.keys(), []);
    await fail(s, 19);
    assertJson(await s.get(LIST, { headers: bearer(token) }), 200);
    await fail(s, 1);
    assert429(await s.get(LIST, { headers: bearer(token) }));
    assert429(await s.get(LIST));
  });

  it('does not block after 19 failures, and a success does not reset the count', async () => {
    const { server: s, token } = await start();
    await fail(s, 19);
    assertJson(await s.get(LIST, { headers: bearer(token) }), 200);
    await fail(s, 1);
    assert429(await s.get(LIST, { headers: bearer(token) }));
  });

  it('ends the block 600 s after the first counted failure, on the injected clock', async () => {
    const { server: s, token } = await start();
    const first = now;
    await fail(s, 1);
    now = first + 100_000;
    await fail(s, 19);
    now = first + WINDOW_MS - 1;
    assert429(await s.get(LIST, { headers: bearer(token) }));
    now = first + WINDOW_MS;
    assertJson(await s.get(LIST, { headers: bearer(token) }), 200);
  });

  it('starts a new count after the window: one failure does not block again', async () => {
    const { server: s, token } = await start();
    const first = now;
    await fail(s, 20);
    now = first + WINDOW_MS;
    await fail(s, 19);
    assertJson(await s.get(LIST, { headers: bearer(token) }), 200);
    await fail(s, 1);
    assert429(await s.get(LIST, { headers: bearer(token) }));
  });

  it('counts every one of 20 concurrent failures: the next request is a 429', async () => {
    const { server: s, token, probe: p } = await start();
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => s.get(LIST, { headers: bearer('svc_api_short') })),
    );
    for (const reply of replies) assertBearer401(reply, 'Invalid token.');
    assert.equal((await p.hash('auth-failures:127.0.0.1')).failures, '20');
    assert429(await s.get(LIST, { headers: bearer(token) }));
  });

  it('counts failed logins: after 20 the right password is a 429 too', async () => {
    const { server: s } = await start();
    for (let i = 0; i < 20; i++)
      assert.equal((await new SessionClient(s.url).login('admin', 'wrong password')).status, 422);
    assertJson(await new SessionClient(s.url).login(), 429, {
      error: 'Too many requests. Try again later.',
    });
  });
});
