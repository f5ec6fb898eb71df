// DESIGN.md 4 with DESIGN.md 3.5: a request of a unit with its own database runs a fixed number
// of statements whatever the page size, counted on both databases it touches (statementCount is
// per database): the system one (token check, creators) and the unit's (count, page with the
// counts as sub-queries, detail rows). A write's transaction is on the unit's database only.
//
// Statements per bearer request of unit East, as asserted below (system + unit). The unit's
// record select carries the group and user rows as JSON columns where its engine has
// DialectAdapter.childRows (SQLite); elsewhere they are one batched statement each
// ("+ groups, users" below).
//   list    2 + 2   token; creator  |  count, page                       (+ groups, users)
//   show    2 + 1   token; creator  |  record                            (+ groups, users)
//   create  3 + 7   token; exists groups.id and users.id (one statement: created_by and user
//                   rows batched, the two lookups a union), creator
//                   |  begin, insert master, insert groups, insert users, record, change, commit
//                                                                        (+ groups, users)
//   update  3 + 9   token; exists groups.id and users.id, creator  |  begin, master with its
//                   stored groups and users, update master, delete gone groups, insert groups,
//                   delete gone users, record, change, commit
//                                          (+ stored groups, stored users, groups, users)
//   delete  1 + 7   token  |  begin, master, delete groups, delete users, delete master, change,
//                   commit
// The change (DESIGN.md 3.9), which is its revision too (3.11), is appended in the unit's
// database, one statement; on PostgreSQL and MySQL its numbering after the commit adds 1 (7)
// there (database/change-statements.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { numberingSettled } from '../../src/engine/changes/committed.js';
import { bearer } from '../helpers/bearer.js';
import { assertJson, type Reply } from '../helpers/http.js';
import { insertRow } from '../helpers/rows.js';
import { templatePayload } from '../helpers/seed.js';
import { ONCE, startUnitServer, UNIT_SETUPS, type UnitServer } from '../helpers/unit-databases.js';

const PATH = '/api/import-templates';
const TEMPLATES = 60;

for (const setup of UNIT_SETUPS) {
  describe(`statement counts stay fixed across the system and unit databases (${setup.name})`, {
    skip: ONCE || setup.skip,
  }, () => {
    let units: UnitServer;
    let east: Record<string, string>;
    /** The statements of the two has-many relations where the record's select cannot carry them. */
    let relationReads: number;
    /** The statements of a write's change: its INSERT, and its numbering on PostgreSQL and MySQL. */
    let changeAppend: number;

    /** The reply of `request` and the statements it ran on each database. */
    async function measure(
      request: () => Promise<Reply>,
    ): Promise<{ reply: Reply; system: number; unit: number }> {
      // A write's change is numbered after its answer, where the engine does that: counted too,
      // and an earlier write's numbering is not.
      await numberingSettled(units.east);
      const start = units.statements();
      const reply = await request();
      await numberingSettled(units.east);
      const end = units.statements();
      return { reply, system: end.system - start.system, unit: end.unit - start.unit };
    }

    before(async () => {
      units = await startUnitServer(setup);
      east = bearer(units.eveToken);
      relationReads = units.east.adapter.childRows ? 0 : 2;
      // The INSERT of the change (its revision's record included); where seqs are given after
      // the commit, its numbering too: PostgreSQL one statement, its own transaction; MySQL
      // begin, lock the counter, the changes waiting, number them, move the counter, read them
      // back, commit.
      changeAppend =
        1 + (units.east.adapter.numberChanges ? (units.east.adapter.name === 'mysql' ? 7 : 1) : 0);
      // Set-up straight into east's database (test/helpers/templates.ts would read creators there).
      await units.east.db.transaction().execute(async (trx) => {
        for (let i = 0; i < TEMPLATES; i++) {
          const stamp = new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString();
          const id = await insertRow(trx, 'import_templates', {
            ...templatePayload({ title: `T${String(i).padStart(3, '0')}` }),
            created_by: i % 2 === 0 ? units.eveId : 1,
            created_at: stamp,
            updated_at: stamp,
          });
          await insertRow(trx, 'import_template_groups', {
            template_id: id,
            group_id: units.groupId,
          });
          await insertRow(trx, 'import_template_users', { template_id: id, user_id: units.eveId });
          await insertRow(trx, 'import_template_logs', {
            template_id: id,
            unit_id: units.eastUnitId,
            status: 'succeeded',
            created_at: stamp,
          });
        }
      });
      // Warm-up: the token's first use records last_used_at (once a minute at most).
      assertJson(await units.server.get(`${PATH}?per_page=1`, { headers: east }), 200);
    });
    after(() => units?.close());

    it('a list runs the same statements for per_page=1 and per_page=50: 2 system + 2 unit (+ 2 without childRows)', async () => {
      const measured: string[] = [];
      for (const query of [
        'per_page=1',
        'per_page=50',
        'per_page=50&page=2',
        'per_page=50&filters[title][like]=T0%25',
      ]) {
        const { reply, system, unit } = await measure(() =>
          units.server.get(`${PATH}?${query}`, { headers: east }),
        );
        assertJson(reply, 200);
        assert.ok(reply.body.data.length > 0, query);
        // Both creators (eve and admin) appear on every page of more than one record.
        assert.ok(
          reply.body.data.every((t: { creator: unknown }) => t.creator !== null),
          query,
        );
        measured.push(`${query}: ${system} + ${unit}`);
        assert.deepStrictEqual(
          { system, unit },
          { system: 2, unit: 2 + relationReads },
          measured.join('; '),
        );
      }
      const fifty = await units.server.get(`${PATH}?per_page=50`, { headers: east });
      assert.equal(fifty.body.data.length, 50);
    });

    it('a show runs 2 system + 1 unit statements (+ 2 without childRows)', async () => {
      const { reply, system, unit } = await measure(() =>
        units.server.get(`${PATH}/1`, { headers: east }),
      );
      assertJson(reply, 200);
      assert.deepStrictEqual({ system, unit }, { system: 2, unit: 1 + relationReads });
    });

    it('a create runs 3 system + 7 unit statements (+ 2 without childRows), whatever the number of detail rows', async () => {
      for (const rows of [1, 40]) {
        const payload = templatePayload({
          groups: Array.from({ length: rows }, () => ({ group_id: units.groupId })),
          users: Array.from({ length: rows }, () => ({ user_id: units.eveId })),
        });
        const { reply, system, unit } = await measure(() =>
          units.server.post(PATH, payload, { headers: east }),
        );
        assertJson(reply, 201);
        assert.equal(reply.body.users.length, rows);
        assert.deepStrictEqual(
          { system, unit },
          { system: 3, unit: 6 + changeAppend + relationReads },
          `${rows} rows per detail relation`,
        );
      }
    });

    it('an update of the master and both detail relations runs 3 system + 9 unit statements (+ 4 without childRows)', async () => {
      const { reply, system, unit } = await measure(() =>
        units.server.put(
          `${PATH}/2`,
          { title: 'Both', groups: [{ group_id: units.groupId }], users: [] },
          { headers: east },
        ),
      );
      assertJson(reply, 200);
      assert.deepStrictEqual(
        { system, unit },
        { system: 3, unit: 8 + changeAppend + 2 * relationReads },
      );
    });

    it('a delete runs 1 system + 7 unit statements', async () => {
      const { reply, system, unit } = await measure(() =>
        units.server.delete(`${PATH}/3`, { headers: east }),
      );
      assertJson(reply, 200, { message: 'Resource deleted successfully' });
      assert.deepStrictEqual({ system, unit }, { system: 1, unit: 6 + changeAppend });
    });
  });
}
