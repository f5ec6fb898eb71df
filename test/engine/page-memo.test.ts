// Issue 22: on PostgreSQL a list's page is kept with the snapshot it was read in, and read again
// only when a later statement's snapshot differs (engine/actions/list.ts, the `memoised`
// statement). What must hold on every engine: a list answers what the database holds now,
// whoever changed it. A second connection (another instance, an operator's SQL) makes random
// changes between lists; each list is compared with a reference read straight from the
// database (the ids in order, the total) and with each record's own show.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../../src/config/config.js';
import { connectDatabase } from '../../src/database/connect.js';
import type { Database } from '../../src/database/database.js';
import { bearer, issue, seedIdentity } from '../helpers/bearer.js';
import { testEngine, testPoolerUrl } from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { seedGroups, seedUsers, templatePayload } from '../helpers/seed.js';
import { insertTemplate } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const memoised = testEngine === 'postgres';

/** A pseudo-random sequence that a failure can be replayed from. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

interface ListCase {
  readonly sort: 'title' | 'created_at';
  readonly direction: 'asc' | 'desc';
  readonly page: number;
  readonly activeOnly: boolean;
}

describe('a list answers what the database holds now, whoever changed it', () => {
  let server: TestServer;
  let elsewhere: Database;
  let users: number[];
  let groups: number[];

  before(async () => {
    server = await startTestServer();
    elsewhere = connectDatabase(server.databaseUrl, loadConfig({ DATA_DIR: server.dataDir }));
    users = await seedUsers(elsewhere.db, ['memo-a', 'memo-b']);
    groups = await seedGroups(elsewhere.db, ['memo-g1', 'memo-g2']);
    for (let i = 0; i < 8; i++)
      await insertTemplate(elsewhere.db, {
        title: `Memo ${String.fromCharCode(65 + i)}`,
        active: i % 2 ? 'Y' : 'N',
        created_by: users[i % 2]!,
        created_at: `2024-02-0${i + 1}T00:00:00.000Z`,
        groups: i % 3 ? [groups[0]!] : [],
      });
  });
  after(async () => {
    await elsewhere?.close();
    await server?.close();
  });

  /** The ids of the page and the total, read straight from the database. */
  async function reference(c: ListCase): Promise<{ ids: number[]; total: number }> {
    let query = elsewhere.db.selectFrom('import_templates').select(['id']);
    if (c.activeOnly) query = query.where('active', '=', 'Y');
    const all = await query.orderBy(c.sort, c.direction).orderBy('id', c.direction).execute();
    const ids = all.map((r) => Number(r.id));
    return { ids: ids.slice((c.page - 1) * 3, c.page * 3), total: ids.length };
  }

  async function listed(c: ListCase) {
    const filter = c.activeOnly ? '&filters[active][=]=Y' : '';
    const reply = await server.get(
      `${PATH}?sort=${c.sort}&direction=${c.direction}&per_page=3&page=${c.page}${filter}`,
    );
    assertJson(reply, 200);
    return reply.body as { data: Array<Record<string, unknown>>; meta: { total: number } };
  }

  /** One change by the other connection. */
  async function change(pick: number, n: number): Promise<string> {
    const db = elsewhere.db;
    const ids = (await db.selectFrom('import_templates').select('id').execute()).map((r) =>
      Number(r.id),
    );
    const id = ids[n % ids.length]!;
    switch (pick) {
      case 0:
        await db
          .updateTable('import_templates')
          .set({ title: `Memo retitled ${n}` })
          .where('id', '=', id)
          .execute();
        return `retitled ${id}`;
      case 1:
        await db
          .insertInto('import_template_groups')
          .values({ template_id: id, group_id: groups[n % 2]! })
          .execute();
        return `group row added to ${id}`;
      case 2:
        await db.deleteFrom('import_template_groups').where('template_id', '=', id).execute();
        return `group rows of ${id} deleted`;
      case 3:
        await db
          .updateTable('users')
          .set({ name: `Renamed ${n}` })
          .where('id', '=', users[n % 2]!)
          .execute();
        return `creator ${users[n % 2]} renamed`;
      case 4:
        await db
          .updateTable('import_templates')
          .set({ active: n % 2 ? 'Y' : 'N' })
          .where('id', '=', id)
          .execute();
        return `active of ${id} set`;
      case 5:
        if (ids.length <= 4) return 'nothing';
        await db.deleteFrom('import_template_groups').where('template_id', '=', id).execute();
        await db.deleteFrom('import_template_users').where('template_id', '=', id).execute();
        await db.deleteFrom('import_template_logs').where('template_id', '=', id).execute();
        await db.deleteFrom('import_templates').where('id', '=', id).execute();
        return `${id} deleted`;
      default:
        await insertTemplate(db, {
          title: `Memo new ${n}`,
          active: 'Y',
          created_by: users[0]!,
          created_at: `2024-03-${String((n % 28) + 1).padStart(2, '0')}T00:00:00.000Z`,
        });
        return 'one inserted';
    }
  }

  it('matches the database and each record’s show after every change by another connection, and between changes', async () => {
    const random = sequence(22);
    const cases: ListCase[] = [];
    for (const sort of ['title', 'created_at'] as const)
      for (const direction of ['asc', 'desc'] as const)
        for (const page of [1, 2])
          for (const activeOnly of [false, true]) cases.push({ sort, direction, page, activeOnly });
    for (let round = 0; round < 40; round++) {
      const done = await change(Math.floor(random() * 7), round);
      // Each list twice: the second is the one a memo would answer.
      for (const c of cases.filter(() => random() < 0.3)) {
        for (let again = 0; again < 2; again++) {
          const body = await listed(c);
          const expected = await reference(c);
          const context = `round ${round} after "${done}", ${JSON.stringify(c)}, read ${again + 1}`;
          assert.deepEqual(
            body.data.map((t) => t.id),
            expected.ids,
            context,
          );
          assert.equal(body.meta.total, expected.total, context);
          for (const item of body.data) {
            const shown = await server.get(`${PATH}/${item.id}`);
            assertJson(shown, 200);
            assert.deepEqual(item, shown.body, context);
          }
        }
      }
    }
  });

  it('carries the total and the bearer token check on an empty page too: a repeated list that matches nothing is one statement on PostgreSQL', {
    skip: memoised ? false : 'the page memo is PostgreSQL’s',
  }, async () => {
    const path = `${PATH}?filters[title][=]=none-such`;
    assertJson(await server.get(path), 200, {
      data: [],
      meta: { total: 0, per_page: 15, current_page: 1, last_page: 1 },
    });
    const start = server.statements();
    assertJson(await server.get(path), 200, {
      data: [],
      meta: { total: 0, per_page: 15, current_page: 1, last_page: 1 },
    });
    assert.equal(server.statements() - start, 1);
  });
});

