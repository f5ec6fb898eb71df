// DESIGN.md 4, performance by design: a list runs a fixed number of SQL statements whatever the
// page size (eager loads and counts batched, never one query per row), and every action has a
// known statement budget. Exact budgets are measured on the import-template resource mounted
// without middleware, so they count the engine alone; through the real server the bearer
// guard's own statements come on top, the same for every request.
//
// Engine statements per request, as asserted below. The record's own select carries its
// creator (a join), its logs count (a sub-query), and, on an engine with
// DialectAdapter.childRows (SQLite, PostgreSQL, MariaDB/MySQL), its group and user rows as JSON
// columns; elsewhere those two relations are read by one batched statement each ("+ groups,
// users" below). A write reads its stored detail rows with its locked master row where
// DialectAdapter.childRowsUnderLock (SQLite) or, for a versioned entity such as this one, where
// the version its sub-queries saw is the locked row's (PostgreSQL; after a wait for the lock,
// by one statement more), else one statement each ("+ stored").
//   list    2  count, page                                               (+ groups, users)
//   show    1  record                                                    (+ groups, users)
//   create  8  begin, exists groups.id and users.id (one statement: created_by and user rows
//              batched, the two lookups a union), insert master, insert groups (one multi-row
//              insert), insert users, reload, append change, commit
//                                                                       (+ groups, users)
//   update 10  begin, master with its stored groups and users (+ stored groups, stored users),
//              exists groups.id and users.id, update master, delete gone groups,
//              insert new groups, delete gone users, reload, append change, commit (each
//              changed existing detail row adds one update)              (+ groups, users)
//   delete  7  begin, master, delete groups, delete users, delete master, append change, commit
// Appending a change (DESIGN.md 3.9), which is its revision too (3.11), is one statement; on
// PostgreSQL and MySQL its numbering follows the answer, counted with it ("+ numbering" below: 1
// statement on PostgreSQL, its own transaction, 7 on MySQL; database/change-statements.ts).
// Where the engine combines writes (DialectAdapter.runWrites, PostgreSQL), a record's
// INSERT, UPDATE and DELETE statements between two reads go as one ("- combined" below: create
// 1 less, update 3 less when both relations change, delete 2 less).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importTemplates } from '../../src/app/resources/import-templates.js';
import { keptReadsOf } from '../../src/database/kept-reads.js';
import { type FixtureApp, startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson, type Reply } from '../helpers/http.js';
import { seedGroups, seedUsers, templatePayload } from '../helpers/seed.js';
import { insertTemplate } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const TEMPLATES = 250;

