// DESIGN.md 3.5 "Sessions": POST /app/login starts a session (HttpOnly, SameSite=Lax cookie, a
// new id at every login), GET /app/session describes it, POST /app/logout ends it, and it ends by
// itself after SESSION_IDLE_MINUTES (default 120) without activity. The store keeps only a hash
// of the session id.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { readCasts } from '../../src/model/casts.js';
import { assertJson, type Reply } from '../helpers/http.js';
import { SESSION_COOKIE, SessionClient, signedIn, XSRF_COOKIE } from '../helpers/session-client.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/test-server.js';

const MINUTE = 60_000;

function assertSession401(reply: Reply): void {
  assertJson(reply, 401, { message: 'Unauthenticated.' });
}

function assertApi401(reply: Reply): void {
  assertJson(reply, 401, { error: 'Unauthenticated.' });
  assert.equal(reply.headers.get('www-authenticate'), 'Bearer');
}

async function sessionKeys(server: TestServer): Promise<string[]> {
  const rows = await server.service.database.db.selectFrom('sessions').select('id').execute();
  return rows.map((r) => String(r.id));
}

describe('session mode: login, session, logout', () => {
  let server: TestServer;
  let admin: Record<string, unknown>;

  before(async () => {
    server = await startTestServer({}, { anonymous: true });
    const row = await server.service.database.db
      .selectFrom('users')
      .select(['id', 'login', 'name', 'email', 'admin', 'active', 'created_at', 'updated_at'])
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    admin = {
      ...row,
      id: Number(row.id),
      created_at: readCasts.datetime(row.created_at),
      updated_at: readCasts.datetime(row.updated_at),
    };
  });
  after(() => server.close());

  it('answers a login with {user, unit, units, csrf_token}, the token also in the readable XSRF-TOKEN cookie', async () => {
    const client = new SessionClient(server.url);
    const reply = await client.login();
    assertJson(reply, 200);
    const token: unknown = reply.body.csrf_token;
    assert.equal(typeof token, 'string');
    assert.deepStrictEqual(reply.body, {
      user: admin,
      unit: { id: 1, name: 'Main' },
      units: [{ id: 1, name: 'Main' }],
      csrf_token: token,
    });
    assert.equal(decodeURIComponent(client.cookie(XSRF_COOKIE) ?? ''), token);
    assert.equal(Object.hasOwn(reply.body.user, 'password_hash'), false);
  });

  it('sets the session cookie HttpOnly, SameSite=Lax, on path /, not Secure over plain HTTP', async () => {
    const client = new SessionClient(server.url);
    await client.login();
    const session = client.lastSetCookies.find((c) => c.name === SESSION_COOKIE);
    assert.ok(session, 'a svc_session cookie is set');
    assert.equal(session.attributes.has('httponly'), true, session.raw);
    assert.equal(session.attributes.get('samesite')?.toLowerCase(), 'lax', session.raw);
    assert.equal(session.attributes.get('path'), '/', session.raw);
    assert.equal(session.attributes.has('secure'), false, session.raw);
  });

  it('ignores X-Forwarded-Proto from an untrusted client: the cookie stays not Secure', async () => {
    const client = new SessionClient(server.url);
    await client.post(
      '/app/login',
      { login: 'admin', password: ADMIN_PASSWORD },
      { csrf: false, headers: { 'x-forwarded-proto': 'https' } },
    );
    const session = client.lastSetCookies.find((c) => c.name === SESSION_COOKIE);
    assert.equal(session?.attributes.has('secure'), false, session?.raw);
  });

  it('sets XSRF-TOKEN readable by scripts (not HttpOnly), SameSite=Lax', async () => {
    const client = new SessionClient(server.url);
    await client.login();
    const xsrf = client.lastSetCookies.find((c) => c.name === XSRF_COOKIE);
    assert.ok(xsrf, 'an XSRF-TOKEN cookie is set');
    assert.equal(xsrf.attributes.has('httponly'), false, xsrf.raw);
    assert.equal(xsrf.attributes.get('samesite')?.toLowerCase(), 'lax', xsrf.raw);
  });

  it('stores only a SHA-256 of the session id, never the id or the cookie in clear', async () => {
    const client = await signedIn(server.url);
    const id = client.sessionId();
    const cookie = decodeURIComponent(client.cookie(SESSION_COOKIE) ?? '');
    const rows = await server.service.database.db.selectFrom('sessions').selectAll().execute();
    const text = JSON.stringify(rows);
    assert.equal(text.includes(id), false, 'the session id appears in the sessions table');
    assert.equal(text.includes(cookie), false, 'the cookie value appears in the sessions table');
    assert.ok((await sessionKeys(server)).includes(createHash('sha256').update(id).digest('hex')));
  });

  it('answers GET /app/session with the user, the unit, the units to switch to and a CSRF token', async () => {
    const client = await signedIn(server.url);
    const reply = await client.get('/app/session');
    assertJson(reply, 200);
    assert.equal(typeof reply.body.csrf_token, 'string');
    assert.deepStrictEqual(reply.body, {
      user: admin,
      unit: { id: 1, name: 'Main' },
      units: [{ id: 1, name: 'Main' }],
      csrf_token: reply.body.csrf_token,
    });
  });

  it('gives a new session id at every login and kills the old one (no fixation)', async () => {
    const client = await signedIn(server.url);
    const old = client.clone(); // cookie A, kept
    const idA = client.sessionId();
    await client.signIn(); // sends cookie A, receives cookie B
    const idB = client.sessionId();
    assert.notEqual(idB, idA);
    assertSession401(await old.get('/app/session'));
    assertApi401(await old.get('/api/import-templates'));
    assertJson(await client.get('/app/session'), 200);
    const keys = await sessionKeys(server);
    assert.equal(
      keys.includes(createHash('sha256').update(idA).digest('hex')),
      false,
      'session A is still stored',
    );
  });

  it('never adopts a session id the client offers at login', async () => {
    const client = new SessionClient(server.url);
    client.cookies.set(SESSION_COOKIE, 'planted-by-an-attacker');
    await client.signIn();
    assert.notEqual(client.sessionId(), 'planted-by-an-attacker');
    assertJson(await client.get('/app/session'), 200);
  });

  it('ends the session at logout: cookies cleared, the old cookie refused, the row gone', async () => {
    const client = await signedIn(server.url);
    const kept = client.clone();
    const key = createHash('sha256').update(client.sessionId()).digest('hex');
    assertJson(await client.post('/app/logout'), 200, { message: 'Logged out.' });
    assert.equal(client.cookie(SESSION_COOKIE), undefined, 'the session cookie is cleared');
    assert.equal(client.cookie(XSRF_COOKIE), undefined, 'the XSRF-TOKEN cookie is cleared');
    assertSession401(await kept.get('/app/session'));
    assertApi401(await kept.get('/api/import-templates'));
    assertSession401(await kept.post('/app/logout'));
    assert.equal((await sessionKeys(server)).includes(key), false);
  });

  it('ends only the session logged out: another session of the same user stays', async () => {
    const first = await signedIn(server.url);
    const second = await signedIn(server.url);
    assertJson(await first.post('/app/logout'), 200);
    assertJson(await second.get('/app/session'), 200);
    assertJson(await second.get('/api/import-templates'), 200);
  });
});

