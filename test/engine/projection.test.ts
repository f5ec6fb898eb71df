// SPEC.md 2.1 and 2.2: projections (indexFields, showFields), hidden fields, appends, eager
// loads and transformers, on fixture resources declared here over the service's own tables.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { defineEntity, type Row } from '../../src/model/entity.js';
import { belongsTo, hasMany } from '../../src/model/relations/relation.js';
import { type FixtureApp, startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson } from '../helpers/http.js';
import { seedGroups, seedUsers } from '../helpers/seed.js';
import { insertTemplate, type TemplateRecord } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const TEMPLATE_COLUMNS = [
  'id',
  'title',
  'code',
  'description',
  'database_name',
  'mapping_json',
  'csv_model_path',
  'import_mode',
  'active',
  'created_by',
  'created_at',
  'updated_at',
];

const fxUser = defineEntity({
  name: 'FxProjectionUser',
  table: 'users',
  columns: [
    'id',
    'login',
    'name',
    'email',
    'password_hash',
    'admin',
    'active',
    'created_at',
    'updated_at',
  ],
  casts: { id: 'integer', created_at: 'datetime', updated_at: 'datetime' },
  fillable: ['login', 'name', 'email'],
  hidden: ['password_hash'],
});

const fxGroupRow = defineEntity({
  name: 'FxProjectionTemplateGroup',
  table: 'import_template_groups',
  storage: 'data',
  columns: ['id', 'template_id', 'group_id'],
  casts: { id: 'integer', template_id: 'integer', group_id: 'integer' },
  fillable: ['group_id'],
});

const fxTemplate = defineEntity({
  name: 'FxProjectionTemplate',
  table: 'import_templates',
  storage: 'data',
  columns: TEMPLATE_COLUMNS,
  casts: { id: 'integer', created_by: 'integer', created_at: 'datetime', updated_at: 'datetime' },
  fillable: ['title', 'code', 'description', 'database_name', 'mapping_json'],
  // An entity-level hidden column: never serialised by any resource of this entity.
  hidden: ['mapping_json'],
  appends: {
    title_length: (record: Row) => String(record.title).length,
    label: (record: Row) => `${String(record.code)}: ${String(record.title)}`,
  },
  relations: {
    creator: belongsTo(() => fxUser, 'created_by', { columns: ['id', 'login', 'name'] }),
    groups: hasMany(() => fxGroupRow, 'template_id'),
  },
});

/** The record without the given keys. */
function without(record: TemplateRecord, ...keys: string[]): Row {
  const out: Row = { ...record };
  for (const key of keys) delete out[key];
  return out;
}

const list = (items: Row[]) => ({
  data: items,
  meta: { total: items.length, per_page: 15, current_page: 1, last_page: 1 },
});

