// DESIGN.md 3.5 and SPEC.md 5 ("the unit fixes ... in multi-database set-ups, the database"): a
// bearer request reads and writes the data tables of its token's unit's database. A template
// written with a token of unit East (connection east) is in east's file and not in the main
// database; each unit's tokens see only their own database's templates, even where ids coincide.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer } from '../helpers/bearer.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { ONCE, startUnitServer, UNIT_SETUPS, type UnitServer } from '../helpers/unit-databases.js';

const PATH = '/api/import-templates';

for (const setup of UNIT_SETUPS) {
  describe(`a unit's data lives in its own database (${setup.name})`, {
    skip: ONCE || setup.skip,
  }, () => {
    let units: UnitServer;
    let east: Record<string, string>;
    before(async () => {
      units = await startUnitServer(setup);
      east = bearer(units.eveToken);
    });
    after(() => units?.close());

    it("stores a template created with an East token in east's database, not in the main one", async () => {
      const created = await units.server.post(
        PATH,
        templatePayload({ title: 'East A', groups: [{ group_id: units.groupId }] }),
        { headers: east },
      );
      assertJson(created, 201);
      assert.equal(created.body.id, 1);
      const stored = units.eastRows('import_templates');
      assert.deepStrictEqual(
        stored.map((r) => [r.id, r.title, r.created_by]),
        [[1, 'East A', units.eveId]],
      );
      assert.deepStrictEqual(
        units.eastRows('import_template_groups').map((r) => [r.template_id, r.group_id]),
        [[1, units.groupId]],
      );
      assert.deepStrictEqual(await units.mainRows('import_templates'), []);
      assert.deepStrictEqual(await units.mainRows('import_template_groups'), []);
    });

    it("stores a template created with a Main token in the main database, not in east's", async () => {
      for (const title of ['Main A', 'Main B'])
        assertJson(await units.server.post(PATH, templatePayload({ title })), 201);
      assert.deepStrictEqual(
        (await units.mainRows('import_templates')).map((r) => [Number(r.id), r.title]),
        [
          [1, 'Main A'],
          [2, 'Main B'],
        ],
      );
      assert.deepStrictEqual(
        units.eastRows('import_templates').map((r) => r.title),
        ['East A'],
      );
    });

    it('shows each unit the record of its own database under the same id', async () => {
      const mine = await units.server.get(`${PATH}/1`);
      assertJson(mine, 200);
      assert.equal(mine.body.title, 'Main A');
      const theirs = await units.server.get(`${PATH}/1`, { headers: east });
      assertJson(theirs, 200);
      assert.equal(theirs.body.title, 'East A');
    });

    it("deletes Main's template 1 without touching East's template 1", async () => {
      assertJson(await units.server.delete(`${PATH}/1`), 200, {
        message: 'Resource deleted successfully',
      });
      assert.deepStrictEqual(
        (await units.mainRows('import_templates')).map((r) => r.title),
        ['Main B'],
      );
      assert.deepStrictEqual(
        units.eastRows('import_templates').map((r) => r.title),
        ['East A'],
      );
      assert.deepStrictEqual(units.eastRows('import_template_groups').length, 1);
    });

    it("lists for Main only the main database's templates and for East only east's", async () => {
      const main = await units.server.get(PATH);
      assertJson(main, 200);
      assert.deepStrictEqual(
        main.body.data.map((t: { title: string }) => t.title),
        ['Main B'],
      );
      assert.equal(main.body.meta.total, 1);
      const eastList = await units.server.get(PATH, { headers: east });
      assertJson(eastList, 200);
      assert.deepStrictEqual(
        eastList.body.data.map((t: { title: string }) => t.title),
        ['East A'],
      );
      assert.equal(eastList.body.meta.total, 1);
    });

    it("answers Main 404 for East's template: show, update and delete", async () => {
      const notFound = { error: 'Resource not found' };
      // Id 1 now exists in east's database only.
      assertJson(await units.server.get(`${PATH}/1`), 404, notFound);
      assertJson(await units.server.patch(`${PATH}/1`, { title: 'Hijacked' }), 404, notFound);
      assertJson(await units.server.put(`${PATH}/1`, { title: 'Hijacked' }), 404, notFound);
      assertJson(await units.server.delete(`${PATH}/1`), 404, notFound);
      assert.deepStrictEqual(
        units.eastRows('import_templates').map((r) => r.title),
        ['East A'],
      );
    });

    it("answers East 404 for Main's template: show, update and delete", async () => {
      const notFound = { error: 'Resource not found' };
      // Id 2 exists in the main database only.
      assertJson(await units.server.get(`${PATH}/2`, { headers: east }), 404, notFound);
      assertJson(
        await units.server.patch(`${PATH}/2`, { title: 'Hijacked' }, { headers: east }),
        404,
        notFound,
      );
      assertJson(await units.server.delete(`${PATH}/2`, { headers: east }), 404, notFound);
      assert.deepStrictEqual(
        (await units.mainRows('import_templates')).map((r) => r.title),
        ['Main B'],
      );
    });

    it("updates East's template in east's database", async () => {
      const updated = await units.server.patch(
        `${PATH}/1`,
        { title: 'East A2', groups: [] },
        { headers: east },
      );
      assertJson(updated, 200);
      assert.equal(updated.body.title, 'East A2');
      assert.deepStrictEqual(
        units.eastRows('import_templates').map((r) => r.title),
        ['East A2'],
      );
      assert.deepStrictEqual(units.eastRows('import_template_groups'), []);
      assert.deepStrictEqual(
        (await units.mainRows('import_templates')).map((r) => r.title),
        ['Main B'],
      );
    });

    it("writes East's run logs to east's database, checking template_id there", async () => {
      const log = await units.server.post(
        '/api/import-template-logs',
        { template_id: 1, status: 'succeeded' },
        { headers: east },
      );
      assertJson(log, 201);
      assert.equal(log.body.unit_id, units.eastUnitId);
      assert.deepStrictEqual(
        units.eastRows('import_template_logs').map((r) => [r.template_id, r.unit_id]),
        [[1, units.eastUnitId]],
      );
      assert.deepStrictEqual(await units.mainRows('import_template_logs'), []);
      // Template 2 is Main's: not in East's database, so the exists rule refuses it.
      assertJson(
        await units.server.post(
          '/api/import-template-logs',
          { template_id: 2, status: 'succeeded' },
          { headers: east },
        ),
        422,
        {
          message: 'The selected template id is invalid.',
          errors: { template_id: ['The selected template id is invalid.'] },
        },
      );
    });

    it("deletes East's template and its detail rows from east's database", async () => {
      const created = await units.server.post(
        PATH,
        templatePayload({ title: 'East B', users: [{ user_id: units.eveId }] }),
        { headers: east },
      );
      assertJson(created, 201);
      assert.equal(units.eastRows('import_template_users').length, 1);
      assertJson(await units.server.delete(`${PATH}/${created.body.id}`, { headers: east }), 200, {
        message: 'Resource deleted successfully',
      });
      assert.deepStrictEqual(
        units.eastRows('import_templates').map((r) => r.title),
        ['East A2'],
      );
      assert.deepStrictEqual(units.eastRows('import_template_users'), []);
    });
  });
}