describe('DESIGN 4 statement budgets', () => {
  let server: TestServer;
  let engine: FixtureApp;
  let alice: number;
  let g1: number;
  let firstId: number;
  /** The statements of the two has-many relations where the record's select cannot carry them. */
  let relationReads: number;
  /** The page carries its exact total (PostgreSQL: list-total.ts carriedTotal). */
  let totalCarried: boolean;
  /** The statements of a write's two stored detail relations where its locked read cannot carry them. */
  let storedReads: number;
  /** The statements of a write's change: its INSERT, and its numbering where the engine numbers after the commit. */
  let changeAppend: number;
  /** `n` write statements in a row, as the engine sends them: one where it combines writes. */
  let writes: (n: number) => number;

  /** The reply of `request` and the statements it ran. */
  async function measure(
    request: () => Promise<Reply>,
  ): Promise<{ reply: Reply; statements: number }> {
    const { value: reply, statements } = await server.counted(request);
    return { reply, statements };
  }

  before(async () => {
    server = await startTestServer();
    const db = server.service.database.db;
    [alice] = (await seedUsers(db, ['alice'])) as [number];
    [g1] = (await seedGroups(db, ['g1'])) as [number];
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < TEMPLATES; i++) {
        const record = await insertTemplate(trx, {
          title: `T${String(i).padStart(3, '0')}`,
          created_by: alice,
          groups: [g1],
          users: [alice],
          logs: 1,
        });
        if (i === 0) firstId = record.id;
      }
    });
    const { adapter } = server.service.database;
    relationReads = adapter.childRows ? 0 : 2;
    totalCarried = keptReadsOf(server.service.database.db) !== null;
    // The templates have a version: the locking read carries their rows on every engine with
    // childRows (stored-details.ts), and one more statement reads them only after a lock wait.
    storedReads = !adapter.childRows ? 2 : 0;
    // The INSERT of the change (its revision's record included); where seqs are given after the
    // commit, its numbering too: PostgreSQL one statement, its own transaction; MySQL begin, lock
    // the counter, the changes waiting, number them, move the counter, read them back, commit.
    changeAppend = 1 + (adapter.numberChanges ? (adapter.name === 'mysql' ? 7 : 1) : 0);
    writes = (n) => (adapter.runWrites ? 1 : n);
    engine = await startFixtureApp(server.service.database, [
      { path: PATH, resource: importTemplates },
    ]);
  });
  after(async () => {
    await engine.close();
    await server.close();
  });

  it('a list runs the same number of statements for per_page=1 and per_page=200 through the real server', async () => {
    await server.get(`${PATH}?per_page=1`); // warm-up: the guard may record a token's first use
    const counts: number[] = [];
    for (const query of [
      'per_page=1',
      'per_page=200',
      'per_page=15&page=3',
      'per_page=200&page=2',
      'per_page=200&filters[title][like]=T1%25',
    ]) {
      const { reply, statements } = await measure(() => server.get(`${PATH}?${query}`));
      assertJson(reply, 200);
      assert.ok(reply.body.data.length > 0);
      counts.push(statements);
    }
    assert.deepEqual(new Set(counts).size, 1, `statements per list request: ${counts.join(', ')}`);
  });

  it('list: 2 statements for 1 or 200 items (count, page with its creator, counts and detail rows; + 2 without childRows), 1 where the page carries its total (PostgreSQL)', async () => {
    for (const perPage of [1, 200]) {
      const { reply, statements } = await measure(() => engine.get(`${PATH}?per_page=${perPage}`));
      assertJson(reply, 200);
      assert.equal(reply.body.data.length, perPage);
      assert.equal(reply.body.data[0].logs_count, 1);
      assert.equal(statements, (totalCarried ? 1 : 2) + relationReads, `per_page=${perPage}`);
    }
  });

  it('show: 1 statement (the record with its creator, counts and detail rows; + 2 without childRows)', async () => {
    const { reply, statements } = await measure(() => engine.get(`${PATH}/${firstId}`));
    assertJson(reply, 200);
    assert.equal(statements, 1 + relationReads);
    assert.equal(reply.body.groups.length, 1);
  });

  it('create: 8 statements (+ 2 without childRows, + numbering, - combined), whatever the number of detail rows', async () => {
    for (const rows of [1, 50]) {
      const payload = templatePayload({
        created_by: alice,
        groups: Array.from({ length: rows }, () => ({ group_id: g1 })),
        users: Array.from({ length: rows }, () => ({ user_id: alice })),
      });
      const { reply, statements } = await measure(() => engine.post(PATH, payload));
      assertJson(reply, 201);
      assert.equal(reply.body.groups.length, rows);
      assert.equal(
        statements,
        5 + writes(2) + changeAppend + relationReads,
        `${rows} rows per detail relation`,
      );
    }
  });

  it('update: 10 statements when both detail relations change, 7 for the master alone (+ 4 and + 2 without childRows, + numbering, - combined)', async () => {
    const created = await engine.post(
      PATH,
      templatePayload({
        created_by: alice,
        groups: [{ group_id: g1 }, { group_id: g1 }],
        users: [{ user_id: alice }],
      }),
    );
    assertJson(created, 201);
    const both = await measure(() =>
      engine.put(`${PATH}/${created.body.id}`, {
        title: 'Both',
        groups: [{ group_id: g1 }],
        users: [],
      }),
    );
    assertJson(both.reply, 200);
    // Without childRows the stored rows of the two relations take one statement each.
    // The writes: the master, the groups gone, the new group, the users gone.
    assert.equal(both.statements, 5 + writes(4) + changeAppend + storedReads + relationReads);
    const masterOnly = await measure(() =>
      engine.patch(`${PATH}/${created.body.id}`, { title: 'Master only' }),
    );
    assertJson(masterOnly.reply, 200);
    assert.equal(masterOnly.statements, 6 + changeAppend + relationReads);
  });

  it('delete: 7 statements (begin, master, groups, users, master delete, change, commit; + numbering, - combined)', async () => {
    const created = await engine.post(
      PATH,
      templatePayload({
        created_by: alice,
        groups: [{ group_id: g1 }],
        users: [{ user_id: alice }],
      }),
    );
    const { reply, statements } = await measure(() => engine.delete(`${PATH}/${created.body.id}`));
    assertJson(reply, 200, { message: 'Resource deleted successfully' });
    assert.equal(statements, 3 + writes(3) + changeAppend);
  });
});
