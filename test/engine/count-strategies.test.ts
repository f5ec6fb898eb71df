// Count strategies (issue 21 item 1): the `count` list parameter and `Prefer: count=...`, through
// the real server on every engine. exact is SPEC.md 4.2's total; estimated is exact up to the
// resource's countThreshold (1,000) and an estimate flagged total_estimated above; none answers
// total and last_page null and has_more.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { keptReadsOf } from '../../src/database/kept-reads.js';
import {
  defineResource,
  ResourceDefinitionError,
} from '../../src/engine/definition/define-resource.js';
import { defineEntity } from '../../src/model/entity.js';
import { testEngine } from '../helpers/engines.js';
import { startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const ROWS = 2400;
// Every third row is active: 800 active rows, below the threshold; the whole table is above it.
const ACTIVE = 800;
/** The engine's estimate above the threshold: SQLite extrapolates its bounded count instead. */
const ESTIMATE_STATEMENTS = { sqlite: 0, postgres: 1, mysql: 1 } as const;
const active = `filters=${encodeURIComponent(JSON.stringify({ active: { '=': 'Y' } }))}`;

const fxTemplate = defineEntity({
  name: 'FxCountTemplate',
  table: 'import_templates',
  storage: 'data',
  columns: ['id', 'title', 'active'],
  casts: { id: 'integer' },
  fillable: ['title'],
});

describe('count strategies', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
    const { db } = server.service.database;
    for (let from = 0; from < ROWS; from += 200) {
      await db
        .insertInto('import_templates')
        .values(
          Array.from({ length: 200 }, (_, i) => ({
            title: `Template ${from + i}`,
            database_name: 'erp',
            mapping_json: '{}',
            active: (from + i) % 3 === 0 ? 'Y' : 'N',
          })),
        )
        .execute();
    }
  });
  after(() => server.close());

  it('count=exact answers the exact total, total_estimated false', async () => {
    const reply = await server.get(`${PATH}?count=exact&per_page=10`);
    assertJson(reply, 200);
    assert.equal(reply.body.meta.total, ROWS);
    assert.equal(reply.body.meta.last_page, ROWS / 10);
    assert.equal(reply.body.meta.total_estimated, false);
    assert.equal(reply.headers.get('preference-applied'), null);
  });

  it('count=estimated at or below the threshold is the exact total, total_estimated false', async () => {
    const reply = await server.get(`${PATH}?count=estimated&per_page=10&${active}`);
    assertJson(reply, 200);
    assert.equal(reply.body.meta.total, ACTIVE);
    assert.equal(reply.body.meta.last_page, ACTIVE / 10);
    assert.equal(reply.body.meta.total_estimated, false);
  });

  it('count=estimated above the threshold answers an estimate over the threshold, total_estimated true', async () => {
    const reply = await server.get(`${PATH}?count=estimated&per_page=10`);
    assertJson(reply, 200);
    const { total, last_page, total_estimated } = reply.body.meta;
    assert.equal(total_estimated, true);
    assert.ok(Number.isInteger(total) && total > 1000, `estimate ${total}`);
    // Statistics of a table just filled may lag; the estimate still has the right magnitude.
    assert.ok(total <= ROWS * 10, `estimate ${total}`);
    assert.equal(last_page, Math.ceil(total / 10));
    assert.equal(reply.body.data.length, 10);
  });

  it('count=none answers total and last_page null, has_more, and the page as usual', async () => {
    const first = await server.get(`${PATH}?count=none&per_page=10&sort=title`);
    assertJson(first, 200);
    const exact = await server.get(`${PATH}?per_page=10&sort=title`);
    assert.deepEqual(first.body.data, exact.body.data);
    assert.equal(first.body.meta.total, null);
    assert.equal(first.body.meta.last_page, null);
    assert.equal(first.body.meta.current_page, 1);
    assert.equal(first.body.meta.has_more, true);
    const last = await server.get(`${PATH}?count=none&per_page=10&page=${ROWS / 10}`);
    assert.equal(last.body.data.length, 10);
    assert.equal(last.body.meta.has_more, false);
    assert.equal(last.body.meta.next_cursor, null);
    const beyond = await server.get(`${PATH}?count=none&per_page=10&page=${ROWS / 10 + 1}`);
    assert.deepEqual(beyond.body.data, []);
    assert.equal(beyond.body.meta.has_more, false);
  });

  it('Prefer: count=<strategy> applies it and says so in Preference-Applied; the count parameter wins over Prefer', async () => {
    const preferred = await server.get(`${PATH}?per_page=5`, {
      headers: { prefer: 'return=minimal, count=none' },
    });
    assertJson(preferred, 200);
    assert.equal(preferred.headers.get('preference-applied'), 'count=none');
    assert.equal(preferred.body.meta.total, null);
    const overruled = await server.get(`${PATH}?per_page=5&count=exact`, {
      headers: { prefer: 'count=none' },
    });
    assert.equal(overruled.headers.get('preference-applied'), null);
    assert.equal(overruled.body.meta.total, ROWS);
  });

  it('a count value that is not a strategy falls back to the default (exact), as a bad per_page or direction does; an unknown Prefer is ignored', async () => {
    const reply = await server.get(`${PATH}?per_page=5&count=approximately`, {
      headers: { prefer: 'count=approximately' },
    });
    assertJson(reply, 200);
    assert.equal(reply.body.meta.total, ROWS);
    assert.equal(reply.body.meta.total_estimated, false);
    assert.equal(reply.headers.get('preference-applied'), null);
  });

  it('count=none runs one statement fewer than exact (as many where the page carries the exact total: PostgreSQL); estimated above the threshold one more where the engine has a planner estimate (PostgreSQL, MariaDB)', async () => {
    // The exact total's statement, where it is not carried by the page's (list-total.ts).
    const totalStatement = keptReadsOf(server.service.database.db) ? 0 : 1;
    const statementsOf = async (query: string) => {
      await server.get(`${PATH}?${query}`); // compiled and prepared once
      const before = server.statements();
      assertJson(await server.get(`${PATH}?${query}`), 200);
      return server.statements() - before;
    };
    const exact = await statementsOf(`count=exact&per_page=5&${active}`);
    const none = await statementsOf(`count=none&per_page=5&${active}`);
    assert.equal(none, exact - totalStatement);
    // Estimated: one bounded count, then the page.
    assert.equal(await statementsOf(`count=estimated&per_page=5&${active}`), none + 1);
    assert.equal(
      await statementsOf('count=estimated&per_page=5'),
      none + 1 + ESTIMATE_STATEMENTS[testEngine],
    );
  });

  it('the resource settings defaultCount and countThreshold apply when the request names no strategy; a defaultCount outside exact, estimated and none fails at definition', async () => {
    const uncounted = defineResource({ model: fxTemplate, defaultCount: 'none' });
    const estimated = defineResource({
      model: fxTemplate,
      defaultCount: 'estimated',
      countThreshold: 10,
      searchable: ['active'],
    });
    const app = await startFixtureApp(server.service.database, [
      { path: '/api/fx-uncounted', resource: uncounted },
      { path: '/api/fx-estimated', resource: estimated },
    ]);
    try {
      const none = await app.get('/api/fx-uncounted?per_page=3');
      assertJson(none, 200);
      assert.deepEqual(none.body.meta, {
        total: null,
        per_page: 3,
        current_page: 1,
        last_page: null,
      });
      assert.equal((await app.get('/api/fx-uncounted?count=exact')).body.meta.total, ROWS);
      const above = await app.get(`/api/fx-estimated?per_page=3&${active}`);
      assert.ok(above.body.meta.total > 10, `estimate ${above.body.meta.total}`);
      const few = encodeURIComponent(JSON.stringify({ active: { in: ['none of them'] } }));
      const below = await app.get(`/api/fx-estimated?count=estimated&filters=${few}`);
      assert.equal(below.body.meta.total, 0);
      assert.equal(below.body.meta.total_estimated, false);
    } finally {
      await app.close();
    }
    assert.throws(
      () => defineResource({ model: fxTemplate, defaultCount: 'approximate' as 'none' }),
      (error) =>
        error instanceof ResourceDefinitionError &&
        /defaultCount must be one of exact, estimated, none, got "approximate"/.test(error.message),
    );
    assert.throws(
      () => defineResource({ model: fxTemplate, countThreshold: 0 }),
      /countThreshold must be a positive integer/,
    );
  });
});
