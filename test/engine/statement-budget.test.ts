// Issue 19 (a flat RSS under a long soak): SQLite's prepared statements, kept by SQL text on
// every connection (the writer, the reader and each sliced reader of list pages), are held
// within one budget per database, by count and by the characters of their SQL (a statement's
// native memory grows with its text), the least recently used going first. A per-connection
// bound let the total grow with the connections opened. Through the real server: lists of 1,600
// shapes (every per_page, sort and direction), some of them at once so that several sliced
// readers open, hold no more than the budget, and a shape asked for again still answers the same.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  STATEMENT_BUDGET_CHARACTERS,
  STATEMENT_BUDGET_ENTRIES,
} from '../../src/database/dialects/sqlite/connect.js';
import { assertJson } from '../helpers/http.js';
import { seedGroups } from '../helpers/seed.js';
import { insertTemplate } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';

describe('SQLite prepared statements stay within one budget per database (issue 19)', () => {
  let server: TestServer;
  let prepared: (() => { statements: number; characters: number }) | undefined;

  before(async () => {
    server = await startTestServer();
    const { database } = server.service;
    prepared = database.preparedStatements?.bind(database);
    const [group] = await seedGroups(database.db, ['Budget']);
    for (let i = 0; i < 12; i += 1)
      await insertTemplate(database.db, {
        title: `Budget ${i}`,
        code: `B${i}`,
        database_name: i % 2 ? 'erp' : 'crm',
        active: 'Y',
        created_by: null,
        created_at: `2024-01-${String(i + 1).padStart(2, '0')}T00:00:00.000Z`,
        groups: [group!],
      });
  });
  after(() => server.close());

  it('lists of 1,600 shapes hold at most the budget of statements and characters, and a shape evicted answers the same', async (t) => {
    if (!prepared)
      return t.skip('the engine keeps no prepared statements of its own (SQLite only)');
    const shapes: string[] = [];
    for (const sort of ['title', 'code', 'created_at', 'updated_at'])
      for (const direction of ['asc', 'desc'])
        for (let perPage = 1; perPage <= 200; perPage += 1)
          shapes.push(`${PATH}?sort=${sort}&direction=${direction}&per_page=${perPage}`);
    const first = await server.get(shapes[0]!);
    assertJson(first, 200);
    let most = 0;
    // 8 at a time: list pages overlap, so more than one sliced reader keeps statements.
    for (let i = 0; i < shapes.length; i += 8) {
      const replies = await Promise.all(shapes.slice(i, i + 8).map((s) => server.get(s)));
      for (const reply of replies) assertJson(reply, 200);
      const { statements, characters } = prepared();
      most = Math.max(most, characters);
      assert.ok(statements <= STATEMENT_BUDGET_ENTRIES, `${statements} statements held`);
      assert.ok(characters <= STATEMENT_BUDGET_CHARACTERS, `${characters} characters held`);
    }
    // The shapes went past the budget (so statements were evicted), and it was used, not emptied.
    assert.ok(most > STATEMENT_BUDGET_CHARACTERS * 0.9, `at most ${most} characters held`);
    assert.deepEqual((await server.get(shapes[0]!)).body, first.body);
  });
});
