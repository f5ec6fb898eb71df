// Issue 35, DESIGN.md 3.11: every write of a record leaves a revision with the record as show
// answered it; GET /api/<resource>/<id>/history lists them newest first, a page at a time, with
// show's abilities and scope; POST .../history/<seq>/restore makes the record equal a revision
// (detail rows with their ids) through the write path, a deleted record included. Through the
// real server on every engine.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importTemplates } from '../../src/app/resources/import-templates.js';
import { serviceRoutes } from '../../src/app/routes.js';
import { pruneHistory } from '../../src/engine/changes/retention.js';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { bearer, issue, otherCompanyWriter } from '../helpers/bearer.js';
import { serverWithDetailTargets } from '../helpers/detail-targets.js';
import { sqlitePassOnly } from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { Contract } from '../helpers/openapi-contract.js';
import { seedGroups, templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';

interface Revision {
  seq: number;
  version: number | null;
  action: string;
  at: string;
  actor: { user_id: number | null; token_id: number | null; via: string };
  changes: Record<string, unknown>;
  record: Record<string, unknown> | null;
}

async function history(server: TestServer, id: number, query = ''): Promise<Revision[]> {
  const reply = await server.get(`${PATH}/${id}/history${query}`);
  assertJson(reply, 200);
  return reply.body.data as Revision[];
}

describe('the history of a record and its restore (issue 35, DESIGN.md 3.11)', () => {
  let server: TestServer;
  let g1: number;
  let g2: number;
  let alice: number;
  before(async () => ({ server, g1, g2, alice } = await serverWithDetailTargets()));
  after(() => server?.close());

  it('each write leaves a revision, newest first, with the record as show answered it right after the write (null after a delete)', async () => {
    const created = await server.post(PATH, templatePayload({ groups: [{ group_id: g1 }] }));
    assertJson(created, 201);
    const id = created.body.id as number;
    const updated = await server.patch(`${PATH}/${id}`, {
      title: 'Second',
      users: [{ user_id: alice }],
    });
    assertJson(updated, 200);
    assertJson(await server.delete(`${PATH}/${id}`), 200);
    const [d, u, c, ...rest] = await history(server, id);
    assert.deepEqual(rest, []);
    assert.ok(c && u && d);
    assert.deepEqual([c.action, u.action, d.action], ['created', 'updated', 'deleted']);
    assert.ok(c.seq < u.seq && u.seq < d.seq);
    assert.deepStrictEqual(c.record, created.body);
    assert.deepStrictEqual(u.record, updated.body);
    assert.equal(d.record, null);
    assert.deepEqual([c.version, u.version, d.version], [1, 2, null]);
    assert.deepEqual(u.changes, {
      fields: { title: 'Second', updated_at: updated.body.updated_at },
      users: { created: updated.body.users, updated: [], deleted: [] },
    });
    assert.deepEqual(u.actor, { user_id: 1, token_id: 1, via: 'bearer' });
  });

  it('the history is paged newest first by `before`, and answers 404 for a record that never existed', async () => {
    const created = await server.post(PATH, templatePayload());
    const id = created.body.id as number;
    for (let i = 0; i < 4; i++)
      assertJson(await server.patch(`${PATH}/${id}`, { title: `T${i}` }), 200);
    const all = await history(server, id);
    assert.equal(all.length, 5);
    const first = await server.get(`${PATH}/${id}/history?limit=2`);
    assertJson(first, 200);
    assert.deepEqual(first.body.meta, { before: null, next: all[1]?.seq, has_more: true });
    const second = await server.get(`${PATH}/${id}/history?limit=2&before=${first.body.meta.next}`);
    const third = await server.get(`${PATH}/${id}/history?limit=2&before=${second.body.meta.next}`);
    assert.deepEqual(
      [...first.body.data, ...second.body.data, ...third.body.data].map((r: Revision) => r.seq),
      all.map((r) => r.seq),
    );
    assert.deepEqual(third.body.meta, {
      before: second.body.meta.next,
      next: null,
      has_more: false,
    });
    assertJson(await server.get(`${PATH}/999999/history`), 404, { error: 'Resource not found' });
    const bad = await server.get(`${PATH}/${id}/history?limit=0`);
    assertJson(bad, 422);
  });

  it('the history needs the read ability, as show does', async () => {
    const created = await server.post(PATH, templatePayload());
    const { token } = await issue(server, { abilities: ['import-templates.write'] });
    const reply = await server.get(`${PATH}/${created.body.id}/history`, {
      headers: bearer(token),
    });
    assert.equal(reply.status, 403);
  });

  it('a restore makes the record equal the revision: master fields, and detail rows deleted since come back with their ids while rows added since are deleted', async () => {
    const created = await server.post(
      PATH,
      templatePayload({ title: 'Before', groups: [{ group_id: g1 }, { group_id: g2 }] }),
    );
    const id = created.body.id as number;
    const [kept] = created.body.groups as Array<{ id: number }>;
    const changed = await server.patch(`${PATH}/${id}`, {
      title: 'After',
      groups: [{ id: kept?.id, group_id: g2 }, { group_id: g1 }],
    });
    assertJson(changed, 200);
    const [, first] = await history(server, id);
    assert.ok(first);
    const restored = await server.post(`${PATH}/${id}/history/${first.seq}/restore`, {});
    assertJson(restored, 200);
    const shown = await server.get(`${PATH}/${id}`);
    const { updated_at, ...rest } = shown.body;
    const { updated_at: _was, ...expected } = created.body;
    assert.deepStrictEqual(rest, expected);
    assert.deepStrictEqual(restored.body, shown.body);
    const [latest] = await history(server, id);
    assert.equal(latest?.action, 'updated');
    assert.deepStrictEqual(latest?.record, shown.body);
  });

  it('a deleted record is restored with its id, its detail rows with theirs', async () => {
    const created = await server.post(
      PATH,
      templatePayload({ title: 'Gone', groups: [{ group_id: g1 }], users: [{ user_id: alice }] }),
    );
    const id = created.body.id as number;
    assertJson(await server.delete(`${PATH}/${id}`), 200);
    const [deleted, made] = await history(server, id);
    assert.ok(deleted && made);
    const restored = await server.post(`${PATH}/${id}/history/${made.seq}/restore`, {});
    assertJson(restored, 201);
    const shown = await server.get(`${PATH}/${id}`);
    assertJson(shown, 200);
    const { updated_at, ...rest } = shown.body;
    const { updated_at: _was, ...expected } = created.body;
    assert.deepStrictEqual(rest, expected);
    const [latest] = await history(server, id);
    assert.equal(latest?.action, 'created');
    assert.ok((latest?.version ?? 0) > 1, 'the version goes on above every earlier one');
    const restoreDelete = await server.post(`${PATH}/${id}/history/${deleted.seq}/restore`, {});
    assertJson(restoreDelete, 422);
  });

  it('a revision that no longer validates answers 422 and changes nothing', async () => {
    const [g3] = (await seedGroups(server.service.database.db, ['g3'])) as [number];
    const created = await server.post(PATH, templatePayload({ groups: [{ group_id: g3 }] }));
    const id = created.body.id as number;
    assertJson(await server.patch(`${PATH}/${id}`, { groups: [] }), 200);
    await server.service.database.db.deleteFrom('groups').where('id', '=', g3).execute();
    const [, first] = await history(server, id);
    const before = await history(server, id);
    const reply = await server.post(`${PATH}/${id}/history/${first?.seq}/restore`, {});
    assertJson(reply, 422);
    assert.ok('groups.0.group_id' in reply.body.errors, JSON.stringify(reply.body));
    assert.deepEqual(await history(server, id), before);
  });

  it('the history, a restore and their errors answer as the OpenAPI document describes them', async () => {
    const contract = await Contract.load(server.url);
    const created = await server.post(PATH, templatePayload({ groups: [{ group_id: g1 }] }));
    const id = created.body.id as number;
    assertJson(await server.patch(`${PATH}/${id}`, { title: 'documented', groups: [] }), 200);
    for (const [target, status] of [
      [`${PATH}/${id}/history`, 200],
      [`${PATH}/${id}/history?limit=1`, 200],
      [`${PATH}/${id}/history?limit=0`, 422],
      [`${PATH}/999999/history`, 404],
    ] as const) {
      const reply = await server.get(target);
      assert.equal(reply.status, status, target);
      contract.check('GET', target, reply);
    }
    const [, first] = await history(server, id);
    const restore = `${PATH}/${id}/history/${first?.seq}/restore`;
    const restored = await server.post(restore, {});
    assert.equal(restored.status, 200);
    contract.check('POST', restore, restored);
    assertJson(await server.delete(`${PATH}/${id}`), 200);
    const back = await server.post(restore, {});
    assert.equal(back.status, 201);
    contract.check('POST', restore, back);
  });

  it('GET .../deleted lists the records deleted and not restored since, newest first, with the revision that restores each', async () => {
    const contract = await Contract.load(server.url);
    const a = await server.post(PATH, templatePayload({ title: 'Deleted A' }));
    const b = await server.post(PATH, templatePayload({ title: 'Deleted B' }));
    assertJson(await server.patch(`${PATH}/${b.body.id}`, { title: 'Deleted B2' }), 200);
    const b2 = (await server.get(`${PATH}/${b.body.id}`)).body;
    assertJson(await server.delete(`${PATH}/${a.body.id}`), 200);
    assertJson(await server.delete(`${PATH}/${b.body.id}`), 200);
    const reply = await server.get(`${PATH}/deleted?limit=2`);
    assertJson(reply, 200);
    contract.check('GET', `${PATH}/deleted?limit=2`, reply);
    const [first, second] = reply.body.data;
    assert.deepEqual([first.id, second.id], [b.body.id, a.body.id]);
    assert.deepStrictEqual(first.record, b2);
    const before = await history(server, b.body.id);
    assert.equal(first.restore_seq, before[1]?.seq);
    assert.equal(first.seq, before[0]?.seq);
    assertJson(
      await server.post(`${PATH}/${b.body.id}/history/${first.restore_seq}/restore`, {}),
      201,
    );
    const after = await server.get(`${PATH}/deleted?limit=2`);
    assert.deepEqual(after.body.data.map((d: { id: number }) => d.id).slice(0, 1), [a.body.id]);
  });

  it('a restore honours If-Match: a stale ETag answers 412 and changes nothing', async () => {
    const created = await server.post(PATH, templatePayload());
    const id = created.body.id as number;
    const stale = created.headers.get('etag') ?? '';
    assertJson(await server.patch(`${PATH}/${id}`, { title: 'Moved on' }), 200);
    const [, first] = await history(server, id);
    const reply = await server.post(
      `${PATH}/${id}/history/${first?.seq}/restore`,
      {},
      {
        headers: { 'if-match': stale },
      },
    );
    assert.equal(reply.status, 412);
    assert.equal((await server.get(`${PATH}/${id}`)).body.title, 'Moved on');
  });
});

describe('history retention (HISTORY_RETENTION_DAYS, DESIGN.md 3.11)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  it('revisions older than the retention are pruned oldest first in batches, the newer ones kept', async () => {
    const old = (await server.post(PATH, templatePayload())).body.id as number;
    for (const title of ['A', 'B']) await server.patch(`${PATH}/${old}`, { title });
    const kept = (await server.post(PATH, templatePayload())).body.id as number;
    const { db } = server.service.database;
    const day = 24 * 60 * 60 * 1000;
    await db
      .updateTable('svc_changes')
      .set({ at: Date.now() - 400 * day })
      .where('record_id', '=', String(old))
      .execute();
    const pruned = await pruneHistory(server.service.database, Date.now() - 365 * day, 2);
    assert.equal(pruned, 3);
    assertJson(await server.get(`${PATH}/${old}/history`), 404);
    assert.equal((await history(server, kept)).length, 1);
  });
});

