// Issue 17 / DESIGN.md 3.8: GET /api/openapi.json is a valid OpenAPI 3.1 document, served
// without authentication, that describes exactly the routes the server registers; a resource
// added in a few lines (here a fixture defined only in this test) appears in the document and in
// GET /app/resources with its fields and rules, with no other edit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { serviceRoutes } from '../../src/app/routes.js';
import type { Database } from '../../src/database/database.js';
import { columnTypes } from '../../src/database/migrations/column-types.js';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import type { ResourceRoute } from '../../src/engine/routes.js';
import { registeredRoutes } from '../../src/http/route-catalog.js';
import { defineEntity } from '../../src/model/entity.js';
import { hasMany } from '../../src/model/relations/relation.js';
import { driverEnv } from '../helpers/rest-driver-client.js';
import { SessionClient } from '../helpers/session-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const fxTag = defineEntity({
  name: 'FxDescribedTag',
  table: 'fx_described_tags',
  columns: ['id', 'gadget_id', 'group_id'],
  casts: { id: 'integer', gadget_id: 'integer', group_id: 'integer' },
  fillable: ['group_id'],
  rules: () => ({ group_id: ['required', 'integer', 'exists:groups,id'] }),
});

const fxGadget = defineEntity({
  name: 'FxDescribedGadget',
  table: 'fx_described_gadgets',
  columns: ['id', 'label', 'colour', 'weight', 'notes', 'secret', 'created_at', 'updated_at'],
  casts: { id: 'integer', weight: 'integer', created_at: 'datetime', updated_at: 'datetime' },
  fillable: ['label', 'colour', 'weight', 'notes'],
  hidden: ['secret'],
  labels: { colour: 'Paint colour' },
  titleColumns: ['label'],
  relations: { tags: hasMany(() => fxTag, 'gadget_id') },
  rules: () => ({
    label: ['required', 'string', 'max:40'],
    colour: ['nullable', 'in:red,green,blue'],
    weight: ['nullable', 'integer', 'min:1', 'max:500'],
    notes: ['nullable', 'string'],
  }),
});

const fxRoute: ResourceRoute = {
  path: '/api/fx-gadgets',
  parameter: 'fx_gadget',
  resource: defineResource({
    model: fxGadget,
    searchable: ['label', 'colour', 'weight'],
    sortable: ['label', 'weight'],
    details: ['tags'],
    withCount: ['tags'],
    defaultOrder: 'label asc',
    indexFields: ['label', 'colour', 'tags_count'],
  }),
  only: ['list', 'show', 'create', 'update'],
  middleware: { read: ['svc.api:fx-gadgets.read'], write: ['svc.api:fx-gadgets.write'] },
};

/** The fixture's tables: the service checks a resource against them before it serves. */
async function fixtureTables({ db }: Database): Promise<void> {
  const t = columnTypes(db);
  await t
    .id(db.schema.createTable('fx_described_gadgets'))
    .addColumn('label', 'varchar(40)', (c) => c.notNull())
    .addColumn('colour', 'varchar(10)')
    .addColumn('weight', 'integer')
    .addColumn('notes', 'text')
    .addColumn('secret', 'varchar(100)')
    .addColumn('created_at', t.timestamp)
    .addColumn('updated_at', t.timestamp)
    .execute();
  await t
    .id(db.schema.createTable('fx_described_tags'))
    .addColumn('gadget_id', t.bigint, (c) => c.notNull().references('fx_described_gadgets.id'))
    .addColumn('group_id', t.bigint, (c) => c.notNull())
    .execute();
}

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
};

