// Issue 22 and SPEC.md 5.1.2 (a token's scope is re-validated on every request): on PostgreSQL
// a list's or a show's own statement carries the bearer token's check, on the token's state the
// last full check saw, and a column of that statement says whether that state still holds
// (auth/bearer-guard.ts carryBearerCheck, database/riding-check.ts). These tests change what
// the check reads from another connection, as another instance would, right after carried
// reads, and expect each change to count at once. They hold on every engine; the check is
// carried (no statement of its own) on PostgreSQL and MariaDB/MySQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { revokeToken } from '../../src/auth/tokens/token-service.js';
import { loadConfig } from '../../src/config/config.js';
import { connectDatabase } from '../../src/database/connect.js';
import type { Database } from '../../src/database/database.js';
import {
  assert429,
  assertBearer401,
  bearer,
  issue,
  requestFrom,
  seedIdentity,
} from '../helpers/bearer.js';
import { testEngine } from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const READ = ['import-templates.read'];
const carried = testEngine === 'postgres' || testEngine === 'mysql';
/**
 * A repeated list's and show's statements, the check carried. PostgreSQL: one each (the page
 * carries its total). MariaDB/MySQL: the total and the page; the record.
 */
const READS = testEngine === 'postgres' ? { list: 1, show: 1 } : { list: 2, show: 1 };