describe('ids are never reused (DESIGN.md 3.11)', { skip: sqlitePassOnly('SQLite tables') }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  it('every SQLite table keyed by an integer id is AUTOINCREMENT, so a row id always names one row', async () => {
    const tables = await server.service.database.db
      .selectFrom('sqlite_master')
      .select(['name', 'sql'])
      .where('type', '=', 'table')
      .execute();
    const rowid = tables.filter((t) =>
      /"?id"?\s+integer\s+(not null\s+)?primary key/i.test(String(t.sql)),
    );
    assert.ok(rowid.length > 5, JSON.stringify(tables.map((t) => t.name)));
    const reused = rowid.filter((t) => !/autoincrement/i.test(String(t.sql))).map((t) => t.name);
    assert.deepEqual(reused, []);
  });
});

describe('TENANT_ISOLATION=true: history, restore and the deleted records keep to the caller’s company', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ TENANT_ISOLATION: 'true' });
  });
  after(() => server?.close());

  it('another company’s record, live or deleted, is a 404 in history and restore and never listed as deleted; its own company sees and restores it', async () => {
    const other = await otherCompanyWriter(server);
    const theirs = { headers: bearer(other.token) };
    const created = await server.post(PATH, templatePayload({ title: 'theirs' }), theirs);
    assertJson(created, 201);
    const id = created.body.id as number;
    const [made] = (await server.get(`${PATH}/${id}/history`, theirs)).body.data;
    assertJson(await server.get(`${PATH}/${id}/history`), 404, { error: 'Resource not found' });
    assertJson(await server.post(`${PATH}/${id}/history/${made.seq}/restore`, {}), 404);
    assertJson(await server.delete(`${PATH}/${id}`, theirs), 200);
    assertJson(await server.get(`${PATH}/${id}/history`), 404, { error: 'Resource not found' });
    assertJson(await server.post(`${PATH}/${id}/history/${made.seq}/restore`, {}), 404);
    assert.deepEqual((await server.get(`${PATH}/deleted`)).body.data, []);
    const listed = (await server.get(`${PATH}/deleted`, theirs)).body.data;
    assert.deepEqual(
      listed.map((d: { id: number }) => d.id),
      [id],
    );
    assertJson(await server.post(`${PATH}/${id}/history/${made.seq}/restore`, {}, theirs), 201);
    assertJson(await server.get(`${PATH}/${id}`), 404);
    assertJson(await server.get(`${PATH}/${id}`, theirs), 200);
  });
});