describe('the OpenAPI document describes every route', () => {
  let server: TestServer;
  let doc: Doc;

  before(async () => {
    server = await startTestServer(
      {},
      { anonymous: true, resources: [...serviceRoutes, fxRoute], beforeStart: fixtureTables },
    );
    const reply = await server.get('/api/openapi.json');
    assert.equal(reply.status, 200);
    doc = reply.body;
  });
  after(() => server?.close());

  it('is served without authentication as a valid OpenAPI 3.1 document', async () => {
    const reply = await server.get('/api/openapi.json');
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(reply.body);
    assert.deepEqual(result, { valid: true });
  });

  it('describes every route the server registers, HEAD included, and no other', () => {
    const described = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths))
      for (const method of Object.keys(item))
        if (method !== 'parameters') described.add(`${method.toUpperCase()} ${path}`);
    const registered = new Set(
      registeredRoutes(server.service.app)
        .filter((r) => !/^\/(admin|docs\/|$)/.test(r.url) && r.url !== '/admin')
        .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1')}`),
    );
    assert.deepEqual([...described].sort(), [...registered].sort());
  });

  it('names only paths Fastify routes (hasRoute for every documented operation)', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) {
        if (method === 'parameters') continue;
        const url = path.replace(/\{(\w+)\}/g, ':$1');
        assert.ok(
          server.service.app.hasRoute({ method: method.toUpperCase() as 'GET', url }),
          `${method.toUpperCase()} ${url} is documented but not registered`,
        );
      }
    }
  });

  it('leaves out the driver, channel auth and Pusher HTTP API routes while they are disabled', () => {
    const paths = Object.keys(doc.paths);
    assert.equal(paths.filter((p) => /rest-driver|broadcasting|^\/apps\//.test(p)).length, 0);
  });

  it('describes the driver, channel auth and Pusher HTTP API routes once they are enabled', async () => {
    const enabled = await startTestServer(
      { REALTIME_NOTIFICATIONS: 'true', ...driverEnv() },
      { anonymous: true },
    );
    try {
      const reply = await enabled.get('/api/openapi.json');
      assert.equal(reply.status, 200);
      const paths = Object.keys(reply.body.paths);
      for (const path of [
        '/_mad/rest-driver/query',
        '/_mad/rest-driver/tables',
        '/_mad/rest-driver/tables/{name}',
        '/broadcasting/auth-notifications',
        '/broadcasting/auth',
        '/apps/{appId}/events',
        '/apps/{appId}/batch_events',
      ])
        assert.ok(paths.includes(path), `${path} is described`);
      assert.deepEqual(await new Validator().validate(reply.body), { valid: true });
    } finally {
      await enabled.close();
    }
  });

  it('names the path parameter as the route names it and leaves out actions not exposed', () => {
    assert.deepEqual(Object.keys(doc.paths['/api/fx-gadgets/{fx_gadget}'] ?? {}).sort(), [
      'get',
      'head',
      'parameters',
      'patch',
      'put',
    ]);
    assert.equal(doc.paths['/api/fx-gadgets/{fx_gadget}']?.parameters[0].name, 'fx_gadget');
    assert.ok(doc.paths['/api/import-templates/{import_template}']);
    assert.deepEqual(
      Object.keys(doc.paths['/api/import-template-logs/{import_template_log}'] ?? {}).sort(),
      ['get', 'head', 'parameters'],
    );
  });

  it('lists the abilities and both security schemes of each operation', () => {
    const list = doc.paths['/api/fx-gadgets']?.get;
    assert.deepEqual(list['x-abilities'], ['fx-gadgets.read']);
    assert.deepEqual(list.security, [{ bearer: ['fx-gadgets.read'] }, { session: [] }]);
    const create = doc.paths['/api/fx-gadgets']?.post;
    assert.deepEqual(create.security, [
      { bearer: ['fx-gadgets.write'] },
      { session: [], csrf: [] },
    ]);
  });

  it('documents a fixture resource: list parameters, item schemas by projection, write bodies by rules', () => {
    const parameters = doc.paths['/api/fx-gadgets']?.get.parameters as any[];
    const byName = new Map(parameters.map((p) => [p.name, p]));
    assert.deepEqual(byName.get('sort').schema.enum, ['label', 'weight']);
    assert.deepEqual(
      Object.keys(byName.get('filters').content['application/json'].schema.properties),
      ['label', 'colour', 'weight'],
    );
    assert.deepEqual(byName.get('per_page').schema, {
      type: 'integer',
      minimum: 1,
      maximum: 200,
      default: 15,
    });
    const { schemas } = doc.components;
    // The list projection: the key, then the listed fields; hidden never.
    assert.deepEqual(Object.keys(schemas.FxGadgetListItem.properties), [
      'id',
      'label',
      'colour',
      'tags_count',
    ]);
    // The show view is the full record: columns less hidden, detail rows, counts.
    assert.deepEqual(Object.keys(schemas.FxGadget.properties), [
      'id',
      'label',
      'colour',
      'weight',
      'notes',
      'created_at',
      'updated_at',
      'tags',
      'tags_count',
    ]);
    assert.deepEqual(schemas.FxGadget.properties.weight, {
      type: ['integer', 'null'],
      title: 'Weight',
    });
    const create = schemas.FxGadgetCreate;
    assert.deepEqual(create.required, ['label']);
    assert.equal(create.properties.label.maxLength, 40);
    assert.deepEqual(create.properties.colour.enum, ['red', 'green', 'blue', null]);
    assert.equal(create.properties.colour.title, 'Paint colour');
    assert.equal(create.properties.weight.minimum, 1);
    assert.equal(create.properties.weight.maximum, 500);
    assert.deepEqual(create.properties.tags.items.required, ['group_id']);
    assert.ok(create.properties.tags.items.properties.id.oneOf);
    assert.equal(create.properties.secret, undefined);
    assert.equal(schemas.FxGadgetUpdate.required, undefined);
  });

  it('gives the fixture resource its list and form in GET /app/resources', async () => {
    const session = await new SessionClient(server.url).signIn();
    const reply = await session.get('/app/resources');
    assert.equal(reply.status, 200);
    const meta = reply.body.data.find((r: { name: string }) => r.name === 'fx-gadgets');
    assert.ok(meta, 'fx-gadgets is described');
    assert.equal(meta.label, 'Fx gadgets');
    assert.equal(meta.singular_label, 'Fx gadget');
    assert.deepEqual(meta.actions, ['list', 'show', 'create', 'update']);
    assert.deepEqual(
      meta.list.columns.map((c: { name: string }) => c.name),
      ['id', 'label', 'colour', 'tags_count'],
    );
    assert.deepEqual(
      meta.fields.map((f: { name: string; label: string; input: string }) => [
        f.name,
        f.label,
        f.input,
      ]),
      [
        ['id', 'ID', 'number'],
        ['label', 'Label', 'text'],
        ['colour', 'Paint colour', 'choice'],
        ['weight', 'Weight', 'number'],
        ['notes', 'Notes', 'textarea'],
        ['created_at', 'Created at', 'datetime'],
        ['updated_at', 'Updated at', 'datetime'],
      ],
    );
    assert.deepEqual(meta.details[0].fields[0].reference, {
      resource: 'groups',
      lookup: '/app/lookups/groups',
    });
  });
});
