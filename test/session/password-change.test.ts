// Issue 31, 10: setting a user's password ends that user's other sessions, whoever sets it and
// however (PATCH /api/users/{id} in bearer or session mode, `svc user:password`); the acting
// session stays when it is that user's own. Other users' sessions, and updates that leave the
// password alone, end nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { assertJson, type Reply } from '../helpers/http.js';
import { SessionClient } from '../helpers/session-client.js';
import { seedLoginUser, USER_PASSWORD } from '../helpers/session-seed.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/test-server.js';

const NEW_PASSWORD = 'a-new-password-1';

function assertEnded(reply: Reply): void {
  assertJson(reply, 401, { message: 'Unauthenticated.' });
}

describe("a password change ends the user's other sessions", () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  /** A user with two sessions (two browsers), and another user's session. */
  async function twoSessions(login: string) {
    const id = await seedLoginUser(server.service.database.db, login, [1]);
    const first = await new SessionClient(server.url).signIn(login, USER_PASSWORD);
    const second = await new SessionClient(server.url).signIn(login, USER_PASSWORD);
    return { id, first, second };
  }

  it('ends every session of the user when an admin sets the password through /api/users (bearer mode)', async () => {
    const { id, first, second } = await twoSessions('pw-bearer');
    const bystander = await new SessionClient(server.url).signIn();
    assertJson(await first.get('/app/session'), 200);
    assertJson(await server.patch(`/api/users/${id}`, { password: NEW_PASSWORD }), 200);
    assertEnded(await first.get('/app/session'));
    assertEnded(await second.get('/app/session'));
    assertJson(await bystander.get('/app/session'), 200);
    await new SessionClient(server.url).signIn('pw-bearer', NEW_PASSWORD);
  });

  it('ends the sessions of the user an admin sets the password of in session mode, not the admin’s', async () => {
    const { id, first, second } = await twoSessions('pw-session');
    const admin = await new SessionClient(server.url).signIn();
    assertJson(await admin.put(`/api/users/${id}`, { password: NEW_PASSWORD }), 200);
    assertEnded(await first.get('/app/session'));
    assertEnded(await second.get('/app/session'));
    assertJson(await admin.get('/app/session'), 200);
  });

  it('keeps the acting session of a user who sets their own password, and ends their others', async () => {
    const id = await seedLoginUser(server.service.database.db, 'pw-self', [1], 'Y');
    const acting = await new SessionClient(server.url).signIn('pw-self', USER_PASSWORD);
    const other = await new SessionClient(server.url).signIn('pw-self', USER_PASSWORD);
    assertJson(await acting.patch(`/api/users/${id}`, { password: NEW_PASSWORD }), 200);
    assertJson(await acting.get('/app/session'), 200);
    assertEnded(await other.get('/app/session'));
  });

  it('ends no session on an update that leaves the password alone', async () => {
    const { id, first, second } = await twoSessions('pw-unchanged');
    assertJson(await server.patch(`/api/users/${id}`, { name: 'Renamed' }), 200);
    assertJson(await first.get('/app/session'), 200);
    assertJson(await second.get('/app/session'), 200);
  });

  it('ends every session of the user when svc user:password sets it', async () => {
    const { first, second } = await twoSessions('pw-cli');
    const env: NodeJS.ProcessEnv = { ...process.env, ADMIN_PASSWORD, LOG_LEVEL: 'silent' };
    delete env.DATABASE_URL;
    const run = await runCli({ ...env, ...server.storageEnv }, [
      'user:password',
      'pw-cli',
      `--password=${NEW_PASSWORD}`,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assertEnded(await first.get('/app/session'));
    assertEnded(await second.get('/app/session'));
  });
});