describe('a list answer made from a kept page is reused only for what it was made for', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ TENANT_ISOLATION: 'true' });
  });
  after(() => server?.close());

  it('answers the same address to users of two companies with each company’s own templates, in turn', async () => {
    const one = await seedIdentity(server, 'memo-one');
    const two = await seedIdentity(server, 'memo-two');
    for (const who of [one, two]) {
      const writer = await issue(server, { userId: who.userId, unitId: who.unitId });
      const created = await server.post(
        PATH,
        templatePayload({ title: `Own of ${who.companyId}` }),
        { headers: bearer(writer.token) },
      );
      assertJson(created, 201);
    }
    for (let i = 0; i < 3; i++)
      for (const who of [one, two]) {
        const reply = await server.get(`${PATH}?sort=title`, { headers: bearer(who.token) });
        assertJson(reply, 200);
        assert.deepEqual(
          (reply.body.data as Array<{ title: string }>).map((t) => t.title),
          [`Own of ${who.companyId}`],
        );
      }
  });

  it('answers requests for the same rows that differ in what else the answer says each with its own answer', async () => {
    const exact = () => server.get(`${PATH}?sort=title`);
    const none = () => server.get(`${PATH}?sort=title`, { headers: { prefer: 'count=none' } });
    // The same statement and rows as `exact`: a count named in the request adds has_more and
    // the cursors to meta.
    const named = () => server.get(`${PATH}?sort=title&count=exact`);
    for (let i = 0; i < 2; i++) {
      const a = await exact();
      const b = await none();
      const c = await named();
      for (const reply of [a, b, c]) assertJson(reply, 200);
      assert.equal(typeof a.body.meta.total, 'number');
      assert.equal(a.headers.get('preference-applied'), null);
      assert.equal(b.body.meta.total, null);
      assert.equal(b.headers.get('preference-applied'), 'count=none');
      assert.equal(a.body.meta.has_more, undefined);
      assert.equal(c.body.meta.has_more, false);
      assert.deepEqual(a.body.data, c.body.data);
      assert.notEqual(a.headers.get('etag'), b.headers.get('etag'));
    }
  });

  it('answers If-None-Match with 304 from a reused answer, and 200 with the new text once the page changed', async () => {
    const first = await server.get(`${PATH}?sort=title`);
    assertJson(first, 200);
    const etag = first.headers.get('etag') ?? '';
    const same = await server.get(`${PATH}?sort=title`, { headers: { 'if-none-match': etag } });
    assert.equal(same.status, 304);
    assertJson(await server.post(PATH, templatePayload({ title: 'Aaa first now' })), 201);
    const changed = await server.get(`${PATH}?sort=title`, { headers: { 'if-none-match': etag } });
    assertJson(changed, 200);
    assert.equal((changed.body.data as Array<{ title: string }>)[0]?.title, 'Aaa first now');
    assert.notEqual(changed.headers.get('etag'), etag);
  });
});

