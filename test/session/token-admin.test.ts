// SPEC.md 5.1.6-7 and issue 4: the API behind the token-issuing admin screen, session mode, admin
// users only. The grantable abilities are those declared on routes; tokens are listed without
// their secret; issuing answers 201 with the plain token once; an undeclared ability or a unit
// not of the user is a 422; revoking takes effect at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { grantableAbilities } from '../../src/app/routes.js';
import { assertJson, type Reply } from '../helpers/http.js';
import { type SessionClient, signedIn } from '../helpers/session-client.js';
import { seedLoginUser, seedUnit, USER_PASSWORD } from '../helpers/session-seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const UNAUTHORIZED = { message: 'This action is unauthorized.' };
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface TokenJson {
  id: number;
  user_id: number;
  unit_id: number;
  name: string;
  abilities: string[];
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  created_at: string | null;
}

function withBearer(token: string): { headers: Record<string, string>; csrf: false } {
  return { headers: { authorization: `Bearer ${token}` }, csrf: false };
}

describe('token admin API (/app/tokens-api)', () => {
  let server: TestServer;
  let admin: SessionClient;
  let member: SessionClient;
  let memberId: number;
  let memberUnit: number;

  before(async () => {
    server = await startTestServer({}, { anonymous: true });
    const { db } = server.service.database;
    memberUnit = await seedUnit(db, 'Member unit');
    memberId = await seedLoginUser(db, 'member', [memberUnit]);
    admin = await signedIn(server.url);
    member = await signedIn(server.url, 'member', USER_PASSWORD);
  });
  after(() => server.close());

  const tokenCount = async () =>
    (await server.service.database.db.selectFrom('api_tokens').select('id').execute()).length;

  async function issue(
    body: Record<string, unknown>,
  ): Promise<{ token: string; data: TokenJson; reply: Reply }> {
    const reply = await admin.post('/app/tokens-api', body);
    assertJson(reply, 201);
    return { token: reply.body.token, data: reply.body.data, reply };
  }

  it('lists the grantable abilities: exactly those declared on routes', async () => {
    const reply = await admin.get('/app/tokens-api/abilities');
    assertJson(reply, 200, { data: grantableAbilities() });
    assert.ok(reply.body.data.includes('import-templates.read'));
  });

  it('issues a token: 201 with the plain token once and the stored record', async () => {
    const expires = '2099-01-01T00:00:00.000Z';
    const { token, data, reply } = await issue({
      user_id: 1,
      unit_id: 1,
      name: 'CI import',
      abilities: ['import-templates.read', 'import-templates.write'],
      expires_at: expires,
    });
    assert.match(token, /^svc_api_[0-9A-Za-z]+$/);
    assert.match(data.created_at ?? '', ISO_UTC);
    assert.deepStrictEqual(reply.body, {
      token,
      data: {
        id: data.id,
        user_id: 1,
        unit_id: 1,
        name: 'CI import',
        abilities: ['import-templates.read', 'import-templates.write'],
        expires_at: expires,
        last_used_at: null,
        revoked_at: null,
        created_at: data.created_at,
      },
    });
    const stored = JSON.stringify(
      await server.service.database.db.selectFrom('api_tokens').selectAll().execute(),
    );
    assert.equal(stored.includes(token), false, 'the plain token is stored');
  });

  it('issues a token that works at once, with exactly its abilities', async () => {
    const { token } = await issue({
      user_id: 1,
      unit_id: 1,
      name: 'reader',
      abilities: ['import-templates.read'],
    });
    assertJson(await admin.get('/api/import-templates', withBearer(token)), 200);
    assertJson(await admin.post('/api/import-templates', { title: 'x' }, withBearer(token)), 403, {
      error: 'Missing ability: import-templates.write',
    });
  });

  it('issues a token for another user in one of their units, scoped to it', async () => {
    const { token, data } = await issue({
      user_id: memberId,
      unit_id: memberUnit,
      name: 'member logs',
      abilities: ['import-template-logs.read'],
    });
    assert.equal(data.user_id, memberId);
    assert.equal(data.unit_id, memberUnit);
    assertJson(await admin.get('/api/import-template-logs', withBearer(token)), 200);
  });

  it('lists the tokens with user, unit, abilities, last use and expiry, never a secret', async () => {
    const { token, data } = await issue({
      user_id: 1,
      unit_id: 1,
      name: 'listed',
      abilities: ['users.read'],
    });
    assertJson(await admin.get('/api/users', withBearer(token)), 200); // sets last_used_at
    const reply = await admin.get('/app/tokens-api');
    assertJson(reply, 200);
    const listed = reply.body.data.find((t: { id: number }) => t.id === data.id);
    assert.match(listed.last_used_at ?? '', ISO_UTC);
    assert.deepStrictEqual(listed, {
      ...data,
      last_used_at: listed.last_used_at,
      user: { id: 1, login: 'admin', name: 'Administrator' },
      unit: { id: 1, name: 'Main' },
    });
    const hashes = await server.service.database.db
      .selectFrom('api_tokens')
      .select('token_hash')
      .execute();
    for (const row of hashes)
      assert.equal(reply.text.includes(String(row.token_hash)), false, 'a token hash is listed');
    assert.equal(reply.text.includes(token), false, 'a plain token is listed');
    for (const item of reply.body.data) {
      assert.deepStrictEqual(
        Object.keys(item).sort(),
        [...Object.keys(data), 'unit', 'user'].sort(),
      );
    }
  });

  it('revokes a token: it fails at once with 401', async () => {
    const { token, data } = await issue({
      user_id: 1,
      unit_id: 1,
      name: 'to revoke',
      abilities: ['import-templates.read'],
    });
    assertJson(await admin.get('/api/import-templates', withBearer(token)), 200);
    const reply = await admin.delete(`/app/tokens-api/${data.id}`);
    assertJson(reply, 200);
    assert.match(reply.body.data.revoked_at ?? '', ISO_UTC);
    assert.deepStrictEqual(reply.body, {
      message: 'Token revoked.',
      data: {
        ...data,
        last_used_at: reply.body.data.last_used_at,
        revoked_at: reply.body.data.revoked_at,
      },
    });
    const refused = await admin.get('/api/import-templates', withBearer(token));
    assertJson(refused, 401, { error: 'Token revoked.' });
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer');
    const listed = (await admin.get('/app/tokens-api')).body.data.find(
      (t: { id: number }) => t.id === data.id,
    );
    assert.equal(listed.revoked_at, reply.body.data.revoked_at);
  });

  it('answers 404 when revoking an unknown token', async () => {
    assertJson(await admin.delete('/app/tokens-api/999999'), 404, { error: 'Resource not found' });
    assertJson(await admin.delete('/app/tokens-api/abc'), 404, { error: 'Resource not found' });
  });

  it('refuses an ability not declared on any route with 422 and stores nothing', async () => {
    const before = await tokenCount();
    const message = 'The ability "import-templates.admin" is not declared on any route.';
    assertJson(
      await admin.post('/app/tokens-api', {
        user_id: 1,
        unit_id: 1,
        name: 'bad',
        abilities: ['import-templates.read', 'import-templates.admin'],
      }),
      422,
      {
        message,
        errors: { 'abilities.1': [message] },
      },
    );
    assert.equal(await tokenCount(), before);
  });

  it('refuses a unit not of the user with 422 and stores nothing', async () => {
    const before = await tokenCount();
    const message = 'The selected unit id is invalid: the unit does not belong to the user.';
    assertJson(
      await admin.post('/app/tokens-api', {
        user_id: memberId,
        unit_id: 1,
        name: 'bad',
        abilities: [],
      }),
      422,
      {
        message,
        errors: { unit_id: [message] },
      },
    );
    assertJson(
      await admin.post('/app/tokens-api', {
        user_id: 1,
        unit_id: memberUnit,
        name: 'bad',
        abilities: [],
      }),
      422,
      {
        message,
        errors: { unit_id: [message] },
      },
    );
    assert.equal(await tokenCount(), before);
  });

  it('refuses an unknown user and a malformed body with 422', async () => {
    assertJson(
      await admin.post('/app/tokens-api', {
        user_id: 999999,
        unit_id: 1,
        name: 'x',
        abilities: [],
      }),
      422,
      {
        message: 'The selected user id is invalid.',
        errors: { user_id: ['The selected user id is invalid.'] },
      },
    );
    const reply = await admin.post('/app/tokens-api', {
      user_id: 'one',
      unit_id: 1,
      abilities: 'all',
      expires_at: 'soon',
    });
    assertJson(reply, 422);
    assert.deepStrictEqual(Object.keys(reply.body.errors).sort(), [
      'abilities',
      'expires_at',
      'name',
      'user_id',
    ]);
  });

  it('refuses an expiry already past with 422 and stores nothing (DESIGN.md 3.6 Bounds)', async () => {
    const before = await tokenCount();
    const message = 'The expires at field must be a date after now.';
    for (const expires_at of [
      '2020-01-01T00:00:00.000Z',
      new Date(Date.now() - 1000).toISOString(),
    ])
      assertJson(
        await admin.post('/app/tokens-api', {
          user_id: 1,
          unit_id: 1,
          name: 'stale',
          abilities: [],
          expires_at,
        }),
        422,
        { message, errors: { expires_at: [message] } },
      );
    assert.equal(await tokenCount(), before);
  });

  it('needs the CSRF token to issue and to revoke', async () => {
    const { data } = await issue({ user_id: 1, unit_id: 1, name: 'csrf', abilities: [] });
    const before = await tokenCount();
    assertJson(
      await admin.post(
        '/app/tokens-api',
        { user_id: 1, unit_id: 1, name: 'forged', abilities: [] },
        { csrf: false },
      ),
      419,
      { message: 'CSRF token mismatch.' },
    );
    assertJson(await admin.delete(`/app/tokens-api/${data.id}`, { csrf: false }), 419, {
      message: 'CSRF token mismatch.',
    });
    assert.equal(await tokenCount(), before);
    const row = await server.service.database.db
      .selectFrom('api_tokens')
      .select('revoked_at')
      .where('id', '=', data.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.revoked_at, null);
  });

  it('answers 403 to a non-admin session on every token admin route', async () => {
    const { data } = await issue({ user_id: 1, unit_id: 1, name: 'kept', abilities: [] });
    const before = await tokenCount();
    assertJson(await member.get('/app/tokens-api/abilities'), 403, UNAUTHORIZED);
    assertJson(await member.get('/app/tokens-api'), 403, UNAUTHORIZED);
    assertJson(
      await member.post('/app/tokens-api', {
        user_id: memberId,
        unit_id: memberUnit,
        name: 'mine',
        abilities: [],
      }),
      403,
      UNAUTHORIZED,
    );
    assertJson(await member.delete(`/app/tokens-api/${data.id}`), 403, UNAUTHORIZED);
    assert.equal(await tokenCount(), before);
    const row = await server.service.database.db
      .selectFrom('api_tokens')
      .select('revoked_at')
      .where('id', '=', data.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.revoked_at, null);
  });

  it('is session mode only: a bearer token of the admin gets the session 401', async () => {
    const { token } = await issue({
      user_id: 1,
      unit_id: 1,
      name: 'bearer',
      abilities: grantableAbilities(),
    });
    const anonymous = admin.clone();
    anonymous.cookies.clear();
    assertJson(await anonymous.get('/app/tokens-api', withBearer(token)), 401, {
      message: 'Unauthenticated.',
    });
  });
});