describe('session mode: behind an HTTPS proxy (TRUST_PROXY=true)', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ TRUST_PROXY: 'true' }, { anonymous: true });
  });
  after(() => server.close());

  it('sets both cookies Secure when the trusted proxy says the request came over HTTPS', async () => {
    const client = new SessionClient(server.url);
    const reply = await client.post(
      '/app/login',
      { login: 'admin', password: ADMIN_PASSWORD },
      { csrf: false, headers: { 'x-forwarded-proto': 'https' } },
    );
    assertJson(reply, 200);
    for (const name of [SESSION_COOKIE, XSRF_COOKIE]) {
      const cookie = client.lastSetCookies.find((c) => c.name === name);
      assert.equal(cookie?.attributes.has('secure'), true, cookie?.raw ?? `no ${name} cookie`);
    }
  });
});

describe('session mode: idle expiry', () => {
  let server: TestServer;
  let now = Date.now();

  before(async () => {
    server = await startTestServer({}, { anonymous: true, clock: () => now });
  });
  after(() => server.close());

  it('keeps the session within 120 minutes of inactivity', async () => {
    const client = await signedIn(server.url);
    now += 120 * MINUTE;
    assertJson(await client.get('/app/session'), 200);
  });

  it('ends the session after 120 minutes of inactivity, on /app and on /api', async () => {
    const client = await signedIn(server.url);
    const other = client.clone();
    now += 120 * MINUTE + 1;
    assertSession401(await client.get('/app/session'));
    assertApi401(await other.get('/api/import-templates'));
    now -= 120 * MINUTE; // an expired session is destroyed, not just refused
    assertSession401(await client.get('/app/session'));
  });

  it('extends the session with every request', async () => {
    const client = await signedIn(server.url);
    for (let i = 0; i < 3; i++) {
      now += 100 * MINUTE;
      assertJson(await client.get('/api/import-templates'), 200);
    }
    now += 121 * MINUTE;
    assertSession401(await client.get('/app/session'));
  });
});

describe('session mode: SESSION_IDLE_MINUTES', () => {
  let server: TestServer;
  let now = Date.now();

  before(async () => {
    server = await startTestServer(
      { SESSION_IDLE_MINUTES: '5' },
      { anonymous: true, clock: () => now },
    );
  });
  after(() => server.close());

  it('ends the session after the configured idle time', async () => {
    const client = await signedIn(server.url);
    now += 5 * MINUTE;
    assertJson(await client.get('/app/session'), 200);
    now += 5 * MINUTE + 1;
    assertSession401(await client.get('/app/session'));
  });
});
