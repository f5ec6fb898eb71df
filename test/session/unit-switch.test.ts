// DESIGN.md 3.5/3.6: a session acts in the user's unit with the lowest link id; POST
// /app/session/unit {unit_id} switches among the user's units and a unit not of the user is a
// 403. The session's unit scopes unit-bound entities (import-template logs, DESIGN.md 3.4)
// exactly as a token's unit does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertJson } from '../helpers/http.js';
import { insertRow } from '../helpers/rows.js';
import { templatePayload } from '../helpers/seed.js';
import { type SessionClient, signedIn } from '../helpers/session-client.js';
import { linkUnit, seedUnit } from '../helpers/session-seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const LOGS = '/api/import-template-logs?sort=id&direction=asc';
const UNAUTHORIZED = { message: 'This action is unauthorized.' };

describe('session mode: switching units', () => {
  let server: TestServer;
  let session: SessionClient;
  let second: number;
  let foreign: number;
  let templateId: number;
  const logsOfMain: number[] = [];

  const ids = async (client: SessionClient) => {
    const reply = await client.get(LOGS);
    assertJson(reply, 200);
    assert.equal(reply.body.meta.total, reply.body.data.length);
    return reply.body.data.map((r: { id: number }) => r.id);
  };
  const unitOf = async (client: SessionClient) => (await client.get('/app/session')).body.unit;

  before(async () => {
    server = await startTestServer({}, { anonymous: true });
    const { db } = server.service.database;
    second = await seedUnit(db, 'Second');
    foreign = await seedUnit(db, 'Foreign');
    await linkUnit(db, 1, second); // the admin's second unit; Foreign is not theirs
    session = await signedIn(server.url);
    const template = await session.post('/api/import-templates', templatePayload());
    assertJson(template, 201);
    templateId = template.body.id;
    for (const status of ['succeeded', 'failed']) {
      const log = await session.post('/api/import-template-logs', {
        template_id: templateId,
        status,
      });
      assertJson(log, 201);
      assert.equal(log.body.unit_id, 1);
      logsOfMain.push(log.body.id);
    }
  });
  after(() => server.close());

  it('starts the session in the user’s first unit and lists that unit’s logs', async () => {
    const fresh = await signedIn(server.url);
    assert.deepStrictEqual(await unitOf(fresh), { id: 1, name: 'Main' });
    assert.deepStrictEqual(await ids(fresh), logsOfMain);
  });

  it('lists the units the session can switch to (the user’s, in link order), not another’s', async () => {
    const client = await signedIn(server.url);
    const expected = [
      { id: 1, name: 'Main' },
      { id: second, name: 'Second' },
    ];
    assert.deepStrictEqual((await client.get('/app/session')).body.units, expected);
    const switched = await client.post('/app/session/unit', { unit_id: second });
    assert.deepStrictEqual(switched.body.units, expected);
  });

  it('switches to another unit of the user and then lists only that unit’s logs', async () => {
    const client = await signedIn(server.url);
    const switched = await client.post('/app/session/unit', { unit_id: second });
    assertJson(switched, 200);
    assert.deepStrictEqual(switched.body.unit, { id: second, name: 'Second' });
    assert.equal(switched.body.user.id, 1);
    assert.equal(typeof switched.body.csrf_token, 'string');
    assert.deepStrictEqual(await unitOf(client), { id: second, name: 'Second' });
    assert.deepStrictEqual(await ids(client), []);

    const log = await client.post('/api/import-template-logs', {
      template_id: templateId,
      status: 'queued',
    });
    assertJson(log, 201);
    assert.equal(log.body.unit_id, second);
    assert.deepStrictEqual(await ids(client), [log.body.id]);
    assertJson(await client.get(`/api/import-template-logs/${logsOfMain[0]}`), 404, {
      error: 'Resource not found',
    });

    assertJson(await client.post('/app/session/unit', { unit_id: 1 }), 200);
    assert.deepStrictEqual(await ids(client), logsOfMain);
    assertJson(await client.get(`/api/import-template-logs/${log.body.id}`), 404, {
      error: 'Resource not found',
    });
  });

  it('accepts the CSRF token the switch answers with', async () => {
    const client = await signedIn(server.url);
    const switched = await client.post('/app/session/unit', { unit_id: second });
    assertJson(switched, 200);
    assertJson(
      await client.post('/app/session/unit', { unit_id: 1 }, { csrf: switched.body.csrf_token }),
      200,
    );
  });

  it('switches only its own session: another session of the same user keeps its unit', async () => {
    const mover = await signedIn(server.url);
    const stayer = await signedIn(server.url);
    assertJson(await mover.post('/app/session/unit', { unit_id: second }), 200);
    assert.deepStrictEqual(await unitOf(stayer), { id: 1, name: 'Main' });
    assert.deepStrictEqual(await ids(stayer), logsOfMain);
  });

  it('refuses a unit not of the user with 403 and keeps the current unit', async () => {
    const client = await signedIn(server.url);
    assertJson(await client.post('/app/session/unit', { unit_id: foreign }), 403, UNAUTHORIZED);
    assertJson(await client.post('/app/session/unit', { unit_id: 999999 }), 403, UNAUTHORIZED);
    assert.deepStrictEqual(await unitOf(client), { id: 1, name: 'Main' });
    assert.deepStrictEqual(await ids(client), logsOfMain);
  });

  it('refuses an inactive unit of the user, or one of an inactive company, with 403 and stays usable', async () => {
    const { db } = server.service.database;
    const now = new Date().toISOString();
    const closed = await seedUnit(db, 'Closed');
    await db.updateTable('units').set({ active: 'N' }).where('id', '=', closed).execute();
    const company = await insertRow(db, 'companies', {
      name: 'Dormant',
      active: 'N',
      created_at: now,
      updated_at: now,
    });
    const dormant = await seedUnit(db, 'Of a dormant company', company);
    await linkUnit(db, 1, closed);
    await linkUnit(db, 1, dormant);
    const client = await signedIn(server.url);
    assertJson(await client.post('/app/session/unit', { unit_id: closed }), 403, UNAUTHORIZED);
    assertJson(await client.post('/app/session/unit', { unit_id: dormant }), 403, UNAUTHORIZED);
    assert.deepStrictEqual(await unitOf(client), { id: 1, name: 'Main' });
    assertJson(await client.post('/app/logout'), 200);
  });

  it('lets a user set up through the API in session mode (/api/units, /api/users) switch into the new unit', async () => {
    const unit = await session.post('/api/units', { name: 'Made by a session', company_id: 1 });
    assertJson(unit, 201);
    const created = await session.post('/api/users', {
      login: 'operator',
      name: 'Operator',
      password: 'operator-password',
      units: [{ unit_id: 1 }, { unit_id: unit.body.id }],
    });
    assertJson(created, 201);
    const operator = await signedIn(server.url, 'operator', 'operator-password');
    assert.deepStrictEqual(await unitOf(operator), { id: 1, name: 'Main' });
    assertJson(await operator.post('/app/session/unit', { unit_id: unit.body.id }), 200);
    assert.deepStrictEqual(await unitOf(operator), { id: unit.body.id, name: 'Made by a session' });
    assert.deepStrictEqual(await ids(operator), []);
    assertJson(await operator.post('/app/session/unit', { unit_id: second }), 403, UNAUTHORIZED);
  });

  it('answers 422 when unit_id is missing or not an id', async () => {
    const client = await signedIn(server.url);
    const required = {
      message: 'The unit id field is required.',
      errors: { unit_id: ['The unit id field is required.'] },
    };
    assertJson(await client.post('/app/session/unit', {}), 422, required);
    assertJson(await client.post('/app/session/unit', { unit_id: 'two' }), 422, required);
  });
});
