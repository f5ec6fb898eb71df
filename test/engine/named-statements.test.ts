// On PostgreSQL every read and write runs as a named prepared statement (named after a hash of
// its text): a connection parses and plans a statement once, then only binds values, and the
// answers are the ones the unnamed statements gave.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { testEngine, testPoolerUrl } from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';

describe('PostgreSQL named prepared statements', {
  skip:
    testEngine !== 'postgres'
      ? 'named prepared statements are a PostgreSQL feature'
      : testPoolerUrl
        ? 'none behind a pooler in transaction mode (test/resilience/behind-pooler.test.ts)'
        : false,
}, () => {
  let server: TestServer;

  /** The named statements the service's only connection holds, by name. */
  async function prepared(): Promise<Map<string, string>> {
    const { rows } = await sql<{ name: string; statement: string }>`
      select name, statement from pg_prepared_statements where name like 'svc\\_%'`.execute(
      server.service.database.db,
    );
    return new Map(rows.map((row) => [row.name, row.statement]));
  }

  before(async () => {
    // One connection: the statements the service prepares are the ones this test sees.
    server = await startTestServer({ DB_POOL_SIZE: '1' });
  });
  after(() => server.close());

  it('runs a request statements once prepared on the connection: repeating it prepares nothing more', async () => {
    const created = await server.post(PATH, templatePayload({ title: 'Prepared' }));
    assertJson(created, 201);
    const first = await server.get(`${PATH}/${created.body.id}`);
    assertJson(first, 200);
    const before = await prepared();
    assert.ok(
      [...before.values()].some((text) => text.startsWith('select "import_templates"."id"')),
      'the record statement is prepared',
    );
    const again = await server.get(`${PATH}/${created.body.id}`);
    assertJson(again, 200, first.body);
    assert.deepEqual(await prepared(), before);
  });

  it('the first page of a list has no OFFSET value: after five runs PostgreSQL keeps one plan for it instead of planning it at every run', async () => {
    for (let i = 0; i < 8; i += 1) assertJson(await server.get(`${PATH}?sort=title`), 200);
    const { rows } = await sql<{ statement: string; generic_plans: number; custom_plans: number }>`
      select statement, generic_plans, custom_plans from pg_prepared_statements
      where name like 'svc\\_%' and statement like '%order by "import_templates"."title"%'`.execute(
      server.service.database.db,
    );
    const [page] = rows;
    assert.equal(rows.length, 1, 'one page statement');
    // The memo's fence (`offset 0`, a literal) is planned once like the rest; a bound OFFSET is not.
    assert.doesNotMatch(page?.statement ?? '', /offset \$\d/i);
    assert.ok(Number(page?.generic_plans) >= 3, `${page?.generic_plans} runs on the plan kept`);
    assert.ok(Number(page?.custom_plans) <= 5, `${page?.custom_plans} runs planned anew`);
  });

  it('names one text the same way every time, and no two texts alike', async () => {
    const names = await prepared();
    assert.ok(names.size > 0);
    assert.equal(new Set(names.values()).size, names.size);
    for (const name of names.keys()) assert.match(name, /^svc_[\w-]{32}$/);
  });
});
