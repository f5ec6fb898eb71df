// DESIGN.md 3.7/3.8, issue 17: GET /app/resources describes every shipped resource for the admin
// front end (labels, actions the caller may use, list columns, filters, sort, page sizes, form
// fields with their rules, detail rows, related lists), and GET /app/lookups/<resource> lets a
// session user who may list the resource (any, for users and groups: a template's writers pick
// them) pick records by their title columns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serviceRoutes } from '../../src/app/routes.js';
import { assertJson } from '../helpers/http.js';
import { seedGroups } from '../helpers/seed.js';
import { SessionClient } from '../helpers/session-client.js';
import { seedLoginUser, USER_PASSWORD } from '../helpers/session-seed.js';
import { OPERATORS } from '../helpers/template-model.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

type Meta = Record<string, any>;

describe('GET /app/resources and the lookups', () => {
  let server: TestServer;
  let admin: SessionClient;
  let member: SessionClient;
  let resources: Meta[];
  const named = (name: string) => {
    const found = resources.find((r) => r.name === name);
    assert.ok(found, `${name} is described`);
    return found;
  };

  before(async () => {
    server = await startTestServer({}, { anonymous: true });
    const { db } = server.service.database;
    await seedLoginUser(db, 'member', [1]);
    await seedGroups(db, ['Importers', 'Exporters', 'Auditors']);
    admin = await new SessionClient(server.url).signIn();
    member = await new SessionClient(server.url).signIn('member', USER_PASSWORD);
    const reply = await admin.get('/app/resources');
    assert.equal(reply.status, 200);
    resources = reply.body.data;
  });
  after(() => server?.close());

  it('describes every routed resource, in route order, with its path and labels', () => {
    // From the routes, not a list of names: adding a resource does not break this test.
    assert.deepEqual(
      resources.map((r) => [r.name, r.path]),
      serviceRoutes.map((route) => [route.resource.name, route.path]),
    );
    for (const [name, label, singular] of [
      ['import-templates', 'Import templates', 'Import template'],
      ['import-template-logs', 'Import template logs', 'Import template log'],
      ['users', 'Users', 'User'],
      ['companies', 'Companies', 'Company'],
      ['units', 'Units', 'Unit'],
      ['groups', 'Groups', 'Group'],
      ['webhooks', 'Webhooks', 'Webhook'],
    ] as const)
      assert.deepEqual([named(name).label, named(name).singular_label], [label, singular], name);
  });

  it('names the panels a resource adds to its form: the deliveries of a webhook, none elsewhere', () => {
    assert.deepEqual(
      resources.map((r) => [r.name, r.panels]),
      resources.map((r) => [r.name, r.name === 'webhooks' ? ['deliveries'] : []]),
    );
  });

  it('labels the import template fields as DESIGN.md 3.7 names them, with their rules', () => {
    const fields = named('import-templates').fields as Meta[];
    const writable = fields.filter((f) => !f.read_only);
    assert.deepEqual(
      writable.map((f) => [f.name, f.label, f.input, f.required, f.max_length]),
      [
        ['title', 'Title', 'text', true, 200],
        ['code', 'Code', 'text', false, 100],
        ['description', 'Description', 'textarea', false, null],
        ['database_name', 'Database name', 'text', true, 200],
        ['mapping_json', 'Mapping JSON', 'json', true, null],
        ['csv_model_path', 'CSV model path', 'text', false, 500],
        ['import_mode', 'Import mode', 'text', false, 50],
        ['active', 'Active', 'choice', false, null],
        ['created_by', 'Created by', 'reference', false, null],
      ],
    );
    assert.deepEqual(fields.find((f) => f.name === 'active')?.choices, [
      { value: 'Y', label: 'Y' },
      { value: 'N', label: 'N' },
    ]);
    assert.deepEqual(fields.find((f) => f.name === 'created_by')?.reference, {
      resource: 'users',
      lookup: '/app/lookups/users',
    });
    assert.deepEqual(
      fields.filter((f) => f.read_only).map((f) => f.name),
      ['id', 'created_at', 'updated_at'],
    );
  });

  it('describes the list: projection columns with counts, sortable fields, filters and page sizes', () => {
    const { list } = named('import-templates');
    const columns = list.columns as Meta[];
    assert.deepEqual(
      columns.filter((c) => c.sortable).map((c) => c.name),
      ['title', 'code', 'updated_at', 'created_at'],
    );
    for (const count of ['groups_count', 'users_count', 'logs_count'])
      assert.equal(columns.find((c) => c.name === count)?.type, 'integer');
    assert.deepEqual(columns.find((c) => c.name === 'creator')?.display, ['name', 'login']);
    assert.deepEqual(columns.find((c) => c.name === 'created_by')?.reference, {
      resource: 'users',
      lookup: '/app/lookups/users',
    });
    // Shown by default, in this order: the resource's listColumns.
    assert.deepEqual(
      columns.filter((c) => c.visible).map((c) => c.name),
      [
        'title',
        'code',
        'database_name',
        'active',
        'creator',
        'groups_count',
        'users_count',
        'logs_count',
        'updated_at',
      ],
    );
    // Without listColumns: every key but long text, a foreign key whose record is loaded (a
    // unit's company_id beside company) and detail arrays (a user's units and groups).
    const visible = (name: string) =>
      named(name)
        .list.columns.filter((c: Meta) => c.visible)
        .map((c: Meta) => c.name);
    assert.deepEqual(visible('units'), [
      'id',
      'name',
      'connection',
      'active',
      'created_at',
      'updated_at',
      'company',
    ]);
    assert.deepEqual(visible('users'), [
      'id',
      'login',
      'name',
      'email',
      'admin',
      'active',
      'created_at',
      'updated_at',
    ]);
    assert.deepEqual(
      (list.filters as Meta[]).map((f) => [f.name, f.label, f.input, f.default_operator]),
      [
        ['title', 'Title', 'text', 'like'],
        ['code', 'Code', 'text', 'like'],
        ['database_name', 'Database name', 'text', 'like'],
        ['active', 'Active', 'choice', '='],
        ['created_by', 'Created by', 'reference', '='],
      ],
    );
    assert.deepEqual(list.filters[0].operators, OPERATORS);
    assert.deepEqual(list.default_order, { column: 'title', direction: 'asc' });
    assert.equal(list.per_page, 15);
    assert.equal(list.max_per_page, 200);
    assert.deepEqual(list.page_sizes, [10, 15, 25, 50, 100, 200]);
  });

  it('describes the detail relations with their row fields and pickers, and the related logs', () => {
    const template = named('import-templates');
    assert.deepEqual(
      template.details.map((d: Meta) => [
        d.name,
        d.label,
        d.key,
        d.foreign_key,
        d.fields.map((f: Meta) => [f.name, f.label, f.input, f.required, f.reference?.resource]),
      ]),
      [
        [
          'groups',
          'Groups',
          'id',
          'template_id',
          [['group_id', 'Group', 'reference', true, 'groups']],
        ],
        ['users', 'Users', 'id', 'template_id', [['user_id', 'User', 'reference', true, 'users']]],
      ],
    );
    assert.deepEqual(template.related, [
      { resource: 'import-template-logs', label: 'Import template logs', field: 'template_id' },
    ]);
    const users = named('users');
    assert.deepEqual(
      users.details.map((d: Meta) => d.name),
      ['units', 'groups'],
    );
    const password = users.fields.find((f: Meta) => f.name === 'password');
    assert.deepEqual(
      [password.input, password.write_only, password.required, password.required_on_update],
      ['password', true, true, false],
    );
    assert.equal(
      users.fields.find((f: Meta) => f.name === 'password_hash'),
      undefined,
      'a hidden column is never a field',
    );
  });

  it('lists the actions the routes expose and those the caller may use', async () => {
    assert.deepEqual(named('import-template-logs').actions, ['list', 'show', 'create']);
    assert.deepEqual(named('users').allowed, ['list', 'show', 'create', 'update', 'delete']);
    const reply = await member.get('/app/resources');
    assert.equal(reply.status, 200);
    const byName = new Map(reply.body.data.map((r: Meta) => [r.name, r.allowed]));
    assert.deepEqual(byName.get('import-templates'), [
      'list',
      'show',
      'create',
      'update',
      'delete',
    ]);
    for (const admins of ['users', 'companies', 'units', 'groups'])
      assert.deepEqual(byName.get(admins), [], `${admins} is for admins only`);
  });

  it('answers 401 without a session', async () => {
    assertJson(await new SessionClient(server.url).get('/app/resources'), 401, {
      message: 'Unauthenticated.',
    });
    assertJson(await new SessionClient(server.url).get('/app/lookups/groups'), 401, {
      message: 'Unauthenticated.',
    });
  });

  it('lets a non-admin look up groups and users by their title columns', async () => {
    assertJson(await member.get('/app/lookups/groups?search=port'), 200, {
      data: [
        { id: 2, label: 'Exporters' },
        { id: 1, label: 'Importers' },
      ],
    });
    assertJson(await member.get('/app/lookups/users?search=ADMIN'), 200, {
      data: [{ id: 1, label: 'Administrator (admin)' }],
    });
    // By login as well as by name.
    assertJson(await member.get('/app/lookups/users?search=membe'), 200, {
      data: [{ id: 2, label: 'User member (member)' }],
    });
  });

  it('answers a lookup only to a caller who may list the resource: companies and units are the admins’', async () => {
    for (const resource of ['companies', 'units']) {
      assertJson(await member.get(`/app/lookups/${resource}`), 403, {
        message: 'This action is unauthorized.',
      });
      assertJson(await member.get(`/app/lookups/${resource}?ids=1`), 403, {
        message: 'This action is unauthorized.',
      });
      const allowed = await admin.get(`/app/lookups/${resource}?ids=1`);
      assertJson(allowed, 200);
      assert.equal(allowed.body.data.length, 1);
    }
    // A template's users and groups are picked by its writers, admins or not.
    for (const resource of ['users', 'groups', 'import-templates'])
      assertJson(await member.get(`/app/lookups/${resource}`), 200);
  });

  it('labels ids a form already holds, and only existing ones', async () => {
    assertJson(await member.get('/app/lookups/groups?ids=3,1,99,x'), 200, {
      data: [
        { id: 3, label: 'Auditors' },
        { id: 1, label: 'Importers' },
      ],
    });
    assertJson(await member.get('/app/lookups/groups?ids='), 200, { data: [] });
  });

  it('answers a lookup with no search in title order, at most 20 records', async () => {
    const reply = await member.get('/app/lookups/groups');
    assert.deepEqual(
      reply.body.data.map((g: Meta) => g.label),
      ['Auditors', 'Exporters', 'Importers'],
    );
  });

  it('answers 404 for a resource that does not exist', async () => {
    assertJson(await member.get('/app/lookups/nothing'), 404, { error: 'Resource not found' });
  });
});