describe('the bearer check carried by the read’s own statement', () => {
  let server: TestServer;
  let elsewhere: Database;
  let templateId: number;
  let now = Date.now();

  before(async () => {
    server = await startTestServer({ TENANT_ISOLATION: 'true' }, { clock: () => now });
    elsewhere = connectDatabase(server.databaseUrl, loadConfig({ DATA_DIR: server.dataDir }));
    const created = await server.post(PATH, templatePayload({ title: 'Main company' }));
    assertJson(created, 201);
    templateId = created.body.id;
  });
  after(async () => {
    await elsewhere?.close();
    await server?.close();
  });

  /** Statements run by `request`. */
  const counted = async (request: () => Promise<unknown>) =>
    (await server.counted(request)).statements;

  /** A list and a show by `token`, both 200: the token's state is known to the process. */
  async function readWith(token: string, id = templateId): Promise<void> {
    assertJson(await server.get(PATH, { headers: bearer(token) }), 200);
    const shown = await server.get(`${PATH}/${id}`, { headers: bearer(token) });
    assert.ok(shown.status === 200 || shown.status === 404, `status ${shown.status}`);
  }

  it('runs a repeated list and show with no statement of their own for the check', {
    skip: carried ? false : 'the check is carried on PostgreSQL and MariaDB/MySQL only',
  }, async () => {
    const admin = await issue(server);
    const headers = bearer(admin.token);
    const first = await counted(() => server.get(PATH, { headers }));
    const list = await counted(() => server.get(PATH, { headers }));
    const show = await counted(() => server.get(`${PATH}/${templateId}`, { headers }));
    assert.equal(first, READS.list + 2, 'a first list: the token check and its last use besides');
    assert.equal(list, READS.list, 'list: the page carries the token check');
    assert.equal(show, READS.show, 'show: the record carries the token check');
  });

  it('refuses a token revoked by another connection after carried reads (401 Token revoked.)', async () => {
    const who = await seedIdentity(server, 'carried-revoked', { abilities: READ });
    await readWith(who.token);
    await readWith(who.token);
    await revokeToken(elsewhere, who.tokenId);
    assertBearer401(await server.get(PATH, { headers: bearer(who.token) }), 'Token revoked.');
  });

  it('answers a revoked token’s show of a missing id with the 401, not the 404', async () => {
    const who = await seedIdentity(server, 'carried-missing', { abilities: READ });
    await readWith(who.token);
    await readWith(who.token);
    await revokeToken(elsewhere, who.tokenId);
    assertBearer401(
      await server.get(`${PATH}/99999999`, { headers: bearer(who.token) }),
      'Token revoked.',
    );
  });

  it('refuses a token whose ability another connection withdrew (403 Missing ability)', async () => {
    const who = await seedIdentity(server, 'carried-ability', { abilities: READ });
    await readWith(who.token);
    await readWith(who.token);
    await elsewhere.db
      .updateTable('api_tokens')
      .set({ abilities: JSON.stringify(['import-templates.write']) })
      .where('id', '=', who.tokenId)
      .execute();
    assertJson(await server.get(`${PATH}/${templateId}`, { headers: bearer(who.token) }), 403, {
      error: 'Missing ability: import-templates.read',
    });
  });

  it('refuses a token whose unit another connection deactivated (403)', async () => {
    const who = await seedIdentity(server, 'carried-unit', { abilities: READ });
    await readWith(who.token);
    await readWith(who.token);
    await elsewhere.db
      .updateTable('units')
      .set({ active: 'N' })
      .where('id', '=', who.unitId)
      .execute();
    assertJson(await server.get(PATH, { headers: bearer(who.token) }), 403, {
      error: 'The unit is inactive.',
    });
  });

  it('refuses a token that expired since its last carried read, by the clock alone (401 Token expired.)', async () => {
    const { token } = await issue(server, { abilities: READ, expiresAt: new Date(now + 20_000) });
    await readWith(token);
    await readWith(token);
    now += 30_000;
    try {
      assertBearer401(await server.get(PATH, { headers: bearer(token) }), 'Token expired.');
    } finally {
      now = Date.now();
    }
  });

  it('answers 429 to a carried token once its IP reached the failure limit', async () => {
    const who = await seedIdentity(server, 'carried-blocked', { abilities: READ });
    const from = (headers: Record<string, string>) =>
      requestFrom('127.0.0.7', server.url, 'GET', PATH, headers);
    assertJson(await from(bearer(who.token)), 200);
    assertJson(await from(bearer(who.token)), 200);
    for (let i = 0; i < 20; i++) await from(bearer('1|not-a-valid-token-at-all'));
    assert429(await from(bearer(who.token)));
  });

  it('reads the company the token’s unit was moved to by another connection, not the one it was in', async () => {
    const who = await seedIdentity(server, 'carried-moved', { abilities: READ });
    const own = await server.post(PATH, templatePayload({ title: 'Moved company' }), {
      headers: bearer((await issue(server, { userId: who.userId, unitId: who.unitId })).token),
    });
    assertJson(own, 201);
    const titles = async () => {
      const reply = await server.get(PATH, { headers: bearer(who.token) });
      assertJson(reply, 200);
      return (reply.body.data as Array<{ title: string }>).map((t) => t.title);
    };
    assert.deepEqual(await titles(), ['Moved company']);
    assert.deepEqual(await titles(), ['Moved company']);
    // The unit joins the first company (isolation filters by the unit's company).
    await elsewhere.db
      .updateTable('units')
      .set({ company_id: 1 })
      .where('id', '=', who.unitId)
      .execute();
    const after = await titles();
    assert.ok(after.includes('Main company'), `after the move: ${after.join(', ')}`);
    assert.ok(!after.includes('Moved company'), `after the move: ${after.join(', ')}`);
  });

  it('keeps carrying one token’s check when another token of the same user is revoked', async () => {
    // Two tokens of the admin in the first company.
    const who = await issue(server, { abilities: READ });
    const other = await issue(server, { abilities: READ });
    await readWith(who.token);
    await readWith(other.token);
    await readWith(who.token);
    await revokeToken(elsewhere, other.id);
    let status = 0;
    const statements = await counted(async () => {
      status = (await server.get(PATH, { headers: bearer(who.token) })).status;
    });
    assert.equal(status, 200);
    // Each token is known on its own: the other's revocation leaves this one's check carried.
    if (carried) assert.equal(statements, READS.list);
    // After it: a refused token counts a failure for the IP, which moves every token's state.
    assertBearer401(await server.get(PATH, { headers: bearer(other.token) }), 'Token revoked.');
  });
});

