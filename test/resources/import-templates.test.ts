// SPEC.md 2.3: the import-template resource as configured (fields and their rules, searchable,
// sortable, with creator, withCount, details, defaultOrder), through the real server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertJson, freshTimestamp } from '../helpers/http.js';
import { seedGroups, seedUsers, templatePayload } from '../helpers/seed.js';
import { creatorOf, insertTemplate, snapshot, type TemplateRecord } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const list = (items: TemplateRecord[]) => ({
  data: items,
  meta: { total: items.length, per_page: 15, current_page: 1, last_page: 1 },
});

describe('SPEC 2.3 import-template configuration', () => {
  let server: TestServer;
  let alpha: TemplateRecord, bravo: TemplateRecord, charlie: TemplateRecord;

  before(async () => {
    server = await startTestServer();
    const db = server.service.database.db;
    const [alice, bob] = (await seedUsers(db, ['alice', 'bob'])) as [number, number];
    const [g1] = (await seedGroups(db, ['g1'])) as [number];
    // Every searchable and sortable column orders the three differently.
    alpha = await insertTemplate(db, {
      title: 'Alpha',
      code: 'C3',
      database_name: 'db1',
      active: 'Y',
      created_by: alice,
      description: 'desc A',
      import_mode: 'm1',
      csv_model_path: '/a.csv',
      created_at: '2024-01-02T00:00:00.000Z',
      updated_at: '2024-01-05T00:00:00.000Z',
      groups: [g1],
      logs: 3,
    });
    bravo = await insertTemplate(db, {
      title: 'Bravo',
      code: 'C1',
      database_name: 'db2',
      active: 'N',
      created_by: bob,
      description: 'desc B',
      import_mode: 'm2',
      csv_model_path: '/b.csv',
      created_at: '2024-01-03T00:00:00.000Z',
      updated_at: '2024-01-04T00:00:00.000Z',
      users: [alice, bob],
    });
    charlie = await insertTemplate(db, {
      title: 'Charlie',
      code: 'C2',
      database_name: 'db1',
      active: 'Y',
      created_by: bob,
      description: 'desc C',
      import_mode: 'm3',
      csv_model_path: '/c.csv',
      created_at: '2024-01-01T00:00:00.000Z',
      updated_at: '2024-01-06T00:00:00.000Z',
    });
  });
  after(() => server.close());

  it('2.3 defaultOrder is title asc', async () => {
    assertJson(await server.get(PATH), 200, list([alpha, bravo, charlie]));
  });

  it('2.3 searchable: title, code, database_name, active and created_by filter the list', async () => {
    const cases: Array<[string, string, TemplateRecord[]]> = [
      ['title', 'Bravo', [bravo]],
      ['code', 'C2', [charlie]],
      ['database_name', 'db1', [alpha, charlie]],
      ['active', 'Y', [alpha, charlie]],
      ['active', 'N', [bravo]],
      ['created_by', String(bravo.created_by), [bravo, charlie]],
    ];
    for (const [column, value, expected] of cases) {
      assertJson(
        await server.get(`${PATH}?filters[${column}][=]=${encodeURIComponent(value)}`),
        200,
        list(expected),
      );
    }
  });

  it('2.3 columns outside searchable (description, import_mode, csv_model_path, mapping_json, id, timestamps) do not filter', async () => {
    for (const [column, value] of [
      ['description', 'desc A'],
      ['import_mode', 'm2'],
      ['csv_model_path', '/c.csv'],
      ['mapping_json', 'x'],
      ['id', String(alpha.id)],
      ['created_at', 'x'],
      ['updated_at', 'x'],
    ]) {
      assertJson(
        await server.get(`${PATH}?filters[${column}][=]=${encodeURIComponent(value!)}`),
        200,
        list([alpha, bravo, charlie]),
      );
    }
  });

  it('2.3 sortable: title, code, created_at and updated_at order the list, both directions', async () => {
    const cases: Array<[string, TemplateRecord[]]> = [
      ['title', [alpha, bravo, charlie]],
      ['code', [bravo, charlie, alpha]],
      ['created_at', [charlie, alpha, bravo]],
      ['updated_at', [bravo, alpha, charlie]],
    ];
    for (const [column, ascending] of cases) {
      assertJson(await server.get(`${PATH}?sort=${column}`), 200, list(ascending));
      assertJson(
        await server.get(`${PATH}?sort=${column}&direction=desc`),
        200,
        list([...ascending].reverse()),
      );
    }
  });

  it('2.3 columns outside sortable (id, database_name, description, active, created_by) keep the default order', async () => {
    for (const column of [
      'id',
      'database_name',
      'description',
      'active',
      'created_by',
      'import_mode',
    ]) {
      assertJson(
        await server.get(`${PATH}?sort=${column}&direction=desc`),
        200,
        list([alpha, bravo, charlie]),
      );
    }
  });

  it('2.3 with creator: the creating user as a single record with id, login and name', async () => {
    const reply = await server.get(`${PATH}/${alpha.id}`);
    assertJson(reply, 200, alpha);
    assert.deepEqual(reply.body.creator, {
      id: alpha.created_by,
      login: 'alice',
      name: 'User alice',
    });
  });

  it('2.3 withCount: groups_count, users_count and logs_count', async () => {
    const reply = await server.get(PATH);
    assertJson(reply, 200, list([alpha, bravo, charlie]));
    const counts = reply.body.data.map((t: TemplateRecord) => [
      t.groups_count,
      t.users_count,
      t.logs_count,
    ]);
    assert.deepEqual(counts, [
      [1, 0, 3],
      [0, 2, 0],
      [0, 0, 0],
    ]);
  });

  it('2.3 details: groups rows {id, template_id, group_id} and users rows {id, template_id, user_id}', async () => {
    assertJson(await server.get(`${PATH}/${alpha.id}`), 200, alpha);
    assert.deepEqual(Object.keys(alpha.groups[0]!).sort(), ['group_id', 'id', 'template_id']);
    assertJson(await server.get(`${PATH}/${bravo.id}`), 200, bravo);
    assert.deepEqual(Object.keys(bravo.users[0]!).sort(), ['id', 'template_id', 'user_id']);
  });
});

