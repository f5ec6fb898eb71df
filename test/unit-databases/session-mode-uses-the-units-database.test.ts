// SPEC.md 5 (session mode: the scope is the session's) with DESIGN.md 3.5: a session acts in its
// unit's database. eve's first unit is East, so her session reads and writes east's file; the
// admin's session (unit Main) sees the main database; a session switched to East sees east's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { type SessionClient, signedIn } from '../helpers/session-client.js';
import { linkUnit, USER_PASSWORD } from '../helpers/session-seed.js';
import { ONCE, startUnitServer, UNIT_SETUPS, type UnitServer } from '../helpers/unit-databases.js';

const PATH = '/api/import-templates';
const titles = (body: { data: Array<{ title: string }> }) => body.data.map((t) => t.title);

for (const setup of UNIT_SETUPS) {
  describe(`session mode uses the session unit's database (${setup.name})`, {
    skip: ONCE || setup.skip,
  }, () => {
    let units: UnitServer;
    let eve: SessionClient;
    let admin: SessionClient;
    before(async () => {
      units = await startUnitServer(setup, {}, { anonymous: true });
      eve = await signedIn(units.server.url, 'eve', USER_PASSWORD);
      admin = await signedIn(units.server.url);
    });
    after(() => units?.close());

    it('logs eve in to East, her first unit', async () => {
      const session = await eve.get('/app/session');
      assertJson(session, 200);
      assert.deepStrictEqual(session.body.unit, { id: units.eastUnitId, name: 'East' });
    });

    it("writes a template of eve's session to east's database, with the creator from the system one", async () => {
      const created = await eve.post(
        PATH,
        templatePayload({ title: 'Session East', users: [{ user_id: units.eveId }] }),
      );
      assertJson(created, 201);
      assert.deepStrictEqual(created.body.creator, {
        id: units.eveId,
        login: 'eve',
        name: 'User eve',
      });
      assert.deepStrictEqual([created.body.users_count, created.body.groups_count], [1, 0]);
      assert.deepStrictEqual(
        units.eastRows('import_templates').map((r) => r.title),
        ['Session East'],
      );
      assert.deepStrictEqual(await units.mainRows('import_templates'), []);
    });

    it("writes a template of the admin's session (unit Main) to the main database", async () => {
      assertJson(await admin.post(PATH, templatePayload({ title: 'Session Main' })), 201);
      assert.deepStrictEqual(
        (await units.mainRows('import_templates')).map((r) => r.title),
        ['Session Main'],
      );
      assert.deepStrictEqual(
        units.eastRows('import_templates').map((r) => r.title),
        ['Session East'],
      );
    });

    it("lists, shows, updates and deletes within the session unit's database only", async () => {
      const eastList = await eve.get(PATH);
      assertJson(eastList, 200);
      assert.deepStrictEqual(titles(eastList.body), ['Session East']);
      const mainList = await admin.get(PATH);
      assertJson(mainList, 200);
      assert.deepStrictEqual(titles(mainList.body), ['Session Main']);
      // Both databases hold a template 1: each session changes its own.
      assertJson(await eve.patch(`${PATH}/1`, { title: 'Session East 2' }), 200);
      assert.deepStrictEqual(
        units.eastRows('import_templates').map((r) => r.title),
        ['Session East 2'],
      );
      assert.deepStrictEqual(
        (await units.mainRows('import_templates')).map((r) => r.title),
        ['Session Main'],
      );
      assertJson(await eve.get(`${PATH}/2`), 404, { error: 'Resource not found' });
    });

    it("switches a session to East and then reads east's database", async () => {
      await linkUnit(units.main, 1, units.eastUnitId);
      assertJson(await admin.post('/app/session/unit', { unit_id: units.eastUnitId }), 200);
      const list = await admin.get(PATH);
      assertJson(list, 200);
      assert.deepStrictEqual(titles(list.body), ['Session East 2']);
      assertJson(await admin.delete(`${PATH}/1`), 200, {
        message: 'Resource deleted successfully',
      });
      assert.deepStrictEqual(units.eastRows('import_templates'), []);
      assert.deepStrictEqual(
        (await units.mainRows('import_templates')).map((r) => r.title),
        ['Session Main'],
      );
    });
  });
}
