// DESIGN.md 3.5: a unit with a connection keeps its data tables there while users and groups stay
// in the system database. A record of East's database carries its creator (a system row), its
// detail rows and every count (DESIGN.md 3.6) in list, show and write answers; the rules that name
// system tables (exists:users, exists:groups) check the system database; and a write is one
// transaction on the unit's database: a failure after the master's insert leaves nothing there.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { bearer } from '../helpers/bearer.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { ONCE, startUnitServer, UNIT_SETUPS, type UnitServer } from '../helpers/unit-databases.js';

const PATH = '/api/import-templates';

for (const setup of UNIT_SETUPS) {
  describe(`relations into the system database load for a unit's own database (${setup.name})`, {
    skip: ONCE || setup.skip,
  }, () => {
    let units: UnitServer;
    let east: Record<string, string>;
    let id: number;
    before(async () => {
      units = await startUnitServer(setup);
      east = bearer(units.eveToken);
    });
    after(() => units?.close());

    it('answers a create with the creator from the system database, the detail rows and the counts', async () => {
      const payload = templatePayload({
        title: 'East',
        groups: [{ group_id: units.groupId }],
        users: [{ user_id: units.eveId }, { user_id: 1 }],
      });
      const created = await units.server.post(PATH, payload, { headers: east });
      assertJson(created, 201);
      id = created.body.id;
      assert.deepStrictEqual(created.body.creator, {
        id: units.eveId,
        login: 'eve',
        name: 'User eve',
      });
      assert.deepStrictEqual(created.body.groups, [
        { id: 1, template_id: id, group_id: units.groupId },
      ]);
      assert.deepStrictEqual(created.body.users, [
        { id: 1, template_id: id, user_id: units.eveId },
        { id: 2, template_id: id, user_id: 1 },
      ]);
      assert.deepStrictEqual(
        [created.body.groups_count, created.body.users_count, created.body.logs_count],
        [1, 2, 0],
      );
    });

    it("loads the same creator, details and counts in show and list, logs counted in the unit's database", async () => {
      assertJson(
        await units.server.post(
          '/api/import-template-logs',
          { template_id: id, status: 'running' },
          { headers: east },
        ),
        201,
      );
      const shown = await units.server.get(`${PATH}/${id}`, { headers: east });
      assertJson(shown, 200);
      const listed = await units.server.get(PATH, { headers: east });
      assertJson(listed, 200);
      assert.equal(listed.body.data.length, 1);
      for (const record of [shown.body, listed.body.data[0]]) {
        assert.deepStrictEqual(record.creator, { id: units.eveId, login: 'eve', name: 'User eve' });
        assert.deepStrictEqual(
          record.groups.map((g: { group_id: number }) => g.group_id),
          [units.groupId],
        );
        assert.deepStrictEqual(
          record.users.map((u: { user_id: number }) => u.user_id),
          [units.eveId, 1],
        );
        assert.deepStrictEqual(
          [record.groups_count, record.users_count, record.logs_count],
          [1, 2, 1],
        );
      }
    });

    it('takes created_by from the payload when it names a user of the system database', async () => {
      const updated = await units.server.patch(
        `${PATH}/${id}`,
        { created_by: 1 },
        { headers: east },
      );
      assertJson(updated, 200);
      assert.deepStrictEqual(updated.body.creator, {
        id: 1,
        login: 'admin',
        name: 'Administrator',
      });
      assert.equal(units.eastRows('import_templates')[0]?.created_by, 1);
    });

    it('refuses users and groups that the system database lacks (exists rules read it)', async () => {
      const refused = await units.server.post(
        PATH,
        templatePayload({
          created_by: 999,
          groups: [{ group_id: 999 }],
          users: [{ user_id: 998 }],
        }),
        { headers: east },
      );
      assertJson(refused, 422, {
        message: 'The selected created by is invalid. (and 2 more errors)',
        errors: {
          created_by: ['The selected created by is invalid.'],
          'groups.0.group_id': ['The selected groups.0.group_id is invalid.'],
          'users.0.user_id': ['The selected users.0.user_id is invalid.'],
        },
      });
      assert.equal(units.eastRows('import_templates').length, 1);
    });

    it("rolls the unit's database back when a write fails after the master's insert", async () => {
      // A constraint only the database knows, in east's database: one row per group.
      await sql`create unique index east_one_row_per_group on import_template_groups (group_id)`.execute(
        units.east.db,
      );
      const before = {
        templates: units.eastRows('import_templates'),
        groups: units.eastRows('import_template_groups'),
      };
      const refused = await units.server.post(
        PATH,
        templatePayload({ title: 'Twice', groups: [{ group_id: units.groupId }] }),
        { headers: east },
      );
      assertJson(refused, 422, {
        message: 'The group id has already been taken.',
        errors: { group_id: ['The group id has already been taken.'] },
      });
      assert.deepStrictEqual(
        {
          templates: units.eastRows('import_templates'),
          groups: units.eastRows('import_template_groups'),
        },
        before,
      );
      assert.deepStrictEqual(await units.mainRows('import_templates'), []);
    });
  });
}