describe('SPEC 2.2 projection rules (fixture resources)', () => {
  let server: TestServer;
  let app: FixtureApp;
  let owned: TemplateRecord;
  let orphan: TemplateRecord;

  const full = defineResource({
    model: fxTemplate,
    with: ['creator'],
    details: ['groups'],
    appends: ['title_length'],
    hidden: ['description'],
    defaultOrder: 'title asc',
  });
  const projected = defineResource({
    model: fxTemplate,
    with: ['creator'],
    withCount: ['groups'],
    details: ['groups'],
    appends: ['label'],
    searchable: ['code'],
    defaultOrder: 'title asc',
    indexFields: [
      'title',
      'creator.name',
      { reference: 'code' },
      { author: 'creator.login' },
      'groups_count',
      'label',
    ],
    showFields: ['title', 'description', 'groups'],
  });
  const keyHidden = defineResource({
    model: fxTemplate,
    indexFields: ['title'],
    showFields: [],
    hidden: ['id'],
    defaultOrder: 'title asc',
  });
  const byCode = defineResource({
    model: fxTemplate,
    primaryKey: 'code',
    indexFields: ['title'],
    defaultOrder: 'title asc',
  });
  const transformed = defineResource({
    model: fxTemplate,
    with: ['creator'],
    defaultOrder: 'title asc',
    indexFields: ['title', 'created_at', 'creator.name'],
    transformers: {
      title: (value, record) => `${String(value).toUpperCase()} (${String(record.code)})`,
      created_at: (value) => String(value).slice(0, 10),
      creator_name: (value) => (value === null ? 'nobody' : `by ${String(value)}`),
    },
  });
  const addedLater = defineResource({ model: fxTemplate, defaultOrder: 'title asc' });
  const addedLaterProjected = defineResource({
    model: fxTemplate,
    indexFields: ['title'],
    showFields: ['title'],
    defaultOrder: 'title asc',
  });

  before(async () => {
    server = await startTestServer();
    const db = server.service.database.db;
    const [alice] = await seedUsers(db, ['alice']);
    const [g1, g2] = await seedGroups(db, ['g1', 'g2']);
    owned = await insertTemplate(db, {
      title: 'Owned',
      code: 'OWN',
      description: 'has a creator',
      created_by: alice!,
      groups: [g1!, g2!],
    });
    orphan = await insertTemplate(db, {
      title: 'Orphan',
      code: 'ORP',
      description: 'no creator',
      created_by: null,
    });
    addedLater.addTransformer('title', (value) => `[${String(value)}]`);
    addedLaterProjected.addTransformer('title', (value) => `<${String(value)}>`);
    app = await startFixtureApp(server.service.database, [
      { path: '/api/fx-full', resource: full },
      { path: '/api/fx-projected', resource: projected },
      { path: '/api/fx-key-hidden', resource: keyHidden },
      { path: '/api/fx-by-code', resource: byCode },
      { path: '/api/fx-transformed', resource: transformed },
      { path: '/api/fx-added-later', resource: addedLater },
      { path: '/api/fx-added-later-projected', resource: addedLaterProjected },
    ]);
  });
  after(async () => {
    await app.close();
    await server.close();
  });

  it('2.2.1 an empty projection answers the complete record: no hidden field, plus appends and loaded relations', async () => {
    const item = (t: TemplateRecord) => ({
      ...without(
        t,
        'mapping_json',
        'description',
        'users',
        'groups_count',
        'users_count',
        'logs_count',
      ),
      title_length: t.title.length,
    });
    assertJson(await app.get('/api/fx-full'), 200, list([item(orphan), item(owned)]));
    assertJson(await app.get(`/api/fx-full/${owned.id}`), 200, item(owned));
  });

  it('2.2.1 an entity-level hidden column is left out of every answer, writes included', async () => {
    const reply = await app.post('/api/fx-full', {
      title: 'Written',
      database_name: 'erp',
      mapping_json: '{}',
      description: 'd',
    });
    assertJson(reply, 201);
    assert.equal('mapping_json' in reply.body, false);
    assert.equal('description' in reply.body, false);
    assert.equal(reply.body.title_length, 'Written'.length);
    assertJson(await app.delete(`/api/fx-full/${reply.body.id}`), 200, {
      message: 'Resource deleted successfully',
    });
  });

  it('2.2.2 a plain entry names a field', async () => {
    assertJson(await app.get(`/api/fx-projected/${owned.id}`), 200, {
      id: owned.id,
      title: 'Owned',
      description: 'has a creator',
      groups: owned.groups,
    });
  });

  it('2.2.3 an entry relation.field is flattened to relation_field (null when the relation is empty)', async () => {
    const reply = await app.get('/api/fx-projected');
    assertJson(
      reply,
      200,
      list([
        {
          id: orphan.id,
          title: 'Orphan',
          creator_name: null,
          reference: 'ORP',
          author: null,
          groups_count: 0,
          label: 'ORP: Orphan',
        },
        {
          id: owned.id,
          title: 'Owned',
          creator_name: 'User alice',
          reference: 'OWN',
          author: 'alice',
          groups_count: 2,
          label: 'OWN: Owned',
        },
      ]),
    );
  });

  it('2.2.4 an entry {alias: path} puts the value under the alias', async () => {
    const reply = await app.get('/api/fx-projected?filters[code][=]=OWN');
    assertJson(reply, 200);
    assert.equal(reply.body.data[0].reference, 'OWN');
    assert.equal(reply.body.data[0].author, 'alice');
    assert.equal('code' in reply.body.data[0], false);
  });

  it('2.2.5 the primary key is present even when the projection does not list it', async () => {
    const listed = await app.get('/api/fx-projected');
    assertJson(listed, 200);
    assert.deepEqual(
      listed.body.data.map((item: Row) => item.id),
      [orphan.id, owned.id],
    );
    // With primaryKey set on the resource, that key is the one always present.
    assertJson(
      await app.get('/api/fx-by-code'),
      200,
      list([
        { code: 'ORP', title: 'Orphan' },
        { code: 'OWN', title: 'Owned' },
      ]),
    );
  });

  it('2.2.5 the primary key is left out when it is explicitly hidden', async () => {
    assertJson(
      await app.get('/api/fx-key-hidden'),
      200,
      list([{ title: 'Orphan' }, { title: 'Owned' }]),
    );
    const shown = await app.get(`/api/fx-key-hidden/${owned.id}`);
    assertJson(
      shown,
      200,
      without(
        owned,
        'id',
        'mapping_json',
        'creator',
        'groups',
        'users',
        'groups_count',
        'users_count',
        'logs_count',
      ),
    );
  });

  it('2.2.6 a transformer reformats the serialized field after projection and sees the whole record', async () => {
    assertJson(
      await app.get('/api/fx-transformed'),
      200,
      list([
        { id: orphan.id, title: 'ORPHAN (ORP)', created_at: '2024-01-01', creator_name: 'nobody' },
        {
          id: owned.id,
          title: 'OWNED (OWN)',
          created_at: '2024-01-01',
          creator_name: 'by User alice',
        },
      ]),
    );
  });

  it('2.2.6 a transformer added at set-up (addTransformer) applies to list, show and writes', async () => {
    const item = (t: TemplateRecord) => ({
      ...without(
        t,
        'mapping_json',
        'creator',
        'groups',
        'users',
        'groups_count',
        'users_count',
        'logs_count',
      ),
      title: `[${t.title}]`,
    });
    assertJson(await app.get('/api/fx-added-later'), 200, list([item(orphan), item(owned)]));
    assertJson(await app.get(`/api/fx-added-later/${owned.id}`), 200, item(owned));
    assertJson(
      await app.get('/api/fx-added-later-projected'),
      200,
      list([
        { id: orphan.id, title: '<Orphan>' },
        { id: owned.id, title: '<Owned>' },
      ]),
    );
    const updated = await app.patch(`/api/fx-added-later-projected/${orphan.id}`, {
      title: 'Orphan',
    });
    assertJson(updated, 200, { id: orphan.id, title: '<Orphan>' });
  });

  it('2.1 indexFields project list items while showFields project show and the write responses', async () => {
    const listed = await app.get('/api/fx-projected?filters[code][=]=ORP');
    assertJson(listed, 200);
    assert.deepEqual(Object.keys(listed.body.data[0]).sort(), [
      'author',
      'creator_name',
      'groups_count',
      'id',
      'label',
      'reference',
      'title',
    ]);
    const expected = { id: orphan.id, title: 'Orphan', description: 'no creator', groups: [] };
    assertJson(await app.get(`/api/fx-projected/${orphan.id}`), 200, expected);
    assertJson(
      await app.put(`/api/fx-projected/${orphan.id}`, { description: 'no creator' }),
      200,
      expected,
    );
  });
});
