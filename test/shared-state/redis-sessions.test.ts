// Sessions in Redis (REDIS_URL, issue 8): the session suites' key rules hold with the Redis store
// behind the same interface (DESIGN.md 3.5 "Sessions", SPEC.md 5.2): the key is the SHA-256 of
// the session id, a login gives a new id and ends the old session, logout and idle expiry (on
// the injected clock) destroy it, CSRF and unit switching work, and the user, unit and company
// are still re-validated from the database on every request. Nothing goes to the sessions table.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sessionTtlSeconds } from '../../src/auth/session/redis-session-store.js';
import { runCli } from '../helpers/cli.js';
import { assertJson, type Reply } from '../helpers/http.js';
import { RedisProbe, redisEnv, redisSuite } from '../helpers/redis.js';
import { templatePayload } from '../helpers/seed.js';
import { SESSION_COOKIE, signedIn } from '../helpers/session-client.js';
import { linkUnit, seedLoginUser, seedUnit, USER_PASSWORD } from '../helpers/session-seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const MINUTE = 60_000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function assertSession401(reply: Reply): void {
  assertJson(reply, 401, { message: 'Unauthenticated.' });
}

describe('sessions in Redis', redisSuite, () => {
  let server: TestServer;
  let probe: RedisProbe;
  let now = Date.now();
  const env = redisEnv();

  before(async () => {
    probe = new RedisProbe(env.REDIS_PREFIX);
    server = await startTestServer(env, { anonymous: true, clock: () => now });
  });
  after(async () => {
    await server.close();
    await probe.clear();
  });

  const sessionKeys = async () => (await probe.keys()).filter((key) => key.startsWith('session:'));

  it('keys a session by the SHA-256 of its id, never the id or the cookie, and writes no sessions row', async () => {
    const client = await signedIn(server.url);
    const id = client.sessionId();
    const key = `session:${sha256(id)}`;
    assert.ok(
      (await sessionKeys()).includes(key),
      `no ${key} among ${(await sessionKeys()).join(', ')}`,
    );
    const stored = JSON.stringify([await probe.keys(), await probe.hash(key)]);
    assert.equal(stored.includes(id), false, 'the session id is stored in clear');
    assert.equal(
      stored.includes(decodeURIComponent(client.cookie(SESSION_COOKIE) ?? '')),
      false,
      'the cookie is stored',
    );
    assert.deepStrictEqual(
      await server.service.database.db.selectFrom('sessions').selectAll().execute(),
      [],
    );
  });

  it('gives the session key a Redis TTL well beyond the idle time, so abandoned keys go away', async () => {
    const client = await signedIn(server.url);
    const ttl = await probe.ttl(`session:${sha256(client.sessionId())}`);
    assert.ok(ttl > 120 * 60 && ttl <= sessionTtlSeconds(120), `TTL ${ttl}`);
  });

  it('answers GET /app/session and /api reads from the Redis session', async () => {
    const client = await signedIn(server.url);
    const state = await client.get('/app/session');
    assertJson(state, 200);
    assert.deepStrictEqual(state.body.unit, { id: 1, name: 'Main' });
    assert.equal(state.body.user.login, 'admin');
    assertJson(await client.get('/api/import-templates'), 200);
  });

  it('gives a new session id at every login and deletes the old session', async () => {
    const client = await signedIn(server.url);
    const old = client.clone();
    const oldKey = `session:${sha256(client.sessionId())}`;
    await client.signIn();
    assert.notEqual(client.sessionId(), old.sessionId());
    assertSession401(await old.get('/app/session'));
    assertJson(await client.get('/app/session'), 200);
    assert.equal(
      (await sessionKeys()).includes(oldKey),
      false,
      'the old session is still in Redis',
    );
  });

  it('deletes the session at logout: the old cookie is refused', async () => {
    const client = await signedIn(server.url);
    const kept = client.clone();
    const key = `session:${sha256(client.sessionId())}`;
    assertJson(await client.post('/app/logout'), 200, { message: 'Logged out.' });
    assertSession401(await kept.get('/app/session'));
    assert.equal((await sessionKeys()).includes(key), false);
  });

  it('requires the session’s CSRF token on writes: 419 without or with another session’s, 201 with its own', async () => {
    const client = await signedIn(server.url);
    const other = await signedIn(server.url);
    const mismatch = { message: 'CSRF token mismatch.' };
    assertJson(
      await client.post('/api/import-templates', templatePayload(), { csrf: false }),
      419,
      mismatch,
    );
    assertJson(
      await client.post('/api/import-templates', templatePayload(), {
        csrf: other.csrfToken ?? '',
      }),
      419,
      mismatch,
    );
    assertJson(
      await client.post('/api/import-templates', templatePayload({ title: 'Through Redis' })),
      201,
    );
  });

  it('ends the session after the idle time on the injected clock, and extends it with every request', async () => {
    const client = await signedIn(server.url);
    const key = `session:${sha256(client.sessionId())}`;
    for (let i = 0; i < 3; i++) {
      now += 100 * MINUTE;
      assertJson(await client.get('/app/session'), 200);
    }
    now += 120 * MINUTE + 1;
    assertSession401(await client.get('/app/session'));
    now -= 120 * MINUTE; // an expired session is destroyed, not just refused
    assertSession401(await client.get('/app/session'));
    assert.equal((await sessionKeys()).includes(key), false);
  });

  it('switches the unit of its own session only, and keeps it across requests', async () => {
    const { db } = server.service.database;
    const second = await seedUnit(db, 'Second');
    await linkUnit(db, 1, second);
    const mover = await signedIn(server.url);
    const stayer = await signedIn(server.url);
    assertJson(await mover.post('/app/session/unit', { unit_id: second }), 200);
    assert.deepStrictEqual((await mover.get('/app/session')).body.unit, {
      id: second,
      name: 'Second',
    });
    assert.deepStrictEqual((await stayer.get('/app/session')).body.unit, { id: 1, name: 'Main' });
  });

  it('re-validates the user on every request: a user deactivated during the session gets 403', async () => {
    const { db } = server.service.database;
    await seedLoginUser(db, 'leaver', [1]);
    const client = await signedIn(server.url, 'leaver', USER_PASSWORD);
    assertJson(await client.get('/app/session'), 200);
    await db.updateTable('users').set({ active: 'N' }).where('login', '=', 'leaver').execute();
    assertJson(await client.get('/app/session'), 403, { message: 'The user is inactive.' });
  });

  it("ends the user's other sessions on a password change, through the API and svc user:password", async () => {
    const { db } = server.service.database;
    const id = await seedLoginUser(db, 'rotator', [1], 'Y');
    const acting = await signedIn(server.url, 'rotator', USER_PASSWORD);
    const other = await signedIn(server.url, 'rotator', USER_PASSWORD);
    const bystander = await signedIn(server.url);
    assertJson(await acting.patch(`/api/users/${id}`, { password: 'rotated-password-1' }), 200);
    assertJson(await acting.get('/app/session'), 200);
    assertSession401(await other.get('/app/session'));
    assertJson(await bystander.get('/app/session'), 200);

    const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent' };
    delete childEnv.DATABASE_URL;
    const run = await runCli({ ...childEnv, ...server.storageEnv, ...env }, [
      'user:password',
      'rotator',
      '--password=rotated-password-2',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assertSession401(await acting.get('/app/session'));
    assertJson(await bystander.get('/app/session'), 200);
  });
});

describe('sessions in Redis: SESSION_IDLE_MINUTES', redisSuite, () => {
  let server: TestServer;
  let probe: RedisProbe;
  let now = Date.now();

  before(async () => {
    const env = redisEnv();
    probe = new RedisProbe(env.REDIS_PREFIX);
    server = await startTestServer(
      { ...env, SESSION_IDLE_MINUTES: '5' },
      { anonymous: true, clock: () => now },
    );
  });
  after(async () => {
    await server.close();
    await probe.clear();
  });

  it('ends the session after the configured idle time', async () => {
    const client = await signedIn(server.url);
    now += 5 * MINUTE;
    assertJson(await client.get('/app/session'), 200);
    now += 5 * MINUTE + 1;
    assertSession401(await client.get('/app/session'));
  });
});
