// SPEC.md 7, bearer 401 row: no Bearer credential, or a token that is invalid, expired or
// revoked, is answered 401 `{error}` with `WWW-Authenticate: Bearer` (DESIGN.md 3.5, 3.6).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { issueToken, TOKEN_PREFIX } from '../../src/auth/tokens/api-token.js';
import { revokeToken } from '../../src/auth/tokens/token-service.js';
import { assertBearer401, bearer, issue } from '../helpers/bearer.js';
import { assertJson } from '../helpers/http.js';
import { insertRow } from '../helpers/rows.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Flips the last character of the checksum, keeping the token's shape. */
function breakChecksum(token: string): string {
  const last = token.slice(-1);
  return token.slice(0, -1) + (last === 'a' ? 'b' : 'a');
}

describe('bearer mode: 401 Unauthenticated', () => {
  let server: TestServer;
  let clock: number | null = null;
  before(async () => {
    server = await startTestServer({}, { anonymous: true, clock: () => clock ?? Date.now() });
  });
  after(() => server.close());
  // Every 401 of a presented credential counts toward the per-IP limit; these tests are about the 401 itself.
  beforeEach(async () => {
    clock = null;
    await server.service.database.db.deleteFrom('auth_failures').execute();
  });

  it('returns 401 with WWW-Authenticate: Bearer when no credential is sent', async () => {
    assertBearer401(await server.get('/api/import-templates'), 'Unauthenticated.');
  });

  it('returns 401 without a credential on every route of a resource, reads and writes alike', async () => {
    const replies = [
      await server.get('/api/import-templates'),
      await server.get('/api/import-templates/1'),
      await server.post('/api/import-templates', { title: 'x' }),
      await server.put('/api/import-templates/1', { title: 'x' }),
      await server.patch('/api/import-templates/1', { title: 'x' }),
      await server.delete('/api/import-templates/1'),
    ];
    for (const reply of replies) assertBearer401(reply, 'Unauthenticated.');
  });

  it('returns 401 when the Authorization header is not a Bearer credential', async () => {
    assertBearer401(
      await server.get('/api/import-templates', {
        headers: { authorization: 'Basic YWRtaW46YWRtaW4=' },
      }),
      'Invalid token.',
    );
  });

  it('returns 401 when the Bearer credential is empty', async () => {
    assertBearer401(
      await server.get('/api/import-templates', { headers: { authorization: 'Bearer ' } }),
      'Invalid token.',
    );
  });

  it('returns 401 for a token with the wrong prefix', async () => {
    const { token } = await issue(server);
    const wrong = `svc_key_${token.slice(TOKEN_PREFIX.length)}`;
    assertBearer401(
      await server.get('/api/import-templates', { headers: bearer(wrong) }),
      'Invalid token.',
    );
  });

  it('returns 401 for a token whose checksum does not match', async () => {
    const { token } = await issue(server);
    assertBearer401(
      await server.get('/api/import-templates', { headers: bearer(breakChecksum(token)) }),
      'Invalid token.',
    );
  });

  it('returns 401 for a truncated token', async () => {
    const { token } = await issue(server);
    assertBearer401(
      await server.get('/api/import-templates', { headers: bearer(token.slice(0, -1)) }),
      'Invalid token.',
    );
  });

  it('returns 401 for a well-formed token that was never issued', async () => {
    assertBearer401(
      await server.get('/api/import-templates', { headers: bearer(issueToken().plain) }),
      'Invalid token.',
    );
  });

  it('refuses a malformed token without a token lookup statement', async () => {
    const { token } = await issue(server);
    const cost = async (headers: Record<string, string>) => {
      const before = server.statements();
      const reply = await server.get('/api/import-templates', { headers });
      assert.equal(reply.status, 401);
      return server.statements() - before;
    };
    await cost(bearer('not-a-token')); // the limiter's first failure inserts its row; later ones update it
    // A malformed token: only the limiter's own statements (its check and the counted failure).
    const limiterOnly = await cost(bearer('not-a-token'));
    assert.equal(
      await cost(bearer(`svc_key_${token.slice(TOKEN_PREFIX.length)}`)),
      limiterOnly,
      'wrong prefix',
    );
    assert.equal(await cost(bearer(breakChecksum(token))), limiterOnly, 'bad checksum');
    assert.equal(await cost({ authorization: 'Bearer ' }), limiterOnly, 'empty');
    // No credential: the limiter's check only, nothing counted (DESIGN.md 3.6).
    assert.ok((await cost({})) < limiterOnly, 'no credential');
    // A well-formed but unknown token costs exactly one more statement: the lookup.
    assert.equal(
      await cost(bearer(issueToken().plain)),
      limiterOnly + 1,
      'unknown well-formed token',
    );
  });

  it('returns 401 for an expired token (expires_at in the past)', async () => {
    const { token } = await issue(server, { expiresAt: new Date(Date.now() - 60_000) });
    assertBearer401(
      await server.get('/api/import-templates', { headers: bearer(token) }),
      'Token expired.',
    );
  });

  it('returns 401 from the moment of expiry, and accepts the token until then', async () => {
    const expiry = Date.now() + 3_600_000;
    const { token } = await issue(server, { expiresAt: new Date(expiry) });
    clock = expiry - 1;
    assertJson(await server.get('/api/import-templates', { headers: bearer(token) }), 200);
    clock = expiry;
    assertBearer401(
      await server.get('/api/import-templates', { headers: bearer(token) }),
      'Token expired.',
    );
  });

  it('returns 401 for a revoked token', async () => {
    const { token, id } = await issue(server);
    assertJson(await server.get('/api/import-templates', { headers: bearer(token) }), 200);
    await revokeToken(server.service.database, id);
    assertBearer401(
      await server.get('/api/import-templates', { headers: bearer(token) }),
      'Token revoked.',
    );
    assertBearer401(
      await server.post('/api/import-templates', { title: 'x' }, { headers: bearer(token) }),
      'Token revoked.',
    );
  });

  it('returns 401 for the token of a deleted user (the token goes with the user)', async () => {
    const { db } = server.service.database;
    const row = await insertRow(db, 'users', {
      login: 'gone',
      name: 'Gone',
      password_hash: 'x',
      admin: 'N',
      active: 'Y',
    });
    await db.insertInto('user_units').values({ user_id: row, unit_id: 1 }).execute();
    const { token } = await issue(server, { userId: row, abilities: ['import-templates.read'] });
    assertJson(await server.get('/api/import-templates', { headers: bearer(token) }), 200);
    await db.deleteFrom('users').where('id', '=', row).execute();
    assertBearer401(
      await server.get('/api/import-templates', { headers: bearer(token) }),
      'Invalid token.',
    );
  });
});
