// Issue 19, item 3, and DESIGN.md 3.6: with TENANT_ISOLATION=true import templates are
// tenant-bound (stamped with the caller's company, filtered by it, another company's id a 404;
// their detail rows and logs follow the template), a notification's recipients must belong to
// the sender's company (422 otherwise), and a user lookup answers only users of the caller's
// company. Without isolation templates stay shared. The data migration gives existing templates
// their creator's company, so they stay readable.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/auth/passwords.js';
import type { Db } from '../../src/database/db.js';
import { down as dropTemplateCompany } from '../../src/database/migrations/data/0004-template-company.js';
import {
  bearer,
  type Identity,
  linkUnit,
  seedCompany,
  seedIdentity,
  seedUnit,
  seedUser,
  startServerOn,
} from '../helpers/bearer.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { SessionClient } from '../helpers/session-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const NOT_FOUND = { error: 'Resource not found' };

/** A user who can sign in with `password`. */
async function seedMember(db: Db, login: string, password: string): Promise<number> {
  const id = await seedUser(db, login);
  await db
    .updateTable('users')
    .set({ password_hash: await hashPassword(password) })
    .where('id', '=', id)
    .execute();
  return id;
}

describe('TENANT_ISOLATION=true: import templates, notifications and lookups stay in their company', () => {
  let server: TestServer;
  let other: Identity;
  let ownId: number;
  let foreignId: number;

  before(async () => {
    server = await startTestServer({ TENANT_ISOLATION: 'true' });
    other = await seedIdentity(server, 'obob');
    const own = await server.post(PATH, templatePayload({ title: 'Default company' }));
    assertJson(own, 201);
    ownId = own.body.id;
    const foreign = await server.post(PATH, templatePayload({ title: 'Other company' }), {
      headers: bearer(other.token),
    });
    assertJson(foreign, 201);
    foreignId = foreign.body.id;
  });
  after(() => server.close());

  const asOther = () => ({ headers: bearer(other.token) });

  it('stamps a template with the caller company and never answers the column', async () => {
    const rows = await server.service.database.db
      .selectFrom('import_templates')
      .select(['id', 'company_id'])
      .orderBy('id')
      .execute();
    assert.deepEqual(
      rows.map((r) => [Number(r.id), Number(r.company_id)]),
      [
        [ownId, 1],
        [foreignId, other.companyId],
      ],
    );
    const shown = await server.get(`${PATH}/${ownId}`);
    assert.equal('company_id' in shown.body, false);
  });

  it('lists only the caller company templates', async () => {
    const mine = await server.get(PATH);
    assert.deepEqual(
      mine.body.data.map((t: { id: number }) => t.id),
      [ownId],
    );
    const theirs = await server.get(PATH, asOther());
    assert.deepEqual(
      theirs.body.data.map((t: { id: number }) => t.id),
      [foreignId],
    );
  });

  it('answers 404 to show, update and delete of another company template, and changes nothing', async () => {
    assertJson(await server.get(`${PATH}/${ownId}`, asOther()), 404, NOT_FOUND);
    assertJson(
      await server.put(`${PATH}/${ownId}`, { database_name: 'stolen' }, asOther()),
      404,
      NOT_FOUND,
    );
    assertJson(await server.patch(`${PATH}/${ownId}`, { groups: [] }, asOther()), 404, NOT_FOUND);
    assertJson(await server.delete(`${PATH}/${ownId}`, asOther()), 404, NOT_FOUND);
    const still = await server.get(`${PATH}/${ownId}`);
    assertJson(still, 200);
    assert.equal(still.body.database_name, 'erp');
  });

  it('refuses a log for another company template (its logs follow it)', async () => {
    const message = 'The selected template id is invalid.';
    assertJson(
      await server.post(
        '/api/import-template-logs',
        { template_id: ownId, status: 'queued' },
        asOther(),
      ),
      422,
      { message, errors: { template_id: [message] } },
    );
    assertJson(
      await server.post(
        '/api/import-template-logs',
        { template_id: foreignId, status: 'queued' },
        asOther(),
      ),
      201,
    );
  });

  it('refuses a notification to a user of another company with 422, nothing stored', async () => {
    const count = async () =>
      (await server.service.database.db.selectFrom('notifications').select('id').execute()).length;
    const before = await count();
    const refused = {
      message: 'The selected to is invalid.',
      errors: { to: ['The selected to is invalid.'] },
    };
    const note = { title: 'Hello', message: 'm' };
    assertJson(
      await server.post('/api/notifications', { ...note, to: [1] }, asOther()),
      422,
      refused,
    );
    assertJson(
      await server.post('/api/notifications', { ...note, to: [other.userId, 1] }),
      422,
      refused,
    );
    assert.equal(await count(), before);
    assertJson(
      await server.post('/api/notifications', { ...note, to: other.userId }, asOther()),
      201,
    );
  });

  it("refuses a template's created_by naming another company's user with 422, changing nothing", async () => {
    const count = async () =>
      (await server.service.database.db.selectFrom('import_templates').select('id').execute())
        .length;
    const before = await count();
    const refused = {
      message: 'The selected created by is invalid.',
      errors: { created_by: ['The selected created by is invalid.'] },
    };
    assertJson(
      await server.post(PATH, templatePayload({ title: 'Borrowed', created_by: 1 }), asOther()),
      422,
      refused,
    );
    assertJson(
      await server.patch(`${PATH}/${foreignId}`, { created_by: 1 }, asOther()),
      422,
      refused,
    );
    // The admin (company Default) cannot name the other company's user either.
    assertJson(await server.patch(`${PATH}/${ownId}`, { created_by: other.userId }), 422, {
      message: 'The selected created by is invalid.',
      errors: refused.errors,
    });
    assert.equal(await count(), before);
    const stored = await server.get(`${PATH}/${foreignId}`, asOther());
    assert.equal(stored.body.created_by, other.userId);
    assertJson(
      await server.patch(`${PATH}/${foreignId}`, { created_by: other.userId }, asOther()),
      200,
    );
  });

  it("refuses a template's user row naming another company's user with 422, changing nothing", async () => {
    const message = 'The selected users.0.user_id is invalid.';
    assertJson(
      await server.patch(`${PATH}/${foreignId}`, { users: [{ user_id: 1 }] }, asOther()),
      422,
      { message, errors: { 'users.0.user_id': [message] } },
    );
    const rows = await server.service.database.db
      .selectFrom('import_template_users')
      .select('id')
      .where('template_id', '=', foreignId)
      .execute();
    assert.deepEqual(rows, []);
    assertJson(
      await server.patch(`${PATH}/${foreignId}`, { users: [{ user_id: other.userId }] }, asOther()),
      200,
    );
  });

  it("never answers another company's user as a template's creator", async () => {
    const { db } = server.service.database;
    // A template written before isolation, by a user of another company.
    await db
      .updateTable('import_templates')
      .set({ created_by: 1 })
      .where('id', '=', foreignId)
      .execute();
    try {
      const shown = await server.get(`${PATH}/${foreignId}`, asOther());
      assertJson(shown, 200);
      assert.equal(shown.body.creator, null);
      const listed = await server.get(PATH, asOther());
      assert.deepEqual(
        listed.body.data.map((t: { creator: unknown }) => t.creator),
        [null],
      );
      const own = await server.get(`${PATH}/${ownId}`);
      assert.deepEqual(own.body.creator, { id: 1, login: 'admin', name: 'Administrator' });
    } finally {
      await db
        .updateTable('import_templates')
        .set({ created_by: other.userId })
        .where('id', '=', foreignId)
        .execute();
    }
  });

  it("binds every lookup by the caller's company, an admin's too", async () => {
    const admin = await new SessionClient(server.url).signIn('admin');
    const labels = async (path: string) => {
      const reply = await admin.get(path);
      assertJson(reply, 200);
      return reply.body.data.map((item: { label: string }) => item.label);
    };
    assert.deepEqual(await labels('/app/lookups/companies'), ['Default']);
    assert.deepEqual(await labels(`/app/lookups/companies?ids=${other.companyId}`), []);
    assert.deepEqual(await labels(`/app/lookups/units?ids=${other.unitId}`), []);
    assert.equal((await labels('/app/lookups/units')).includes('obob unit'), false);
    assert.deepEqual(await labels(`/app/lookups/users?ids=${other.userId}`), []);
    assert.deepEqual(await labels(`/app/lookups/import-templates?ids=${foreignId}`), []);
    // The admin still administers every company: its own lists are not bound (DESIGN.md 3.4).
    const companies = await admin.get('/api/companies');
    assert.ok(companies.body.data.some((c: { id: number }) => c.id === other.companyId));
  });

  it('lets an admin of one company administer every company (DESIGN.md 3.4): users, companies, units', async () => {
    const foreignAdmin = await seedIdentity(server, 'oadmin', { admin: 'Y' });
    const as = { headers: bearer(foreignAdmin.token) };
    const users = await server.get('/api/users?per_page=200', as);
    assertJson(users, 200);
    assert.ok(users.body.data.some((u: { id: number }) => u.id === 1));
    const companies = await server.get('/api/companies?per_page=200', as);
    assert.ok(companies.body.data.some((c: { id: number }) => c.id === 1));
    assertJson(await server.patch('/api/companies/1', { active: 'Y' }, as), 200);
    assertJson(await server.get('/api/units/1', as), 200);
    // Its templates and lookups stay in its company.
    assertJson(await server.get(`${PATH}/${ownId}`, as), 404, NOT_FOUND);
  });

  it("looks up only users linked to a unit of the caller's company", async () => {
    const { db } = server.service.database;
    // A member of the other company with a password, to sign in.
    const member = await seedMember(db, 'omember', 'member-password-1');
    await linkUnit(db, member, other.unitId);
    const session = await new SessionClient(server.url).signIn('omember', 'member-password-1');
    const found = await session.get('/app/lookups/users');
    assertJson(found, 200);
    assert.deepEqual(
      found.body.data.map((u: { id: number }) => u.id).sort((a: number, b: number) => a - b),
      [other.userId, member].sort((a, b) => a - b),
    );
    assertJson(await session.get('/app/lookups/users?ids=1'), 200, { data: [] });
  });
});

