// SPEC.md 5.2.1 and DESIGN.md 3.6 ("Which 401"): without a valid session every request is a 401
// before any controller runs. On /api/* a request with no credential at all gets the bearer 401
// (`{error}` and WWW-Authenticate: Bearer); the session-only routes under /app/* answer
// `{message: "Unauthenticated."}`. Authentication runs before CSRF: a write with neither is a 401.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { assertJson, type Reply } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { SESSION_COOKIE, SessionClient, signedIn } from '../helpers/session-client.js';
import { insertTemplate } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

type Call = readonly [string, string, unknown?];

function resourceCalls(id: number): Call[] {
  return [
    ['GET', '/api/import-templates'],
    ['GET', `/api/import-templates/${id}`],
    ['POST', '/api/import-templates', templatePayload({ title: 'Never stored' })],
    ['PUT', `/api/import-templates/${id}`, { title: 'Never stored' }],
    ['PATCH', `/api/import-templates/${id}`, { title: 'Never stored' }],
    ['DELETE', `/api/import-templates/${id}`],
  ];
}

const SESSION_ONLY: Call[] = [
  ['GET', '/app/session'],
  ['POST', '/app/logout'],
  ['POST', '/app/session/unit', { unit_id: 1 }],
  ['GET', '/app/tokens-api/abilities'],
  ['GET', '/app/tokens-api'],
  ['POST', '/app/tokens-api', { user_id: 1, unit_id: 1, name: 'x', abilities: [] }],
  ['DELETE', '/app/tokens-api/1'],
];

function assertBearerStyle401(reply: Reply, label: string): void {
  assertJson(reply, 401, { error: 'Unauthenticated.' });
  assert.equal(reply.headers.get('www-authenticate'), 'Bearer', label);
}

function assertSession401(reply: Reply, label: string): void {
  assertJson(reply, 401, { message: 'Unauthenticated.' });
  assert.equal(reply.headers.get('www-authenticate'), null, label);
}

describe('session mode: 401 without a session', () => {
  let server: TestServer;
  let templateId: number;
  let stored: unknown[];

  before(async () => {
    server = await startTestServer({}, { anonymous: true });
    const { db } = server.service.database;
    templateId = (await insertTemplate(db, { title: 'Existing' })).id;
    stored = await db.selectFrom('import_templates').selectAll().execute();
  });
  after(() => server.close());
  // Neither a missing nor a dead session cookie counts toward the per-IP limit (DESIGN.md 3.6,
  // test/auth/failure-limit.test.ts); cleared anyway, so that these tests are about the 401 only.
  beforeEach(() => server.service.database.db.deleteFrom('auth_failures').execute());

  const send = (client: SessionClient, [method, target, body]: Call) =>
    client.request(method, target, { body, csrf: false });

  it('returns the bearer-style 401 on every import-template action when neither a session nor a credential is sent', async () => {
    const anonymous = new SessionClient(server.url);
    for (const call of resourceCalls(templateId))
      assertBearerStyle401(await send(anonymous, call), call.join(' '));
  });

  it('returns 401 {message} on every session-only route without a session', async () => {
    const anonymous = new SessionClient(server.url);
    for (const call of SESSION_ONLY) assertSession401(await send(anonymous, call), call.join(' '));
  });

  it('returns 401, not 419, for a write with neither a session nor a CSRF token', async () => {
    const anonymous = new SessionClient(server.url);
    assertBearerStyle401(
      await anonymous.post('/api/import-templates', templatePayload(), { csrf: false }),
      'api create',
    );
    assertBearerStyle401(
      await anonymous.delete(`/api/import-templates/${templateId}`, { csrf: false }),
      'api delete',
    );
    assertSession401(
      await anonymous.post('/app/session/unit', { unit_id: 1 }, { csrf: false }),
      'unit switch',
    );
  });

  it('runs no controller on a refused request: nothing is written', async () => {
    const anonymous = new SessionClient(server.url);
    for (const call of resourceCalls(templateId)) await send(anonymous, call);
    assert.deepStrictEqual(
      await server.service.database.db.selectFrom('import_templates').selectAll().execute(),
      stored,
    );
  });

  it('returns 401 for a session cookie whose signature does not match', async () => {
    const client = await signedIn(server.url);
    const [id, signature = ''] = decodeURIComponent(client.cookie(SESSION_COOKIE) ?? '').split('.');
    client.cookies.set(SESSION_COOKIE, encodeURIComponent(`${id}.${signature.slice(0, -2)}xx`));
    assertBearerStyle401(await client.get('/api/import-templates'), 'api list');
    assertSession401(await client.get('/app/session'), 'session');
  });

  it('returns 401 for an unsigned session cookie holding a real session id', async () => {
    const client = await signedIn(server.url);
    client.cookies.set(SESSION_COOKIE, client.sessionId());
    assertBearerStyle401(await client.get('/api/import-templates'), 'api list');
    assertSession401(await client.get('/app/session'), 'session');
  });

  it('returns 401 for a validly signed cookie whose session is gone from the store', async () => {
    const client = await signedIn(server.url);
    await server.service.database.db.deleteFrom('sessions').execute();
    for (const call of resourceCalls(templateId))
      assertBearerStyle401(await send(client, call), call.join(' '));
    assertSession401(await client.get('/app/session'), 'session');
    assertSession401(await client.post('/app/logout'), 'logout with the old token');
  });
});
