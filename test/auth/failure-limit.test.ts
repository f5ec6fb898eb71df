// SPEC.md 5.1.8 and 7 (429 row), DESIGN.md 3.5/3.6: once one IP has 20 failed bearer
// authentications within 600 s, every further bearer request from it, valid token or not, is
// answered 429 `{error: "Too many requests. Try again later."}` with `Retry-After: 600`, until
// 600 s after its first counted failure. Other IPs are unaffected; a 403 is not a failure; a
// success does not reset the count. Each test has its own server, so its own counters.
import { afterEach, describe, it } from 'node:test';
import { revokeToken } from '../../src/auth/tokens/token-service.js';
import { issueToken } from '../../src/auth/tokens/api-token.js';
import { assertJson, type Reply } from '../helpers/http.js';
import { assert429, assertBearer401, bearer, issue, requestFrom } from '../helpers/bearer.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const LIST = '/api/import-templates';
const WINDOW_MS = 600_000;

describe('bearer mode: per-IP failure limit', () => {
  let server: TestServer | null = null;
  let now = Date.parse('2030-01-01T00:00:00.000Z');
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  /** A server whose clock is `now`, and the admin token it issued. */
  async function start(): Promise<{ server: TestServer; token: string }> {
    now = Date.parse('2030-01-01T00:00:00.000Z');
    server = await startTestServer({}, { anonymous: true, clock: () => now });
    const { token } = await issue(server);
    return { server, token };
  }

  async function fail(s: TestServer, times: number): Promise<void> {
    for (let i = 0; i < times; i++) assertBearer401(await s.get(LIST), 'Unauthenticated.');
  }

  it('returns 429 with Retry-After: 600 after 20 failures from one IP, even with a valid token', async () => {
    const { server: s, token } = await start();
    // Every kind of bearer 401 counts: no credential, malformed, unknown, expired, revoked.
    const expired = await issue(s, { expiresAt: new Date(now - 1000) });
    const revoked = await issue(s);
    await revokeToken(s.service.database, revoked.id);
    const failures: Array<[Record<string, string>, string]> = [
      [{}, 'Unauthenticated.'],
      [bearer('svc_api_short'), 'Invalid token.'],
      [bearer(issueToken().plain), 'Invalid token.'],
      [bearer(expired.token), 'Token expired.'],
      [bearer(revoked.token), 'Token revoked.'],
    ];
    for (let i = 0; i < 20; i++) {
      const [headers, error] = failures[i % failures.length] ?? [{}, 'Unauthenticated.'];
      assertBearer401(await s.get(LIST, { headers }), error);
    }
    assert429(await s.get(LIST, { headers: bearer(token) }));
    assert429(await s.post(LIST, { title: 'x' }, { headers: bearer(token) }));
    assert429(await s.get(LIST));
  });

  it('does not block after 19 failures, and a success does not reset the count', async () => {
    const { server: s, token } = await start();
    await fail(s, 19);
    assertJson(await s.get(LIST, { headers: bearer(token) }), 200);
    await fail(s, 1);
    assert429(await s.get(LIST, { headers: bearer(token) }));
  });

  it('keeps answering another client IP (127.0.0.2) while one IP is blocked', async () => {
    const { server: s, token } = await start();
    await fail(s, 20);
    assert429(await s.get(LIST, { headers: bearer(token) }));
    const other: Reply = await requestFrom('127.0.0.2', s.url, 'GET', LIST, bearer(token));
    assertJson(other, 200);
    // The other IP's own failures are its own 401s, not the blocked IP's 429.
    assertBearer401(await requestFrom('127.0.0.2', s.url, 'GET', LIST), 'Unauthenticated.');
  });

  it('ignores X-Forwarded-For without TRUST_PROXY: a blocked client cannot claim another IP', async () => {
    const { server: s, token } = await start();
    await fail(s, 20);
    assert429(await s.get(LIST, { headers: { ...bearer(token), 'x-forwarded-for': '203.0.113.7' } }));
  });

  it('ends the block 600 s after the first counted failure', async () => {
    const { server: s, token } = await start();
    const first = now;
    await fail(s, 1);
    now = first + 100_000;
    await fail(s, 19);
    assert429(await s.get(LIST, { headers: bearer(token) }));
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
    await fail(s, 1);
    assertJson(await s.get(LIST, { headers: bearer(token) }), 200);
    await fail(s, 18);
    assertJson(await s.get(LIST, { headers: bearer(token) }), 200);
    await fail(s, 1);
    assert429(await s.get(LIST, { headers: bearer(token) }));
  });

  it('does not count a 403 as a failure', async () => {
    const { server: s, token } = await start();
    const readOnly = await issue(s, { abilities: ['import-templates.read'] });
    await fail(s, 19);
    for (let i = 0; i < 5; i++) {
      assertJson(await s.post(LIST, { title: 'x' }, { headers: bearer(readOnly.token) }), 403, { error: 'Missing ability: import-templates.write' });
    }
    await s.service.database.db.updateTable('users').set({ active: 'N' }).where('id', '=', 1).execute();
    assertJson(await s.get(LIST, { headers: bearer(token) }), 403, { error: 'The user is inactive.' });
    await s.service.database.db.updateTable('users').set({ active: 'Y' }).where('id', '=', 1).execute();
    assertJson(await s.get(LIST, { headers: bearer(token) }), 200);
    await fail(s, 1);
    assert429(await s.get(LIST, { headers: bearer(token) }));
  });
});
