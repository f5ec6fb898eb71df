// SPEC.md 5.2.2, DESIGN.md 3.5: in session mode every POST, PUT, PATCH and DELETE needs the
// session's CSRF token in X-CSRF-TOKEN (or X-XSRF-TOKEN echoing the readable XSRF-TOKEN cookie),
// else 419 `{message: "CSRF token mismatch."}` and nothing runs. Reads need no token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertJson, type Reply } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { type SessionClient, signedIn, XSRF_COOKIE } from '../helpers/session-client.js';
import { snapshot } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const MISMATCH = { message: 'CSRF token mismatch.' };

type Write = readonly [method: string, target: string, body?: unknown];

/** Every write verb of the import-template resource, on template `id`. */
function writes(id: number): Write[] {
  return [
    ['POST', '/api/import-templates', templatePayload({ title: 'Forged' })],
    ['PUT', `/api/import-templates/${id}`, { title: 'Forged' }],
    ['PATCH', `/api/import-templates/${id}`, { title: 'Forged' }],
    ['DELETE', `/api/import-templates/${id}`],
  ];
}

function assert419(reply: Reply, label: string): void {
  assert.equal(
    reply.status,
    419,
    `${label}: status ${reply.status}, body ${reply.text.slice(0, 300)}`,
  );
  assertJson(reply, 419, MISMATCH);
}

describe('session mode: CSRF', () => {
  let server: TestServer;
  let client: SessionClient;
  let templateId: number;

  before(async () => {
    server = await startTestServer({}, { anonymous: true });
    client = await signedIn(server.url);
    const created = await client.post(
      '/api/import-templates',
      templatePayload({ title: 'Target' }),
    );
    assertJson(created, 201);
    templateId = created.body.id;
  });
  after(() => server.close());

  /** Sends every write with `csrf` and asserts each is a 419 and that nothing changed. */
  async function refusesEveryWrite(
    from: SessionClient,
    headers: Record<string, string>,
    csrf: string | false,
  ): Promise<void> {
    const before = await snapshot(server.service.database.db);
    for (const [method, target, body] of writes(templateId)) {
      assert419(await from.request(method, target, { body, headers, csrf }), `${method} ${target}`);
    }
    assert.deepStrictEqual(await snapshot(server.service.database.db), before);
  }

  it('returns 419 on every write verb without a token', async () => {
    await refusesEveryWrite(client, {}, false);
  });

  it('returns 419 on every write verb with an empty or malformed token', async () => {
    await refusesEveryWrite(client, {}, '');
    await refusesEveryWrite(client, {}, 'not-a-csrf-token');
  });

  it('returns 419 on every write verb with another session’s token', async () => {
    const other = await signedIn(server.url);
    assert.notEqual(other.csrfToken, client.csrfToken);
    await refusesEveryWrite(client, {}, other.csrfToken ?? '');
  });

  it('returns 419 on every write verb with a stale token after logout and a new login', async () => {
    const session = await signedIn(server.url);
    const stale = session.csrfToken ?? '';
    assertJson(await session.post('/app/logout'), 200);
    await session.signIn();
    assert.notEqual(session.csrfToken, stale);
    await refusesEveryWrite(session, {}, stale);
    await refusesEveryWrite(session, { 'x-xsrf-token': stale }, false);
    // The new login's own token works.
    assertJson(
      await session.patch(`/api/import-templates/${templateId}`, { description: 'fresh token' }),
      200,
    );
  });

  it('returns 419 on the session routes’ own writes too, and the session stays', async () => {
    assert419(
      await client.post('/app/session/unit', { unit_id: 1 }, { csrf: false }),
      'unit switch',
    );
    assert419(await client.post('/app/logout', undefined, { csrf: false }), 'logout');
    assertJson(await client.get('/app/session'), 200);
  });

  it('accepts X-XSRF-TOKEN echoing the XSRF-TOKEN cookie on every write verb', async () => {
    const session = await signedIn(server.url);
    const echo = { 'x-xsrf-token': decodeURIComponent(session.cookie(XSRF_COOKIE) ?? '') };
    const created = await session.post(
      '/api/import-templates',
      templatePayload({ title: 'Via XSRF' }),
      { headers: echo, csrf: false },
    );
    assertJson(created, 201);
    const id: number = created.body.id;
    assertJson(
      await session.put(
        `/api/import-templates/${id}`,
        { code: 'PUT' },
        { headers: echo, csrf: false },
      ),
      200,
    );
    assertJson(
      await session.patch(
        `/api/import-templates/${id}`,
        { code: 'PATCH' },
        { headers: echo, csrf: false },
      ),
      200,
    );
    assertJson(
      await session.delete(`/api/import-templates/${id}`, { headers: echo, csrf: false }),
      200,
    );
  });

  it('returns 419 for an X-XSRF-TOKEN that does not echo this session’s cookie', async () => {
    const other = await signedIn(server.url);
    await refusesEveryWrite(
      client,
      { 'x-xsrf-token': decodeURIComponent(other.cookie(XSRF_COOKIE) ?? '') },
      false,
    );
  });

  it('accepts the token of a later GET /app/session as well as the login’s', async () => {
    const session = await signedIn(server.url);
    const state = await session.get('/app/session');
    assertJson(state, 200);
    const later: string = state.body.csrf_token;
    assert.equal(typeof later, 'string');
    assertJson(
      await session.patch(
        `/api/import-templates/${templateId}`,
        { code: 'LATER' },
        { csrf: later },
      ),
      200,
    );
    assertJson(await session.patch(`/api/import-templates/${templateId}`, { code: 'LOGIN' }), 200);
  });

  it('needs no token on reads', async () => {
    assertJson(await client.get('/api/import-templates', { csrf: false }), 200);
    assertJson(await client.get(`/api/import-templates/${templateId}`, { csrf: false }), 200);
    assertJson(await client.get('/app/session', { csrf: false }), 200);
    assertJson(await client.get('/app/tokens-api/abilities', { csrf: false }), 200);
  });
});