describe('PostgreSQL: the memoised page statement does not run the page while the snapshot is the kept one', {
  skip: memoised ? false : 'the page memo is PostgreSQL’s',
}, () => {
  let server: TestServer;
  let outside: pg.Client;

  before(async () => {
    server = await startTestServer();
    outside = new pg.Client({ connectionString: server.databaseUrl });
    await outside.connect();
  });
  after(async () => {
    await outside?.end();
    await server?.close();
  });

  it('plans the page under a one-time filter on the snapshot: "never executed" when it is the kept one', {
    // It reads the statement's text from the named statements, which a pooler has none of.
    skip: testPoolerUrl ? 'no named statements behind a pooler in transaction mode' : false,
  }, async () => {
    assertJson(await server.get(`${PATH}?sort=title`), 200);
    const { rows } = await sql<{ statement: string }>`
      select statement from pg_prepared_statements
      where name like 'svc\\_%' and statement like '%page_memo%'`.execute(
      server.service.database.db,
    );
    const text = rows[0]?.statement.replace(/^prepare \S+ as /i, '') ?? '';
    const slot = /page_memo\.snapshot <> \$(\d+)/.exec(text)?.[1];
    assert.ok(slot, 'the page statement compares its snapshot with the kept one');
    const count = Math.max(...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    const plan = async (kept: boolean) => {
      await outside.query('deallocate all');
      await outside.query(`prepare memo_probe as ${text}`);
      const values = Array.from({ length: count }, (_, i) =>
        String(i + 1) === slot && kept ? 'pg_current_snapshot()::text' : "''",
      );
      const explained = await outside.query(
        `explain (analyze, costs off, timing off) execute memo_probe(${values.join(', ')})`,
      );
      return explained.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    };
    assert.match(await plan(true), /Limit \(never executed\)/);
    assert.match(await plan(false), /Limit \(actual rows=\d+ loops=1\)/);
  });
});
