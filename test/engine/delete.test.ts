// SPEC.md 4.5: delete removes the master and, in cascade, the rows of every detail relation,
// in one transaction; 200 with a message, 404 for an id that does not exist.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { defineEntity } from '../../src/model/entity.js';
import { hasMany } from '../../src/model/relations/relation.js';
import { type FixtureApp, startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson } from '../helpers/http.js';
import { seedGroups, seedUsers } from '../helpers/seed.js';
import {
  insertTemplate,
  snapshot,
  storedDetails,
  type TemplateRecord,
} from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const DELETED = { message: 'Resource deleted successfully' };
const RESOURCE_NOT_FOUND = { error: 'Resource not found' };

// A resource whose second detail relation points at a table that does not exist: deleting
// its rows fails after the first relation's rows are already deleted.
const fxGroupRow = defineEntity({
  name: 'FxDeleteGroupRow',
  table: 'import_template_groups',
  storage: 'data',
  columns: ['id', 'template_id', 'group_id'],
  fillable: ['group_id'],
});
const fxMissingTable = defineEntity({
  name: 'FxDeleteMissingTable',
  table: 'fx_delete_no_such_table',
  storage: 'data',
  columns: ['id', 'template_id'],
  fillable: [],
});
const fxTemplate = defineEntity({
  name: 'FxDeleteTemplate',
  table: 'import_templates',
  storage: 'data',
  columns: ['id', 'title'],
  fillable: ['title'],
  relations: {
    groups: hasMany(() => fxGroupRow, 'template_id'),
    broken: hasMany(() => fxMissingTable, 'template_id'),
  },
});
const brokenCascade = defineResource({ model: fxTemplate, details: ['groups', 'broken'] });

describe('SPEC 4.5 delete', () => {
  let server: TestServer;
  let fixture: FixtureApp;
  let alice: number, bob: number;
  let g1: number, g2: number;
  const db = () => server.service.database.db;

  before(async () => {
    server = await startTestServer();
    [alice, bob] = (await seedUsers(db(), ['alice', 'bob'])) as [number, number];
    [g1, g2] = (await seedGroups(db(), ['g1', 'g2'])) as [number, number];
    fixture = await startFixtureApp(server.service.database, [
      { path: '/api/fx-broken-cascade', resource: brokenCascade },
    ]);
  });
  after(async () => {
    await fixture.close();
    await server.close();
  });

  it('4.5 deletes the master and, in cascade, the rows of every detail relation, and no other row', async () => {
    const doomed = await insertTemplate(db(), {
      title: 'Doomed',
      groups: [g1, g2],
      users: [alice, bob],
      logs: 1,
    });
    const kept: TemplateRecord = await insertTemplate(db(), {
      title: 'Kept',
      groups: [g1],
      users: [alice],
    });
    const before = await snapshot(db());
    assertJson(await server.delete(`${PATH}/${doomed.id}`), 200, DELETED);
    assert.deepEqual(await storedDetails(db(), doomed.id), { groups: [], users: [] });
    assert.equal(
      (await db().selectFrom('import_templates').select('id').where('id', '=', doomed.id).execute())
        .length,
      0,
    );
    const after = await snapshot(db());
    assert.deepEqual(after, {
      import_templates: before.import_templates!.filter(
        (r) => (r as { id: number }).id !== doomed.id,
      ),
      import_template_groups: before.import_template_groups!.filter(
        (r) => (r as { template_id: number }).template_id !== doomed.id,
      ),
      import_template_users: before.import_template_users!.filter(
        (r) => (r as { template_id: number }).template_id !== doomed.id,
      ),
    });
    assertJson(await server.get(`${PATH}/${kept.id}`), 200, kept);
    assertJson(await server.get(`${PATH}/${doomed.id}`), 404, RESOURCE_NOT_FOUND);
  });

  it('4.5 answers 200 {message: Resource deleted successfully}', async () => {
    const plain = await insertTemplate(db(), { title: 'Plain' });
    assertJson(await server.delete(`${PATH}/${plain.id}`), 200, DELETED);
  });

  it('4.5 answers 404 {error: Resource not found} for an id that does not exist, or no longer does', async () => {
    const once = await insertTemplate(db(), { title: 'Once' });
    assertJson(await server.delete(`${PATH}/${once.id}`), 200, DELETED);
    const before = await snapshot(db());
    for (const id of [String(once.id), '999999', 'abc', '1.0', '-1', '%20']) {
      assertJson(await server.delete(`${PATH}/${id}`), 404, RESOURCE_NOT_FOUND);
    }
    assert.deepEqual(await snapshot(db()), before);
  });

  it('4.5 the cascade runs in one transaction: a failure after the first detail relation keeps every row', async () => {
    const survivor = await insertTemplate(db(), { title: 'Survivor', groups: [g1, g2] });
    const before = await snapshot(db());
    assertJson(await fixture.delete(`/api/fx-broken-cascade/${survivor.id}`), 500, {
      message: 'Server Error',
    });
    assert.deepEqual(await snapshot(db()), before);
    assertJson(await server.get(`${PATH}/${survivor.id}`), 200, survivor);
  });
});
