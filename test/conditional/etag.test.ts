// Conditional requests (issue 21 item 3, docs/api.md "Conditional requests"), on every engine
// through the real server: a strong ETag from the stored version on show and write answers,
// If-None-Match -> 304, If-Match -> 412 checked under the write's lock, requireIfMatch -> 428,
// and the weak ETag of lists.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importTemplates } from '../../src/app/resources/import-templates.js';
import { serviceRoutes } from '../../src/app/routes.js';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import type { ResourceRoute } from '../../src/engine/routes.js';
import { seedGroups, templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const STRICT = '/api/strict-templates';

const strictRoute: ResourceRoute = {
  path: STRICT,
  parameter: 'import_template',
  resource: defineResource({
    model: importTemplates.entity,
    details: ['groups', 'users'],
    requireIfMatch: true,
  }),
  middleware: {
    read: ['svc.api:import-templates.read'],
    write: ['svc.api:import-templates.write'],
  },
};

describe('conditional requests: ETag, If-Match, If-None-Match', () => {
  let server: TestServer;
  let groups: number[];

  before(async () => {
    server = await startTestServer(
      { DB_POOL_SIZE: '8' },
      { resources: [...serviceRoutes, strictRoute] },
    );
    groups = await seedGroups(server.service.database.db, ['e1', 'e2', 'e3']);
  });
  after(() => server.close());

  const created = async (overrides: Record<string, unknown> = {}) => {
    const reply = await server.post(PATH, templatePayload(overrides));
    assert.equal(reply.status, 201, reply.text);
    return reply;
  };
  const etagOf = (reply: { headers: Headers }) => reply.headers.get('etag');

  it('create, show and update answer a strong ETag from the stored version, never a field of the body', async () => {
    const create = await created({ groups: [{ group_id: groups[0] }] });
    assert.equal(etagOf(create), '"1"');
    assert.equal('version' in create.body, false, 'the body is SPEC.md’s record, no version');
    const id = create.body.id;
    const show = await server.get(`${PATH}/${id}`);
    assert.equal(show.status, 200);
    assert.equal(etagOf(show), '"1"');
    assert.deepEqual(show.body, create.body);
    const update = await server.patch(`${PATH}/${id}`, { title: 'Renamed' });
    assert.equal(update.status, 200, update.text);
    assert.equal(etagOf(update), '"2"');
    assert.equal(etagOf(await server.get(`${PATH}/${id}`)), '"2"');
  });

  it('ETags cost no statement: show, update and delete run as many with If-Match / If-None-Match as without', async () => {
    const id = (await created({ groups: [{ group_id: groups[0] }] })).body.id;
    const cost = async (method: string, target: string, options = {}) =>
      (await server.counted(() => server.request(method, target, options))).statements;
    const show = await cost('GET', `${PATH}/${id}`);
    const notModified = await cost('GET', `${PATH}/${id}`, { headers: { 'if-none-match': '"1"' } });
    const update = await cost('PATCH', `${PATH}/${id}`, { body: { title: 'a' } });
    const conditional = await cost('PATCH', `${PATH}/${id}`, {
      body: { title: 'b' },
      headers: { 'if-match': '"2"' },
    });
    assert.deepEqual({ notModified, conditional }, { notModified: show, conditional: update });
  });

  it('the ETag changes when only the detail rows change, and not when nothing is written', async () => {
    const id = (await created()).body.id;
    const details = await server.patch(`${PATH}/${id}`, { groups: [{ group_id: groups[1] }] });
    assert.equal(details.status, 200, details.text);
    assert.equal(etagOf(details), '"2"');
    const nothing = await server.patch(`${PATH}/${id}`, {});
    assert.equal(nothing.status, 200);
    assert.equal(etagOf(nothing), '"2"');
  });

  it('GET with If-None-Match naming the current ETag answers 304 with the ETag and no body; a stale one 200', async () => {
    const id = (await created()).body.id;
    for (const condition of ['"1"', 'W/"1"', '"0", "1"', '*']) {
      const reply = await server.get(`${PATH}/${id}`, { headers: { 'if-none-match': condition } });
      assert.equal(reply.status, 304, `If-None-Match: ${condition}`);
      assert.equal(reply.text, '');
      assert.equal(etagOf(reply), '"1"');
    }
    await server.patch(`${PATH}/${id}`, { title: 'Changed' });
    const stale = await server.get(`${PATH}/${id}`, { headers: { 'if-none-match': '"1"' } });
    assert.equal(stale.status, 200);
    assert.equal(stale.body.title, 'Changed');
    assert.equal(etagOf(stale), '"2"');
  });

  it('PUT, PATCH and DELETE with a stale If-Match answer 412 with the current ETag and change nothing', async () => {
    const id = (await created({ title: 'Kept' })).body.id;
    await server.patch(`${PATH}/${id}`, { description: 'v2' });
    for (const method of ['PUT', 'PATCH'] as const) {
      const reply = await server.request(method, `${PATH}/${id}`, {
        body: { title: 'Lost update' },
        headers: { 'if-match': '"1"' },
      });
      assert.equal(reply.status, 412, reply.text);
      assert.deepEqual(Object.keys(reply.body), ['message']);
      assert.equal(etagOf(reply), '"2"');
    }
    const gone = await server.delete(`${PATH}/${id}`, { headers: { 'if-match': '"1"' } });
    assert.equal(gone.status, 412);
    assert.equal(etagOf(gone), '"2"');
    const shown = await server.get(`${PATH}/${id}`);
    assert.equal(shown.body.title, 'Kept');
    assert.equal(etagOf(shown), '"2"');
  });

  it('If-Match goes ahead when a listed strong tag is current or with *; a weak tag never matches', async () => {
    const id = (await created()).body.id;
    const listed = await server.patch(
      `${PATH}/${id}`,
      { title: 'One' },
      { headers: { 'if-match': '"7", "1"' } },
    );
    assert.equal(listed.status, 200, listed.text);
    assert.equal(etagOf(listed), '"2"');
    const any = await server.patch(
      `${PATH}/${id}`,
      { title: 'Two' },
      { headers: { 'if-match': '*' } },
    );
    assert.equal(any.status, 200);
    const weak = await server.patch(
      `${PATH}/${id}`,
      { title: 'Three' },
      { headers: { 'if-match': 'W/"3"' } },
    );
    assert.equal(weak.status, 412);
    const deleted = await server.delete(`${PATH}/${id}`, { headers: { 'if-match': '"3"' } });
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.body, { message: 'Resource deleted successfully' });
  });

  it('If-None-Match on a write is a 412 when it matches; a missing record is still a 404', async () => {
    const id = (await created()).body.id;
    const star = await server.put(
      `${PATH}/${id}`,
      { title: 'x' },
      { headers: { 'if-none-match': '*' } },
    );
    assert.equal(star.status, 412);
    const other = await server.put(
      `${PATH}/${id}`,
      { title: 'x' },
      { headers: { 'if-none-match': '"9"' } },
    );
    assert.equal(other.status, 200);
    const missing = await server.patch(
      `${PATH}/999999`,
      { title: 'x' },
      { headers: { 'if-match': '"1"' } },
    );
    assert.equal(missing.status, 404);
  });

  it('two writers sending one ETag at once: exactly one 200 and one 412, and the winner’s write is stored', async () => {
    for (let round = 0; round < 5; round += 1) {
      const id = (await created({ groups: [{ group_id: groups[0] }] })).body.id;
      const replies = await Promise.all(
        [1, 2].map((writer) =>
          server.patch(
            `${PATH}/${id}`,
            { title: `writer ${writer}`, groups: [{ group_id: groups[writer] }] },
            { headers: { 'if-match': '"1"' } },
          ),
        ),
      );
      const statuses = replies.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 412], replies.map((r) => r.text).join('\n'));
      const winner = replies.find((r) => r.status === 200);
      const loser = replies.find((r) => r.status === 412);
      assert.equal(etagOf(loser ?? winner!), '"2"');
      const shown = await server.get(`${PATH}/${id}`);
      assert.equal(shown.body.title, winner?.body.title);
      assert.deepEqual(shown.body.groups, winner?.body.groups);
      assert.equal(etagOf(shown), '"2"');
    }
  });

  it('requireIfMatch: PUT, PATCH and DELETE without If-Match answer 428 and change nothing; with it they run', async () => {
    const id = (await created({ title: 'Strict' })).body.id;
    for (const method of ['PUT', 'PATCH'] as const) {
      const reply = await server.request(method, `${STRICT}/${id}`, { body: { title: 'No' } });
      assert.equal(reply.status, 428, reply.text);
      assert.deepEqual(Object.keys(reply.body), ['message']);
    }
    assert.equal((await server.delete(`${STRICT}/${id}`)).status, 428);
    assert.equal((await server.get(`${STRICT}/${id}`)).body.title, 'Strict');
    const updated = await server.patch(
      `${STRICT}/${id}`,
      { title: 'Yes' },
      { headers: { 'if-match': '"1"' } },
    );
    assert.equal(updated.status, 200, updated.text);
    const deleted = await server.delete(`${STRICT}/${id}`, { headers: { 'if-match': '"2"' } });
    assert.equal(deleted.status, 200);
  });

  it('requireIfMatch without a version column fails at definition', () => {
    assert.throws(
      () =>
        defineResource({
          model: importTemplates.entity.relations.logs?.target() ?? 'ImportTemplateLog',
          requireIfMatch: true,
        }),
      /requireIfMatch needs a versionColumn/,
    );
  });

  it('lists answer a weak ETag and 304 on If-None-Match until the page changes', async () => {
    await created({ title: 'Listed' });
    const query = `${PATH}?filters[title][=]=Listed`;
    const first = await server.get(query);
    assert.equal(first.status, 200);
    const etag = etagOf(first);
    assert.match(etag ?? '', /^W\/"[A-Za-z0-9_-]+"$/);
    assert.equal(first.headers.get('content-type'), 'application/json; charset=utf-8');
    const again = await server.get(query, { headers: { 'if-none-match': etag ?? '' } });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    assert.equal(etagOf(again), etag);
    await created({ title: 'Listed' });
    const changed = await server.get(query, { headers: { 'if-none-match': etag ?? '' } });
    assert.equal(changed.status, 200);
    assert.notEqual(etagOf(changed), etag);
    assert.equal(changed.body.meta.total, first.body.meta.total + 1);
  });

  it('a template stored before the version column (the column’s default) is readable with ETag "1"', async () => {
    const { db } = server.service.database;
    await db
      .insertInto('import_templates')
      .values({ title: 'Legacy', database_name: 'erp', mapping_json: '{}', active: 'Y' })
      .execute();
    const row = await db
      .selectFrom('import_templates')
      .select(['id', 'version'])
      .where('title', '=', 'Legacy')
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.version), 1);
    const shown = await server.get(`${PATH}/${row.id}`);
    assert.equal(shown.status, 200);
    assert.equal(etagOf(shown), '"1"');
  });
});