describe('a resource that requires If-Match requires it of a restore of a live record', () => {
  const STRICT = '/api/strict-templates';
  let server: TestServer;
  before(async () => {
    server = await startTestServer(
      {},
      {
        resources: [
          ...serviceRoutes,
          {
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
          },
        ],
      },
    );
  });
  after(() => server?.close());

  it('without If-Match a 428 that changes nothing; with the current ETag the restore; a deleted record needs none', async () => {
    const created = await server.post(STRICT, templatePayload({ title: 'Strict' }));
    const id = created.body.id as number;
    const changed = await server.patch(
      `${STRICT}/${id}`,
      { title: 'Strict 2' },
      { headers: { 'if-match': created.headers.get('etag') ?? '' } },
    );
    assertJson(changed, 200);
    const [, first] = (await server.get(`${STRICT}/${id}/history`)).body.data;
    const restore = `${STRICT}/${id}/history/${first.seq}/restore`;
    assert.equal((await server.post(restore, {})).status, 428);
    assert.equal((await server.get(`${STRICT}/${id}`)).body.title, 'Strict 2');
    const etag = changed.headers.get('etag') ?? '';
    const restored = await server.post(restore, {}, { headers: { 'if-match': etag } });
    assertJson(restored, 200);
    assert.equal(restored.body.title, 'Strict');
    const current = restored.headers.get('etag') ?? '';
    assertJson(await server.delete(`${STRICT}/${id}`, { headers: { 'if-match': current } }), 200);
    assertJson(await server.post(restore, {}), 201);
  });
});
