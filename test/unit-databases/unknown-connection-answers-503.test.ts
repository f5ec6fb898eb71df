// DESIGN.md 3.5: a unit whose `connection` names no DB_CONNECTIONS entry has its data nowhere the
// service can reach. Its resource requests answer 503 JSON saying so (never the main database's
// data instead), the service logs it once, and the session routes that need no data (the session,
// a unit switch, logout) still work, so its users can leave it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, issue } from '../helpers/bearer.js';
import { assertJson } from '../helpers/http.js';
import { insertRow } from '../helpers/rows.js';
import { templatePayload } from '../helpers/seed.js';
import { signedIn } from '../helpers/session-client.js';
import { linkUnit, seedLoginUser, USER_PASSWORD } from '../helpers/session-seed.js';
import { ONCE, startUnitServer, UNIT_SETUPS, type UnitServer } from '../helpers/unit-databases.js';

const PATH = '/api/import-templates';
const UNAVAILABLE = {
  message: 'The database of this unit is unavailable: its connection "nope" is not configured.',
};

for (const setup of UNIT_SETUPS) {
  describe(`a unit whose connection is not configured answers 503 (${setup.name})`, {
    skip: ONCE || setup.skip,
  }, () => {
    let units: UnitServer;
    let nowhere: Record<string, string>;
    let noraId: number;
    let nowhereUnitId: number;
    const logged: Array<{ level: number; msg: string }> = [];
    before(async () => {
      const stream = { write: (line: string) => void logged.push(JSON.parse(line)) };
      units = await startUnitServer(setup, {}, { logger: { level: 'warn', stream } });
      const now = new Date().toISOString();
      nowhereUnitId = await insertRow(units.main, 'units', {
        name: 'Nowhere',
        company_id: 1,
        connection: 'nope',
        active: 'Y',
        created_at: now,
        updated_at: now,
      });
      noraId = await seedLoginUser(units.main, 'nora', [nowhereUnitId]);
      nowhere = bearer(
        (await issue(units.server, { userId: noraId, unitId: nowhereUnitId })).token,
      );
      // Main already holds a template 1: it must never be the answer for unit Nowhere.
      assertJson(await units.server.post(PATH, templatePayload({ title: 'Main only' })), 201);
    });
    after(() => units?.close());

    it('answers every resource request of the unit 503 JSON naming the connection', async () => {
      assertJson(await units.server.get(PATH, { headers: nowhere }), 503, UNAVAILABLE);
      assertJson(await units.server.get(`${PATH}/1`, { headers: nowhere }), 503, UNAVAILABLE);
      assertJson(
        await units.server.post(PATH, templatePayload({ title: 'Lost' }), { headers: nowhere }),
        503,
        UNAVAILABLE,
      );
      assertJson(
        await units.server.patch(`${PATH}/1`, { title: 'Lost' }, { headers: nowhere }),
        503,
        UNAVAILABLE,
      );
      assertJson(await units.server.delete(`${PATH}/1`, { headers: nowhere }), 503, UNAVAILABLE);
      assertJson(
        await units.server.get('/api/import-template-logs', { headers: nowhere }),
        503,
        UNAVAILABLE,
      );
    });

    it("leaves the main database's data untouched", async () => {
      assert.deepStrictEqual(
        (await units.mainRows('import_templates')).map((r) => r.title),
        ['Main only'],
      );
      assert.deepStrictEqual(units.eastRows('import_templates'), []);
    });

    it('logs the unconfigured connection once', () => {
      const lines = logged.filter((l) => l.msg.includes('"nope"'));
      assert.deepStrictEqual(
        lines.map((l) => [l.level, l.msg]),
        [
          [
            50,
            'A unit names connection "nope", which DB_CONNECTIONS does not configure; its requests answer 503.',
          ],
        ],
      );
    });

    it("answers the unit's session 503 on resources, yet lets it read the session, switch unit and log out", async () => {
      await linkUnit(units.main, noraId, 1);
      const nora = await signedIn(units.server.url, 'nora', USER_PASSWORD);
      assertJson(await nora.get(PATH), 503, UNAVAILABLE);
      const session = await nora.get('/app/session');
      assertJson(session, 200);
      assert.deepStrictEqual(session.body.unit, { id: nowhereUnitId, name: 'Nowhere' });
      assertJson(await nora.post('/app/session/unit', { unit_id: 1 }), 200);
      const list = await nora.get(PATH);
      assertJson(list, 200);
      assert.deepStrictEqual(
        list.body.data.map((t: { title: string }) => t.title),
        ['Main only'],
      );
      assertJson(await nora.post('/app/logout'), 200, { message: 'Logged out.' });
    });
  });
}
