// SPEC.md 5.1.2-3, DESIGN.md 3.4: the token fixes the unit; unit-bound entities (import-template
// logs) are filtered and stamped by it, and the client never chooses it. Import templates take
// the caller as `created_by` when the payload has none.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, issue, linkUnit, seedIdentity, seedUnit } from '../helpers/bearer.js';
import { assertJson, freshTimestamp } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const LOGS = '/api/import-template-logs';

describe('unit scope: import-template logs of unit A and unit B', () => {
  let server: TestServer;
  let unitA: number;
  let unitB: number;
  let tokenA: string;
  let tokenB: string;
  let templateId: number;
  const logsOfB: number[] = [];
  const logsOfA: number[] = [];
  /** The create answers by id: what list and show must answer for each log. */
  const records = new Map<number, Record<string, unknown>>();
  const page = (ids: number[]) => ({
    data: ids.map((id) => records.get(id)),
    meta: { total: ids.length, per_page: 15, current_page: 1, last_page: 1 },
  });

  before(async () => {
    server = await startTestServer({}, { anonymous: true });
    const { db } = server.service.database;
    unitA = 1; // Main
    unitB = await seedUnit(db, 'Branch', 1);
    await linkUnit(db, 1, unitB); // the same admin user, acting in another unit
    tokenA = (await issue(server, { unitId: unitA })).token;
    tokenB = (await issue(server, { unitId: unitB })).token;
    const template = await server.post('/api/import-templates', templatePayload(), {
      headers: bearer(tokenA),
    });
    assertJson(template, 201);
    templateId = template.body.id;
    for (const [token, ids] of [
      [tokenA, logsOfA],
      [tokenA, logsOfA],
      [tokenB, logsOfB],
    ] as const) {
      const created = await server.post(
        LOGS,
        { template_id: templateId, status: 'succeeded' },
        { headers: bearer(token) },
      );
      assertJson(created, 201);
      ids.push(created.body.id);
      records.set(created.body.id, created.body);
    }
  });
  after(() => server.close());

  it('stamps a created log with the token’s unit', async () => {
    assert.deepStrictEqual(
      [...records.values()].map((r) => r.unit_id),
      [unitA, unitA, unitB],
    );
    const rows = await server.service.database.db
      .selectFrom('import_template_logs')
      .select(['id', 'unit_id'])
      .orderBy('id')
      .execute();
    assert.deepStrictEqual(
      rows.map((r) => [Number(r.id), Number(r.unit_id)]),
      [
        [logsOfA[0], unitA],
        [logsOfA[1], unitA],
        [logsOfB[0], unitB],
      ],
    );
  });

  it('lists only the logs of the token’s unit', async () => {
    assertJson(
      await server.get(`${LOGS}?sort=id&direction=asc`, { headers: bearer(tokenA) }),
      200,
      page(logsOfA),
    );
    assertJson(await server.get(LOGS, { headers: bearer(tokenB) }), 200, page(logsOfB));
  });

  it('ignores a filter on unit_id: the scope cannot be widened from the query', async () => {
    const filtered = await server.get(
      `${LOGS}?sort=id&direction=asc&filters[unit_id][=]=${unitB}`,
      { headers: bearer(tokenA) },
    );
    assertJson(filtered, 200, page(logsOfA));
  });

  it('answers 404 Resource not found for another unit’s log', async () => {
    assertJson(await server.get(`${LOGS}/${logsOfB[0]}`, { headers: bearer(tokenA) }), 404, {
      error: 'Resource not found',
    });
    assertJson(await server.get(`${LOGS}/${logsOfA[0]}`, { headers: bearer(tokenB) }), 404, {
      error: 'Resource not found',
    });
  });

  it('shows the token’s own unit’s log', async () => {
    const id = logsOfB[0] ?? 0;
    assertJson(
      await server.get(`${LOGS}/${id}`, { headers: bearer(tokenB) }),
      200,
      records.get(id),
    );
  });

  it('overrides a forged unit_id in a create payload with the token’s unit', async () => {
    const since = new Date();
    const created = await server.post(
      LOGS,
      { template_id: templateId, status: 'failed', unit_id: unitB },
      { headers: bearer(tokenA) },
    );
    assertJson(created, 201, {
      id: created.body.id,
      template_id: templateId,
      unit_id: unitA,
      status: 'failed',
      message: null,
      rows_total: 0,
      rows_failed: 0,
      created_at: freshTimestamp(created.body.created_at, since),
    });
    const row = await server.service.database.db
      .selectFrom('import_template_logs')
      .select('unit_id')
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.unit_id), unitA);
    assertJson(await server.get(LOGS, { headers: bearer(tokenB) }), 200, page(logsOfB));
    await server.service.database.db
      .deleteFrom('import_template_logs')
      .where('id', '=', created.body.id)
      .execute();
  });

  it('counts only the token’s unit’s logs in an import template’s logs_count', async () => {
    const seenByA = await server.get(`/api/import-templates/${templateId}`, {
      headers: bearer(tokenA),
    });
    const seenByB = await server.get(`/api/import-templates/${templateId}`, {
      headers: bearer(tokenB),
    });
    assertJson(seenByA, 200);
    assertJson(seenByB, 200);
    assert.equal(seenByA.body.logs_count, logsOfA.length);
    assert.equal(seenByB.body.logs_count, logsOfB.length);
  });

  it('offers no update or delete of logs, so no unit can rewrite another’s', async () => {
    const target = `${LOGS}/${logsOfB[0]}`;
    for (const reply of [
      await server.put(target, { status: 'failed' }, { headers: bearer(tokenA) }),
      await server.patch(target, { status: 'failed' }, { headers: bearer(tokenA) }),
      await server.delete(target, { headers: bearer(tokenA) }),
    ]) {
      assertJson(reply, 404, { error: 'Not found' });
    }
    const row = await server.service.database.db
      .selectFrom('import_template_logs')
      .select('status')
      .where('id', '=', logsOfB[0] ?? 0)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'succeeded');
  });
});

describe('caller stamping: created_by of an import template', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({}, { anonymous: true });
  });
  after(() => server.close());

  it('defaults created_by to the token’s user when the payload has none', async () => {
    const who = await seedIdentity(server, 'carol', {
      abilities: ['import-templates.read', 'import-templates.write'],
    });
    const created = await server.post('/api/import-templates', templatePayload(), {
      headers: bearer(who.token),
    });
    assertJson(created, 201);
    assert.equal(created.body.created_by, who.userId);
    assert.deepStrictEqual(created.body.creator, {
      id: who.userId,
      login: 'carol',
      name: 'User carol',
    });
  });

  it('defaults created_by to the caller when the payload sends null', async () => {
    const who = await seedIdentity(server, 'dave', { abilities: ['import-templates.write'] });
    const created = await server.post(
      '/api/import-templates',
      templatePayload({ created_by: null }),
      { headers: bearer(who.token) },
    );
    assertJson(created, 201);
    assert.equal(created.body.created_by, who.userId);
  });

  it('keeps an explicit created_by', async () => {
    const who = await seedIdentity(server, 'erin', { abilities: ['import-templates.write'] });
    const created = await server.post('/api/import-templates', templatePayload({ created_by: 1 }), {
      headers: bearer(who.token),
    });
    assertJson(created, 201);
    assert.equal(created.body.created_by, 1);
  });
});