describe('SPEC 2.3 import-template fields', () => {
  let server: TestServer;
  let alice: number;
  let g1: number;
  const db = () => server.service.database.db;

  before(async () => {
    server = await startTestServer();
    [alice] = (await seedUsers(db(), ['alice'])) as [number];
    [g1] = (await seedGroups(db(), ['g1'])) as [number];
  });
  after(() => server.close());

  it('2.3 every master field is writable; id is a generated integer; timestamps are ISO-8601 UTC', async () => {
    const since = new Date();
    const payload = templatePayload({ created_by: alice });
    const reply = await server.post(PATH, payload);
    assertJson(reply, 201);
    assert.ok(Number.isInteger(reply.body.id) && reply.body.id > 0);
    assert.match(reply.body.created_at, ISO_UTC);
    const stamp = freshTimestamp(reply.body.created_at, since);
    assertJson(reply, 201, {
      ...payload,
      id: reply.body.id,
      created_at: stamp,
      updated_at: stamp,
      creator: { id: alice, login: 'alice', name: 'User alice' },
      groups: [],
      users: [],
      groups_count: 0,
      users_count: 0,
      logs_count: 0,
    });
  });

  it('2.3 only title, database_name and mapping_json are required; the rest is optional (DESIGN 3.4: created_by defaults to the caller)', async () => {
    const since = new Date();
    const reply = await server.post(PATH, {
      title: 'Minimal',
      database_name: 'erp',
      mapping_json: '[]',
    });
    assertJson(reply, 201);
    const stamp = freshTimestamp(reply.body.created_at, since);
    // The test server's default token belongs to the bootstrap admin, user 1.
    assertJson(reply, 201, {
      id: reply.body.id,
      title: 'Minimal',
      code: null,
      description: null,
      database_name: 'erp',
      mapping_json: '[]',
      csv_model_path: null,
      import_mode: null,
      active: 'Y',
      created_by: 1,
      created_at: stamp,
      updated_at: stamp,
      creator: await creatorOf(db(), 1),
      groups: [],
      users: [],
      groups_count: 0,
      users_count: 0,
      logs_count: 0,
    });
  });

  it('2.3 mapping_json must be a string holding JSON text', async () => {
    const before = await snapshot(db());
    assertJson(await server.post(PATH, templatePayload({ mapping_json: '{"columns": [' })), 422, {
      message: 'The mapping json field must be a valid JSON string.',
      errors: { mapping_json: ['The mapping json field must be a valid JSON string.'] },
    });
    assertJson(await server.post(PATH, templatePayload({ mapping_json: { columns: [] } })), 422, {
      message: 'The mapping json field must be a string.',
      errors: { mapping_json: ['The mapping json field must be a string.'] },
    });
    assert.deepEqual(await snapshot(db()), before);
  });

  it('2.3 active holds Y or N; created_by must be an existing user id', async () => {
    assertJson(
      await server.post(PATH, templatePayload({ active: 'yes', created_by: 999999 })),
      422,
      {
        message: 'The selected active is invalid. (and 1 more error)',
        errors: {
          active: ['The selected active is invalid.'],
          created_by: ['The selected created by is invalid.'],
        },
      },
    );
    assertJson(await server.post(PATH, templatePayload({ created_by: 'alice' })), 422, {
      message: 'The created by field must be an integer.',
      errors: { created_by: ['The created by field must be an integer.'] },
    });
  });

  it('2.3 detail rows name an existing group or user', async () => {
    const before = await snapshot(db());
    assertJson(
      await server.post(
        PATH,
        templatePayload({
          groups: [{ group_id: g1 }, { group_id: 999999 }],
          users: [{ user_id: 999999 }, { user_id: alice }, {}],
        }),
      ),
      422,
      {
        message: 'The selected groups.1.group_id is invalid. (and 2 more errors)',
        errors: {
          'groups.1.group_id': ['The selected groups.1.group_id is invalid.'],
          'users.0.user_id': ['The selected users.0.user_id is invalid.'],
          'users.2.user_id': ['The users.2.user_id field is required.'],
        },
      },
    );
    assertJson(await server.post(PATH, templatePayload({ groups: { group_id: g1 } })), 422, {
      message: 'The groups field must be an array.',
      errors: { groups: ['The groups field must be an array.'] },
    });
    assertJson(await server.post(PATH, templatePayload({ users: ['alice'] })), 422, {
      message: 'The users.0 field must be an object.',
      errors: { 'users.0': ['The users.0 field must be an object.'] },
    });
    assert.deepEqual(await snapshot(db()), before);
  });

  it('2.3 a template with run logs (logs_count) can be deleted; its logs go with it', async () => {
    const logged = await insertTemplate(db(), { title: 'Logged', groups: [g1], logs: 2 });
    assertJson(await server.get(`${PATH}/${logged.id}`), 200, logged);
    assertJson(await server.delete(`${PATH}/${logged.id}`), 200, {
      message: 'Resource deleted successfully',
    });
    const logs = await db()
      .selectFrom('import_template_logs')
      .select('id')
      .where('template_id', '=', logged.id)
      .execute();
    assert.equal(logs.length, 0);
  });
});