describe('the bearer check carried by a write’s reload, settled before its commit', () => {
  const WRITE = ['import-templates.read', 'import-templates.write'];
  let server: TestServer;
  let elsewhere: Database;

  before(async () => {
    server = await startTestServer({ TENANT_ISOLATION: 'true' });
    elsewhere = connectDatabase(server.databaseUrl, loadConfig({ DATA_DIR: server.dataDir }));
  });
  after(async () => {
    await elsewhere?.close();
    await server?.close();
  });

  /** Stored templates titled `title`, read by another connection. */
  const stored = (title: string) =>
    elsewhere.db
      .selectFrom('import_templates')
      .select(['id', 'company_id', 'description'])
      .where('title', '=', title)
      .execute();

  /** Two creates by `token`, both 201: the token's state is known to the process. */
  async function writeWith(token: string, title: string): Promise<number> {
    let id = 0;
    for (let i = 0; i < 2; i++) {
      const created = await server.post(PATH, templatePayload({ title }), {
        headers: bearer(token),
      });
      assertJson(created, 201);
      id = created.body.id;
    }
    return id;
  }

  it('runs no statement of its own for a repeated create’s or update’s token check', {
    skip: carried ? false : 'the check is carried on PostgreSQL and MariaDB/MySQL only',
  }, async () => {
    const { token } = await issue(server, { abilities: WRITE });
    const headers = { headers: bearer(token) };
    const statements = async (request: () => Promise<unknown>) =>
      (await server.counted(request)).statements;
    const first = await statements(() => server.post(PATH, templatePayload(), headers));
    const again = await statements(() => server.post(PATH, templatePayload(), headers));
    assert.equal(again, first - 2, 'the first: the token check and its last use besides');
    const id = (await stored('Customers'))[0]?.id;
    const writer = { headers: bearer((await issue(server, { abilities: WRITE })).token) };
    const patch = (description: string) =>
      statements(() => server.patch(`${PATH}/${id}`, { description }, writer));
    const firstPatch = await patch('first');
    assert.equal(await patch('again'), firstPatch - 2, 'an update carries the check likewise');
  });

  it('commits nothing for a token revoked by another connection after carried writes (401)', async () => {
    const who = await seedIdentity(server, 'write-revoked', { abilities: WRITE });
    const id = await writeWith(who.token, 'Revoked writer');
    await revokeToken(elsewhere, who.tokenId);
    const created = await server.post(PATH, templatePayload({ title: 'Revoked writer' }), {
      headers: bearer(who.token),
    });
    assertBearer401(created, 'Token revoked.');
    assert.equal((await stored('Revoked writer')).length, 2, 'no third template');
    const updated = await server.patch(
      `${PATH}/${id}`,
      { description: 'changed after revocation' },
      { headers: bearer(who.token) },
    );
    assertBearer401(updated, 'Token revoked.');
    const [row] = (await stored('Revoked writer')).filter((t) => t.id === id);
    assert.equal(row?.description, 'Customer import', 'the update rolled back');
  });

  it('commits nothing for a token whose write ability another connection withdrew (403)', async () => {
    const who = await seedIdentity(server, 'write-ability', { abilities: WRITE });
    await writeWith(who.token, 'Ability writer');
    await elsewhere.db
      .updateTable('api_tokens')
      .set({ abilities: JSON.stringify(['import-templates.read']) })
      .where('id', '=', who.tokenId)
      .execute();
    const created = await server.post(PATH, templatePayload({ title: 'Ability writer' }), {
      headers: bearer(who.token),
    });
    assertJson(created, 403, { error: 'Missing ability: import-templates.write' });
    assert.equal((await stored('Ability writer')).length, 2, 'no third template');
  });

  it('stamps a create with the company the token’s unit was moved to by another connection', async () => {
    const who = await seedIdentity(server, 'write-moved', { abilities: WRITE });
    await writeWith(who.token, 'Moved writer');
    await elsewhere.db
      .updateTable('units')
      .set({ company_id: 1 })
      .where('id', '=', who.unitId)
      .execute();
    const created = await server.post(PATH, templatePayload({ title: 'Moved writer' }), {
      headers: bearer(who.token),
    });
    assertJson(created, 201);
    const companies = (await stored('Moved writer')).map((t) => Number(t.company_id));
    assert.deepEqual(companies.sort(), [1, who.companyId, who.companyId].sort());
  });
});

describe('a streamed list read on a carried check that does not stand', () => {
  let server: TestServer;
  let elsewhere: Database;

  before(async () => {
    // Every list of these templates is streamed, and charged to the answers' memory budget.
    server = await startTestServer({ STREAM_ANSWERS_ABOVE: '1000' });
    elsewhere = connectDatabase(server.databaseUrl, loadConfig({ DATA_DIR: server.dataDir }));
    for (let i = 0; i < 3; i++)
      assertJson(await server.post(PATH, templatePayload({ description: 'x'.repeat(2000) })), 201);
  });
  after(async () => {
    await elsewhere?.close();
    await server?.close();
  });

  it('gives its share of the answers’ memory budget back when the token turns out revoked', async () => {
    const who = await seedIdentity(server, 'carried-streamed', { abilities: READ });
    assertJson(await server.get(PATH, { headers: bearer(who.token) }), 200);
    assertJson(await server.get(PATH, { headers: bearer(who.token) }), 200);
    await revokeToken(elsewhere, who.tokenId);
    assertBearer401(await server.get(PATH, { headers: bearer(who.token) }), 'Token revoked.');
    assert.equal(server.service.app.answerBudget.charged, 0);
  });
});
