// SPEC.md 4.3: show answers the item projected by showFields (the full serialization when
// empty) with appends and eager-loaded details, or 404 Resource not found.
import { after, before, describe, it } from 'node:test';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { defineEntity, type Row } from '../../src/model/entity.js';
import { hasMany } from '../../src/model/relations/relation.js';
import { type FixtureApp, startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson } from '../helpers/http.js';
import { seedGroups, seedUsers } from '../helpers/seed.js';
import { insertTemplate, type TemplateRecord } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';

const fxUserRow = defineEntity({
  name: 'FxShowUserRow',
  table: 'import_template_users',
  storage: 'data',
  columns: ['id', 'template_id', 'user_id'],
  casts: { id: 'integer', template_id: 'integer', user_id: 'integer' },
  fillable: ['user_id'],
});
const fxTemplate = defineEntity({
  name: 'FxShowTemplate',
  table: 'import_templates',
  storage: 'data',
  columns: ['id', 'title', 'code', 'database_name'],
  casts: { id: 'integer' },
  fillable: ['title'],
  appends: { headline: (record: Row) => `${String(record.title)} [${String(record.code)}]` },
  relations: { users: hasMany(() => fxUserRow, 'template_id') },
});
const shown = defineResource({
  model: fxTemplate,
  details: ['users'],
  appends: ['headline'],
  indexFields: ['title'],
  showFields: ['title', 'headline', 'users'],
});

describe('SPEC 4.3 show', () => {
  let server: TestServer;
  let fixture: FixtureApp;
  let full: TemplateRecord;
  let bare: TemplateRecord;

  before(async () => {
    server = await startTestServer();
    const db = server.service.database.db;
    const [alice, bob] = (await seedUsers(db, ['alice', 'bob'])) as [number, number];
    const [g1] = (await seedGroups(db, ['g1'])) as [number];
    full = await insertTemplate(db, {
      title: 'Full',
      code: 'F',
      created_by: alice,
      groups: [g1],
      users: [alice, bob],
      logs: 1,
    });
    bare = await insertTemplate(db, { title: 'Bare', code: null, created_by: null });
    fixture = await startFixtureApp(server.service.database, [
      { path: '/api/fx-shown', resource: shown },
    ]);
  });
  after(async () => {
    await fixture.close();
    await server.close();
  });

  it('4.3 answers 200 with the full record, creator, detail rows and counts, when showFields is empty', async () => {
    assertJson(await server.get(`${PATH}/${full.id}`), 200, full);
    assertJson(await server.get(`${PATH}/${bare.id}`), 200, bare);
  });

  it('4.3 answers 200 with the item projected by showFields, with appends and eager-loaded details', async () => {
    assertJson(await fixture.get(`/api/fx-shown/${full.id}`), 200, {
      id: full.id,
      title: 'Full',
      headline: 'Full [F]',
      users: full.users,
    });
    assertJson(await fixture.get(`/api/fx-shown/${bare.id}`), 200, {
      id: bare.id,
      title: 'Bare',
      headline: 'Bare [null]',
      users: [],
    });
    // The list of the same resource uses indexFields instead.
    assertJson(await fixture.get('/api/fx-shown'), 200, {
      data: [
        { id: full.id, title: 'Full' },
        { id: bare.id, title: 'Bare' },
      ],
      meta: { total: 2, per_page: 15, current_page: 1, last_page: 1 },
    });
  });

  it('4.3 answers 404 {error: Resource not found} when the primary key does not exist', async () => {
    for (const id of ['999999', '0', 'abc']) {
      assertJson(await server.get(`${PATH}/${id}`), 404, { error: 'Resource not found' });
      assertJson(await fixture.get(`/api/fx-shown/${id}`), 404, { error: 'Resource not found' });
    }
  });
});
