// DESIGN.md 3.4: every resource answers in both modes on the same path; a request with an
// Authorization header is in bearer mode, any other in session mode. The session's identity acts
// as a token's does, without abilities (SPEC.md 5), and the resource's own authorization check
// runs in both modes (SPEC.md 5.2.3, DESIGN.md 3.6 403 bodies).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { type SessionClient, signedIn } from '../helpers/session-client.js';
import { seedLoginUser, USER_PASSWORD } from '../helpers/session-seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const UNAUTHORIZED = { message: 'This action is unauthorized.' };

describe('session mode and bearer mode on the same paths', () => {
  let server: TestServer; // requests through `server` carry the admin's bearer token
  let session: SessionClient;
  let member: SessionClient;
  let templateId: number;

  before(async () => {
    server = await startTestServer();
    await seedLoginUser(server.service.database.db, 'member', [1]);
    session = await signedIn(server.url);
    member = await signedIn(server.url, 'member', USER_PASSWORD);
    for (const title of ['Beta', 'Alpha', 'Gamma']) {
      const created = await server.post(
        '/api/import-templates',
        templatePayload({ title, code: title.toUpperCase() }),
      );
      assertJson(created, 201);
      if (title === 'Alpha') templateId = created.body.id;
    }
  });
  after(() => server.close());

  it('answers the list with the same body in bearer and in session mode', async () => {
    const viaBearer = await server.get('/api/import-templates');
    const viaSession = await session.get('/api/import-templates');
    assertJson(viaBearer, 200);
    assertJson(viaSession, 200, viaBearer.body);
    assert.equal(viaSession.body.meta.total, 3);
  });

  it('answers a filtered, sorted, paged list with the same body in both modes', async () => {
    const query =
      '/api/import-templates?sort=code&direction=desc&per_page=2&page=1&filters[title][like]=%25a%25';
    const viaBearer = await server.get(query);
    assertJson(viaBearer, 200);
    assert.deepStrictEqual(
      viaBearer.body.data.map((t: { code: string }) => t.code),
      ['GAMMA', 'BETA'],
    );
    assertJson(await session.get(query), 200, viaBearer.body);
  });

  it('answers show with the same body in both modes', async () => {
    const viaBearer = await server.get(`/api/import-templates/${templateId}`);
    assertJson(viaBearer, 200);
    assert.equal(viaBearer.body.title, 'Alpha');
    assertJson(await session.get(`/api/import-templates/${templateId}`), 200, viaBearer.body);
  });

  it('answers an unknown id with the same 404 in both modes', async () => {
    assertJson(await server.get('/api/import-templates/999999'), 404, {
      error: 'Resource not found',
    });
    assertJson(await session.get('/api/import-templates/999999'), 404, {
      error: 'Resource not found',
    });
  });

  it('stamps the session’s user as created_by, as a token’s user is', async () => {
    const created = await member.post(
      '/api/import-templates',
      templatePayload({ title: 'By member' }),
    );
    assertJson(created, 201);
    const memberId = Number((await member.get('/app/session')).body.user.id);
    assert.equal(created.body.created_by, memberId);
    assert.deepStrictEqual(created.body.creator, {
      id: memberId,
      login: 'member',
      name: 'User member',
    });
  });

  it('needs no ability in session mode: a non-admin session reads and writes import templates', async () => {
    assertJson(await member.get('/api/import-templates'), 200);
    assertJson(
      await member.patch(`/api/import-templates/${templateId}`, {
        description: 'edited by a session',
      }),
      200,
    );
  });

  it('answers 403 to a non-admin session on every /api/users action (the resource’s own check)', async () => {
    assertJson(await member.get('/api/users'), 403, UNAUTHORIZED);
    assertJson(await member.get('/api/users/1'), 403, UNAUTHORIZED);
    assertJson(
      await member.post('/api/users', { login: 'x', name: 'X', password: 'secret-password' }),
      403,
      UNAUTHORIZED,
    );
    assertJson(await member.patch('/api/users/1', { name: 'Hijacked' }), 403, UNAUTHORIZED);
    assertJson(await member.delete('/api/users/1'), 403, UNAUTHORIZED);
    assertJson(await member.get('/api/units'), 403, UNAUTHORIZED);
    const admin = await server.service.database.db
      .selectFrom('users')
      .select('name')
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    assert.equal(admin.name, 'Administrator');
  });

  it('lets an admin session list the users', async () => {
    const reply = await session.get('/api/users');
    assertJson(reply, 200);
    assert.deepStrictEqual(
      reply.body.data.map((u: { login: string }) => u.login),
      ['admin', 'member'],
    );
  });

  it('is in bearer mode when an Authorization header is sent, even with a valid session cookie', async () => {
    const reply = await session.get('/api/import-templates', {
      headers: { authorization: 'Bearer not-a-token' },
    });
    assertJson(reply, 401, { error: 'Invalid token.' });
    assert.equal(reply.headers.get('www-authenticate'), 'Bearer');
  });
});
