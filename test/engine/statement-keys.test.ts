// Compiled statements are keyed by what their SQL is built from (database/statement-runner.ts): two
// relations, resources or entities over one table that read different columns never share a
// statement. Fixture resources over the service's own tables, each request after the other so
// the second finds the first one's statement in the cache if the keys collide.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { defineEntity } from '../../src/model/entity.js';
import { belongsTo, hasMany } from '../../src/model/relations/relation.js';
import { type FixtureApp, startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson } from '../helpers/http.js';
import { seedGroups, seedUsers } from '../helpers/seed.js';
import { insertTemplate } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const fxUser = defineEntity({
  name: 'FxKeysUser',
  table: 'users',
  columns: ['id', 'login', 'name', 'email'],
  casts: { id: 'integer' },
  fillable: [],
});
// Two entities over one detail table, reading different columns.
const fxGroupRow = defineEntity({
  name: 'FxKeysGroupRow',
  table: 'import_template_groups',
  storage: 'data',
  columns: ['id', 'template_id', 'group_id'],
  casts: { id: 'integer', template_id: 'integer', group_id: 'integer' },
  fillable: ['group_id'],
});
const fxGroupKey = defineEntity({
  name: 'FxKeysGroupKey',
  table: 'import_template_groups',
  storage: 'data',
  columns: ['id', 'template_id'],
  casts: { id: 'integer', template_id: 'integer' },
  fillable: [],
});
const fxTemplate = defineEntity({
  name: 'FxKeysTemplate',
  table: 'import_templates',
  storage: 'data',
  columns: ['id', 'title', 'created_by'],
  casts: { id: 'integer', created_by: 'integer' },
  fillable: ['title'],
  relations: {
    // The first relation to users is joined into the record's select; the other two are read by
    // a batched statement each, over the same table and key, with different columns.
    owner: belongsTo(() => fxUser, 'created_by', { columns: ['id', 'login'] }),
    named: belongsTo(() => fxUser, 'created_by', { columns: ['id', 'name'] }),
    mailed: belongsTo(() => fxUser, 'created_by', { columns: ['id', 'email'] }),
    groups: hasMany(() => fxGroupRow, 'template_id'),
    groupKeys: hasMany(() => fxGroupKey, 'template_id'),
  },
});
const withUsers = defineResource({
  model: fxTemplate,
  with: ['owner', 'named', 'mailed'],
  defaultOrder: 'id asc',
});
const keysOnly = defineResource({ model: fxTemplate, with: ['groupKeys'], defaultOrder: 'id asc' });
const fullRows = defineResource({ model: fxTemplate, with: ['groups'], defaultOrder: 'id asc' });

describe('structural statement keys', () => {
  let server: TestServer;
  let fixture: FixtureApp;
  let alice: number;
  let templateId: number;
  let rows: Array<{ id: number; template_id: number; group_id: number }>;

  before(async () => {
    server = await startTestServer();
    const db = server.service.database.db;
    [alice] = (await seedUsers(db, ['keys-alice'])) as [number];
    const groups = await seedGroups(db, ['Keys A', 'Keys B']);
    const template = await insertTemplate(db, { title: 'Keyed', created_by: alice, groups });
    templateId = template.id;
    rows = template.groups.map((row) => ({
      id: row.id,
      template_id: row.template_id,
      group_id: row.group_id as number,
    }));
    fixture = await startFixtureApp(server.service.database, [
      { path: '/api/fx-keys-users', resource: withUsers },
      { path: '/api/fx-keys-group-keys', resource: keysOnly },
      { path: '/api/fx-keys-groups', resource: fullRows },
    ]);
  });
  after(async () => {
    await fixture?.close();
    await server.close();
  });

  it('two belongs-to relations to one table with different columns each answer their own columns', async () => {
    for (const target of [`/api/fx-keys-users/${templateId}`, '/api/fx-keys-users']) {
      const reply = await fixture.get(target);
      assertJson(reply, 200);
      const record =
        reply.body.data?.find((item: { id: number }) => item.id === templateId) ?? reply.body;
      assert.deepEqual(
        { owner: record.owner, named: record.named, mailed: record.mailed },
        {
          owner: { id: alice, login: 'keys-alice' },
          named: { id: alice, name: 'User keys-alice' },
          mailed: { id: alice, email: 'keys-alice@example.test' },
        },
      );
    }
  });

  it('two has-many relations to one table read by entities with different columns each answer their own columns', async () => {
    const keys = await fixture.get(`/api/fx-keys-group-keys/${templateId}`);
    assertJson(keys, 200);
    assert.deepEqual(
      keys.body.groupKeys,
      rows.map(({ id, template_id }) => ({ id, template_id })),
    );
    const full = await fixture.get(`/api/fx-keys-groups/${templateId}`);
    assertJson(full, 200);
    assert.deepEqual(full.body.groups, rows);
  });
});
