// Issue 19, item 1, and DESIGN.md 3.6 "Bounds": a detail relation takes at most `maxDetailRows`
// rows per write (resource setting, default 1,000; a 422 naming the relation beyond it); rows
// are inserted in chunks, so no engine's parameter limit is reached whatever the limit is set
// to; and the statements compiled for them come from a fixed set of shapes, so writes of every
// possible row count cannot grow the statement cache (it once grew by one INSERT per count).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compiledStatementCount } from '../../src/database/statement-runner.js';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { defineEntity } from '../../src/model/entity.js';
import { hasMany } from '../../src/model/relations/relation.js';
import { type FixtureApp, startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson } from '../helpers/http.js';
import { seedGroups, templatePayload } from '../helpers/seed.js';
import { snapshot } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';

const fxGroupRow = defineEntity({
  name: 'FxBoundsGroupRow',
  table: 'import_template_groups',
  storage: 'data',
  columns: ['id', 'template_id', 'group_id'],
  casts: { id: 'integer', template_id: 'integer', group_id: 'integer' },
  fillable: ['group_id'],
});
const fxTemplate = defineEntity({
  name: 'FxBoundsTemplate',
  table: 'import_templates',
  storage: 'data',
  columns: ['id', 'title', 'database_name', 'mapping_json'],
  casts: { id: 'integer' },
  fillable: ['title', 'database_name', 'mapping_json'],
  relations: { groups: hasMany(() => fxGroupRow, 'template_id') },
});
/** A resource that lets a write carry far more rows than any engine binds in one statement. */
const manyRows = defineResource({
  model: fxTemplate,
  details: ['groups'],
  withCount: ['groups'],
  maxDetailRows: 50_000,
});

describe('detail rows per write are bounded (issue 19)', () => {
  let server: TestServer;
  let fixture: FixtureApp;
  let group: number;

  before(async () => {
    server = await startTestServer();
    [group] = (await seedGroups(server.service.database.db, ['Bounded'])) as [number];
    fixture = await startFixtureApp(server.service.database, [
      { path: '/api/fx-many-rows', resource: manyRows },
    ]);
  });
  after(async () => {
    await fixture?.close();
    await server.close();
  });

  const rows = (count: number) => Array.from({ length: count }, () => ({ group_id: group }));

  it('maxDetailRows (default 1,000): a relation with more rows is a 422 naming it, nothing saved, on create and update', async () => {
    const message = 'The groups field must not have more than 1000 items.';
    const refused = { message, errors: { groups: [message] } };
    const before = await snapshot(server.service.database.db);
    assertJson(await server.post(PATH, templatePayload({ groups: rows(1_001) })), 422, refused);
    const created = await server.post(PATH, templatePayload({ groups: rows(1_000) }));
    assertJson(created, 201);
    assert.equal(created.body.groups.length, 1_000);
    const after = await snapshot(server.service.database.db);
    assertJson(
      await server.put(`${PATH}/${created.body.id}`, { groups: rows(1_001) }),
      422,
      refused,
    );
    assert.deepEqual(await snapshot(server.service.database.db), after);
    assert.notDeepEqual(after, before);
  });

  it('rows beyond every engine parameter limit are inserted in chunks: 40,000 rows in one write', async () => {
    const created = await fixture.post('/api/fx-many-rows', {
      title: 'Many',
      database_name: 'erp',
      mapping_json: '{}',
      groups: rows(40_000),
    });
    assertJson(created, 201);
    assert.equal(created.body.groups_count, 40_000);
    // And deleted in chunks too: an update that keeps none of them.
    const emptied = await fixture.put(`/api/fx-many-rows/${created.body.id}`, { groups: [] });
    assertJson(emptied, 200);
    assert.equal(emptied.body.groups_count, 0);
  });

  it('the compiled statement shapes come from a fixed set: once it is seen, 40 creates of 40 other row counts compile nothing new', async () => {
    const { db } = server.service.database;
    // The fixed set for a relation of 2 columns: 1 to 64 rows, 128 and 256.
    for (const count of [...Array.from({ length: 64 }, (_, i) => i + 1), 384])
      assertJson(await server.post(PATH, templatePayload({ groups: rows(count) })), 201);
    const start = compiledStatementCount(db);
    for (let count = 300; count < 1_000; count += 17)
      assertJson(await server.post(PATH, templatePayload({ groups: rows(count) })), 201);
    const added = compiledStatementCount(db) - start;
    assert.equal(added, 0, `${added} statement shapes added`);
  });
});
