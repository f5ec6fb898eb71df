// SPEC.md 7, bearer 403 re-validation rows (SPEC.md 5.1.2: the token's scope is re-validated on
// every request): the user, unit or tenant is inactive, the unit no longer belongs to the user,
// or the unit has no company while in isolation mode. Bodies are `{error: <reason>}` (DESIGN.md
// 3.6), with no WWW-Authenticate header: the credential itself is valid.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  bearer,
  issue,
  linkUnit,
  seedIdentity,
  seedUnit,
  seedUser,
  startServerOn,
} from '../helpers/bearer.js';
import { assertJson, type Reply } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const READ = ['import-templates.read'];

function assertForbidden(reply: Reply, error: string): void {
  assertJson(reply, 403, { error });
  assert.equal(reply.headers.get('www-authenticate'), null);
}

describe('bearer mode: 403 on re-validation', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({}, { anonymous: true });
  });
  after(() => server.close());
  const list = (token: string) => server.get('/api/import-templates', { headers: bearer(token) });

  it('returns 403 when the token’s user is inactive', async () => {
    const who = await seedIdentity(server, 'inactive-user', { abilities: READ });
    assertJson(await list(who.token), 200);
    await server.service.database.db
      .updateTable('users')
      .set({ active: 'N' })
      .where('id', '=', who.userId)
      .execute();
    assertForbidden(await list(who.token), 'The user is inactive.');
  });

  it('returns 403 when the token’s unit is inactive', async () => {
    const who = await seedIdentity(server, 'inactive-unit', { abilities: READ });
    assertJson(await list(who.token), 200);
    await server.service.database.db
      .updateTable('units')
      .set({ active: 'N' })
      .where('id', '=', who.unitId)
      .execute();
    assertForbidden(await list(who.token), 'The unit is inactive.');
  });

  it('returns 403 when the unit’s company (the tenant) is inactive', async () => {
    const who = await seedIdentity(server, 'inactive-company', { abilities: READ });
    assertJson(await list(who.token), 200);
    await server.service.database.db
      .updateTable('companies')
      .set({ active: 'N' })
      .where('id', '=', who.companyId)
      .execute();
    assertForbidden(await list(who.token), 'The company is inactive.');
  });

  it('returns 403 when the unit no longer belongs to the user', async () => {
    const who = await seedIdentity(server, 'unlinked', { abilities: READ });
    assertJson(await list(who.token), 200);
    await server.service.database.db
      .deleteFrom('user_units')
      .where('user_id', '=', who.userId)
      .where('unit_id', '=', who.unitId)
      .execute();
    assertForbidden(await list(who.token), 'The unit does not belong to the user.');
  });

  it('refuses writes as well as reads on re-validation', async () => {
    const who = await seedIdentity(server, 'inactive-writer', {
      abilities: ['import-templates.read', 'import-templates.write'],
    });
    await server.service.database.db
      .updateTable('users')
      .set({ active: 'N' })
      .where('id', '=', who.userId)
      .execute();
    assertForbidden(
      await server.post('/api/import-templates', { title: 'x' }, { headers: bearer(who.token) }),
      'The user is inactive.',
    );
    assertForbidden(
      await server.delete('/api/import-templates/1', { headers: bearer(who.token) }),
      'The user is inactive.',
    );
  });

  it('re-validates on every request: the token passes again once the user is reactivated', async () => {
    const who = await seedIdentity(server, 'reactivated', { abilities: READ });
    const users = server.service.database.db.updateTable('users').where('id', '=', who.userId);
    await users.set({ active: 'N' }).execute();
    assertForbidden(await list(who.token), 'The user is inactive.');
    await users.set({ active: 'Y' }).execute();
    assertJson(await list(who.token), 200);
  });

  it('checks the scope before the abilities: an inactive user lacking the ability gets the scope refusal', async () => {
    const who = await seedIdentity(server, 'inactive-no-ability', { abilities: [] });
    await server.service.database.db
      .updateTable('users')
      .set({ active: 'N' })
      .where('id', '=', who.userId)
      .execute();
    assertForbidden(await list(who.token), 'The user is inactive.');
  });
});

describe('bearer mode: 403 for a unit without company in isolation mode', () => {
  let server: TestServer;
  let token: string;
  let companyToken: string;
  before(async () => {
    server = await startTestServer({ TENANT_ISOLATION: 'true' }, { anonymous: true });
    const { db } = server.service.database;
    const userId = await seedUser(db, 'loner');
    const unitId = await seedUnit(db, 'Orphan', null);
    await linkUnit(db, userId, unitId);
    await linkUnit(db, userId, 1); // Main, in company Default
    token = (await issue(server, { userId, unitId, abilities: READ })).token;
    companyToken = (await issue(server, { userId, unitId: 1, abilities: READ })).token;
  });
  after(() => server.close());

  it('returns 403 when the token’s unit has no company while TENANT_ISOLATION=true', async () => {
    assertForbidden(
      await server.get('/api/import-templates', { headers: bearer(token) }),
      'The unit has no company.',
    );
  });

  it('accepts the same user’s token for a unit with a company in isolation mode', async () => {
    assertJson(await server.get('/api/import-templates', { headers: bearer(companyToken) }), 200);
  });

  it('accepts the same token over the same database with isolation off', async () => {
    const relaxed = await startServerOn(server.dataDir, {
      DATABASE_URL: server.databaseUrl,
      TENANT_ISOLATION: 'false',
    });
    try {
      assertJson(
        await relaxed.request('GET', '/api/import-templates', { headers: bearer(token) }),
        200,
        {
          data: [],
          meta: { total: 0, per_page: 15, current_page: 1, last_page: 1 },
        },
      );
    } finally {
      await relaxed.close();
    }
  });
});
