// SPEC.md 4.1: the route set of one declaration, HEAD, restriction to a subset of actions, the
// id taken from the route's last parameter whatever its name, and direct invocation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EngineContext } from '../../src/engine/context.js';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { invoke } from '../../src/engine/invoke.js';
import { defineEntity } from '../../src/model/entity.js';
import { NO_SCOPE } from '../../src/model/scope.js';
import { type FixtureApp, startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson, freshTimestamp } from '../helpers/http.js';
import { seedGroups, seedUsers, templatePayload } from '../helpers/seed.js';
import { insertTemplate, type TemplateRecord } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const NOT_FOUND = { error: 'Not found' };
const RESOURCE_NOT_FOUND = { error: 'Resource not found' };

const fxTemplate = defineEntity({
  name: 'FxRoutesTemplate',
  table: 'import_templates',
  storage: 'data',
  columns: ['id', 'title', 'code', 'database_name', 'mapping_json'],
  casts: { id: 'integer' },
  fillable: ['title', 'code', 'database_name', 'mapping_json'],
});
const things = defineResource({ model: fxTemplate, defaultOrder: 'title asc' });
const byCode = defineResource({ model: fxTemplate, primaryKey: 'code', defaultOrder: 'title asc' });
const row = (t: TemplateRecord) => ({
  id: t.id,
  title: t.title,
  code: t.code,
  database_name: t.database_name,
  mapping_json: t.mapping_json,
});

