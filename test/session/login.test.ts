// DESIGN.md 3.5/3.6: a failed login is a 422 that does not say which half of the credentials was
// wrong, starts no session, and counts toward the per-IP limit shared with bearer mode (20
// failures within 600 s -> 429 with Retry-After: 600, on login and on bearer requests alike).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { grantableAbilities } from '../../src/app/routes.js';
import { createToken } from '../../src/auth/tokens/token-service.js';
import { assertJson, type Reply } from '../helpers/http.js';
import { SESSION_COOKIE, SessionClient } from '../helpers/session-client.js';
import { seedLoginUser, USER_PASSWORD } from '../helpers/session-seed.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/test-server.js';

const BAD_CREDENTIALS = {
  message: 'These credentials do not match our records.',
  errors: { login: ['These credentials do not match our records.'] },
};

function assert429(reply: Reply): void {
  assertJson(reply, 429, { error: 'Too many requests. Try again later.' });
  assert.equal(reply.headers.get('retry-after'), '600');
}

describe('session mode: failed logins', () => {
  let server: TestServer;
  let now = Date.now();
  let token: string;

  before(async () => {
    server = await startTestServer({}, { anonymous: true, clock: () => now });
    const { db } = server.service.database;
    await seedLoginUser(db, 'inactive', [1]);
    await db.updateTable('users').set({ active: 'N' }).where('login', '=', 'inactive').execute();
    await seedLoginUser(db, 'unitless', []);
    const abilities = grantableAbilities();
    token = (
      await createToken(server.service.database, abilities, {
        userId: 1,
        unitId: 1,
        name: 'limit',
        abilities,
        expiresAt: null,
      })
    ).token;
  });
  after(() => server.close());
  beforeEach(async () => {
    now = Date.now();
    await server.service.database.db.deleteFrom('auth_failures').execute();
  });

  const failures = async () => {
    const rows = await server.service.database.db.selectFrom('auth_failures').selectAll().execute();
    return rows.reduce((sum, r) => sum + Number(r.failures), 0);
  };

  it('answers a wrong password and an unknown login with the same 422 body', async () => {
    const wrongPassword = await new SessionClient(server.url).login('admin', 'not the password');
    const unknownLogin = await new SessionClient(server.url).login('nobody', ADMIN_PASSWORD);
    assertJson(wrongPassword, 422, BAD_CREDENTIALS);
    assertJson(unknownLogin, 422, BAD_CREDENTIALS);
    assert.equal(wrongPassword.text, unknownLogin.text);
  });

  it('answers a login holding a NUL character as an unknown login, counted as a failure, on every engine', async () => {
    assertJson(
      await new SessionClient(server.url).login('ad\u0000min', ADMIN_PASSWORD),
      422,
      BAD_CREDENTIALS,
    );
    assert.equal(await failures(), 1);
  });

  it('answers the same 422 for an inactive user and a user without a unit, even with the right password', async () => {
    assertJson(
      await new SessionClient(server.url).login('inactive', USER_PASSWORD),
      422,
      BAD_CREDENTIALS,
    );
    assertJson(
      await new SessionClient(server.url).login('unitless', USER_PASSWORD),
      422,
      BAD_CREDENTIALS,
    );
  });

  it('starts no session and sets no cookie on a failed login', async () => {
    const client = new SessionClient(server.url);
    const sessions = await server.service.database.db.selectFrom('sessions').selectAll().execute();
    assertJson(await client.login('admin', 'wrong'), 422);
    assert.deepStrictEqual(client.lastSetCookies, []);
    assert.equal(client.cookie(SESSION_COOKIE), undefined);
    assert.deepStrictEqual(
      await server.service.database.db.selectFrom('sessions').selectAll().execute(),
      sessions,
    );
  });

  it('keeps the current session when a login attempt fails', async () => {
    const client = await new SessionClient(server.url).signIn();
    assertJson(await client.login('admin', 'wrong'), 422);
    assertJson(await client.get('/app/session'), 200);
  });

  it('answers a login without fields with a 422 naming both, not counted as a failure', async () => {
    assertJson(await new SessionClient(server.url).post('/app/login', {}), 422, {
      message: 'The login field is required. (and 1 more error)',
      errors: {
        login: ['The login field is required.'],
        password: ['The password field is required.'],
      },
    });
    assert.equal(await failures(), 0);
  });

  it('counts each failed login as an authentication failure, and a successful one not', async () => {
    await new SessionClient(server.url).login('admin', 'wrong');
    await new SessionClient(server.url).login('nobody', 'wrong');
    await new SessionClient(server.url).signIn();
    assert.equal(await failures(), 2);
  });

  it('answers 429 on login and on bearer requests after 20 failed logins, until the window passes', async () => {
    for (let i = 0; i < 20; i++)
      assertJson(await new SessionClient(server.url).login('admin', `wrong ${i}`), 422);
    assert429(await new SessionClient(server.url).login('admin', ADMIN_PASSWORD));
    assert429(
      await new SessionClient(server.url).request('GET', '/api/import-templates', {
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    now += 600_000;
    assertJson(await new SessionClient(server.url).login('admin', ADMIN_PASSWORD), 200);
  });

  it('shares the count with bearer failures: 10 failed logins and 10 bad tokens block the login', async () => {
    for (let i = 0; i < 10; i++)
      assertJson(await new SessionClient(server.url).login('admin', `wrong ${i}`), 422);
    const anonymous = new SessionClient(server.url);
    for (let i = 0; i < 10; i++)
      assertJson(
        await anonymous.request('GET', '/api/import-templates', {
          headers: { authorization: 'Bearer nope' },
        }),
        401,
      );
    assert429(await new SessionClient(server.url).login('admin', ADMIN_PASSWORD));
  });
});