describe('without TENANT_ISOLATION, import templates stay shared', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it("another company's user reads and updates the template", async () => {
    const other = await seedIdentity(server, 'shared');
    const created = await server.post(PATH, templatePayload({ title: 'Shared' }));
    assertJson(created, 201);
    assertJson(
      await server.get(`${PATH}/${created.body.id}`, { headers: bearer(other.token) }),
      200,
    );
    assertJson(
      await server.patch(
        `${PATH}/${created.body.id}`,
        { code: 'S' },
        { headers: bearer(other.token) },
      ),
      200,
    );
  });
});

describe('the template company migration keeps existing templates readable', () => {
  it('gives each existing template its creator company (first unit), else the first company', async () => {
    const server = await startTestServer();
    try {
      const { db } = server.service.database;
      const companyB = await seedCompany(db, 'Legacy B');
      const unitB = await seedUnit(db, 'Legacy unit', companyB);
      const creator = await seedMember(db, 'legacy', 'legacy-password-1');
      await linkUnit(db, creator, unitB);
      // The database as it was before the migration, with templates written then.
      await dropTemplateCompany(db);
      await db
        .deleteFrom('svc_migrations_data')
        .where('name', '=', '0004-template-company')
        .execute();
      const legacy = { database_name: 'erp', mapping_json: '{}', active: 'Y' };
      await db
        .insertInto('import_templates')
        .values([
          { ...legacy, title: 'By legacy', created_by: creator },
          { ...legacy, title: 'By nobody', created_by: null },
        ])
        .execute();
      const dataDir = server.dataDir;
      // A second server on the same database runs the migration again, in isolation mode.
      const env = { DATABASE_URL: server.databaseUrl, TENANT_ISOLATION: 'true' };
      const again = await startServerOn(dataDir, env);
      try {
        const session = await new SessionClient(again.url).signIn('legacy', 'legacy-password-1');
        const theirs = await session.get(PATH);
        assertJson(theirs, 200);
        assert.deepEqual(
          theirs.body.data.map((t: { title: string }) => t.title),
          ['By legacy'],
        );
        const admin = await new SessionClient(again.url).signIn('admin');
        const defaults = await admin.get(PATH);
        assert.deepEqual(
          defaults.body.data.map((t: { title: string }) => t.title),
          ['By nobody'],
        );
      } finally {
        await again.close();
      }
    } finally {
      await server.close();
    }
  });
});