describe('SPEC 4.1 route set', () => {
  let server: TestServer;
  let app: FixtureApp;
  let first: TemplateRecord;
  let second: TemplateRecord;
  let alice: number;
  let g1: number;

  before(async () => {
    server = await startTestServer();
    const db = server.service.database.db;
    [alice] = (await seedUsers(db, ['alice'])) as [number];
    [g1] = (await seedGroups(db, ['g1'])) as [number];
    first = await insertTemplate(db, { title: 'First', code: 'F1' });
    second = await insertTemplate(db, { title: 'Second', code: 'S2' });
    app = await startFixtureApp(server.service.database, [
      { path: '/api/fx-read-only', resource: things, only: ['list', 'show'] },
      { path: '/api/fx-create-only', resource: things, only: ['create'] },
      { path: '/api/units/:unit/fx-things', parameter: 'thing_ref', resource: things },
      { path: '/api/fx-renamed', parameter: 'whatever', resource: things },
      { path: '/api/fx-default-name', resource: things },
      { path: '/api/fx-by-code', resource: byCode },
    ]);
  });
  after(async () => {
    await app.close();
    await server.close();
  });

  it('4.1 one declaration answers list 200, create 201, show 200, update (PUT and PATCH) 200 and delete 200', async () => {
    const since = new Date();
    const created = await server.post(
      '/api/import-templates',
      templatePayload({ title: 'Routed', created_by: alice, groups: [{ group_id: g1 }] }),
    );
    assertJson(created, 201);
    const id: number = created.body.id;
    const createdAt = freshTimestamp(created.body.created_at, since);
    const record = {
      ...templatePayload({ title: 'Routed' }),
      id,
      created_by: alice,
      created_at: createdAt,
      updated_at: createdAt,
      creator: { id: alice, login: 'alice', name: 'User alice' },
      groups: [{ id: created.body.groups[0].id, template_id: id, group_id: g1 }],
      users: [],
      groups_count: 1,
      users_count: 0,
      logs_count: 0,
    };
    assertJson(created, 201, record);
    assertJson(await server.get(`/api/import-templates/${id}`), 200, record);
    const listed = await server.get('/api/import-templates?filters[title][=]=Routed');
    assertJson(listed, 200, {
      data: [record],
      meta: { total: 1, per_page: 15, current_page: 1, last_page: 1 },
    });

    const put = await server.put(`/api/import-templates/${id}`, { code: 'PUT' });
    assertJson(put, 200, {
      ...record,
      code: 'PUT',
      updated_at: freshTimestamp(put.body.updated_at, since),
    });
    const patched = await server.patch(`/api/import-templates/${id}`, { code: 'PATCH' });
    assertJson(patched, 200, {
      ...record,
      code: 'PATCH',
      updated_at: freshTimestamp(patched.body.updated_at, since),
    });

    assertJson(await server.delete(`/api/import-templates/${id}`), 200, {
      message: 'Resource deleted successfully',
    });
    assertJson(await server.get(`/api/import-templates/${id}`), 404, RESOURCE_NOT_FOUND);
  });

  it('4.1 GET also answers HEAD, on the list and on show, with no body', async () => {
    for (const path of ['/api/import-templates', `/api/import-templates/${first.id}`]) {
      const reply = await server.request('HEAD', path);
      assertJson(reply, 200);
      assert.equal(reply.text, '');
    }
    const missing = await server.request('HEAD', '/api/import-templates/999999');
    assertJson(missing, 404);
    assert.equal(missing.text, '');
  });

  it('4.1 detail relations have no routes of their own', async () => {
    assertJson(await server.get(`/api/import-templates/${first.id}/groups`), 404, NOT_FOUND);
    assertJson(
      await server.post(`/api/import-templates/${first.id}/groups`, { group_id: g1 }),
      404,
      NOT_FOUND,
    );
    assertJson(await server.get(`/api/import-templates/${first.id}/users/1`), 404, NOT_FOUND);
  });

  it('4.1 a route restricted to some actions answers the others as unmatched routes (404)', async () => {
    assertJson(await app.get('/api/fx-read-only'), 200, {
      data: [row(first), row(second)],
      meta: { total: 2, per_page: 15, current_page: 1, last_page: 1 },
    });
    assertJson(await app.get(`/api/fx-read-only/${first.id}`), 200, row(first));
    assertJson(await app.post('/api/fx-read-only', { title: 'x' }), 404, NOT_FOUND);
    assertJson(await app.put(`/api/fx-read-only/${first.id}`, { title: 'x' }), 404, NOT_FOUND);
    assertJson(await app.patch(`/api/fx-read-only/${first.id}`, { title: 'x' }), 404, NOT_FOUND);
    assertJson(await app.delete(`/api/fx-read-only/${first.id}`), 404, NOT_FOUND);

    assertJson(await app.get('/api/fx-create-only'), 404, NOT_FOUND);
    assertJson(await app.get(`/api/fx-create-only/${first.id}`), 404, NOT_FOUND);
    assertJson(await app.request('HEAD', '/api/fx-create-only'), 404);
    assertJson(await app.delete(`/api/fx-create-only/${first.id}`), 404, NOT_FOUND);
    assert.equal(
      (await server.get(`/api/import-templates/${first.id}`)).body.title,
      'First',
      'nothing was changed',
    );
  });

  it('4.1 the id is the last parameter of the route, whatever it is called', async () => {
    // The unit parameter comes first in the path; only the last one is the id.
    assertJson(await app.get(`/api/units/${second.id}/fx-things/${first.id}`), 200, row(first));
    assertJson(
      await app.patch(`/api/units/${first.id}/fx-things/${second.id}`, { code: 'S2' }),
      200,
      row(second),
    );
    assertJson(await app.get(`/api/units/${first.id}/fx-things/999999`), 404, RESOURCE_NOT_FOUND);
  });

  it('4.1 renaming the id parameter does not change behaviour', async () => {
    for (const base of ['/api/fx-renamed', '/api/fx-default-name']) {
      assertJson(await app.get(`${base}/${first.id}`), 200, row(first));
      assertJson(await app.put(`${base}/${first.id}`, { code: 'F1' }), 200, row(first));
      assertJson(await app.get(`${base}/nope`), 404, RESOURCE_NOT_FOUND);
    }
  });

  it('4.1 the id is a raw string matched against the primary key, which may be a non-integer column', async () => {
    assertJson(await app.get('/api/fx-by-code/S2'), 200, { ...row(second), code: 'S2' });
    assertJson(await app.get(`/api/fx-by-code/${second.id}`), 404, RESOURCE_NOT_FOUND);
  });

  it('4.1 outside a route the id is read from the input field named like the primary key', async () => {
    const context: EngineContext = {
      system: server.service.database,
      data: server.service.database,
      scope: NO_SCOPE,
      user: null,
      mode: 'direct',
    };
    assert.deepEqual(await invoke(things, 'show', context, { id: first.id }), row(first));
    assert.deepEqual(await invoke(things, 'show', context, { id: String(first.id) }), row(first));
    assert.deepEqual(
      await invoke(byCode, 'show', context, { code: 'F1', id: second.id }),
      row(first),
    );
    await assert.rejects(invoke(things, 'show', context, { code: 'F1' }), {
      status: 404,
      body: RESOURCE_NOT_FOUND,
    });

    const made = (await invoke(things, 'create', context, {
      title: 'Direct',
      database_name: 'd',
      mapping_json: '{}',
    })) as { id: number };
    assert.deepEqual(await invoke(things, 'update', context, { id: made.id, code: 'DIR' }), {
      id: made.id,
      title: 'Direct',
      code: 'DIR',
      database_name: 'd',
      mapping_json: '{}',
    });
    assert.deepEqual(await invoke(byCode, 'update', context, { code: 'DIR', title: 'Direct 2' }), {
      id: made.id,
      title: 'Direct 2',
      code: 'DIR',
      database_name: 'd',
      mapping_json: '{}',
    });
    const listed = (await invoke(things, 'list', context, {
      filters: { x: { '=': 1 } },
      per_page: 1,
    })) as { meta: unknown };
    assert.deepEqual(listed.meta, { total: 3, per_page: 1, current_page: 1, last_page: 3 });
    assert.deepEqual(await invoke(things, 'delete', context, { id: made.id }), {
      message: 'Resource deleted successfully',
    });
    await assert.rejects(invoke(things, 'delete', context, { id: made.id }), {
      status: 404,
      body: RESOURCE_NOT_FOUND,
    });
  });
});
