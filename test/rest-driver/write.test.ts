// REST_DRIVER_ALLOW_WRITE=true: statements may write, still one per request, each in its own
// transaction, committed only when it finished within the time limit: a write reported as
// cancelled leaves nothing behind. On every engine; placeholders and messages are the engine's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { testEngine } from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { driverEnv, driverQuery, refusedStatement } from '../helpers/rest-driver-client.js';
import { declared, param } from '../helpers/rest-driver-engine.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const NO_ROWS = { columns: [], rows: [], row_count: 0, truncated: false };

/** Each engine's own words for a foreign key violation. */
const FOREIGN_KEY = {
  sqlite: /^FOREIGN KEY constraint failed$/,
  postgres: /^insert or update on table "user_groups" violates foreign key constraint /,
  mysql: /^Cannot add or update a child row: a foreign key constraint fails /,
}[testEngine];

/** One statement that runs for about a second before its single row is inserted. */
const SLOW_INSERT = {
  sqlite:
    "insert into groups (name) select 'slow-' || x from (with recursive c(x) as (select 1 union all select x + 1 from c) select x from c where x % 8000000 = 0 limit 1)",
  postgres: "insert into groups (name) select 'slow' from pg_sleep(1)",
  mysql: "insert into groups (name) select 'slow' from (select sleep(1)) s",
}[testEngine];

async function groupNames(server: TestServer): Promise<string[]> {
  const rows = (
    await sql<{ name: string }>`select name from groups order by id`.execute(
      server.service.database.db,
    )
  ).rows;
  return rows.map((r) => r.name);
}

describe('driver: writes allowed', () => {
  let server: TestServer;
  before(
    async () =>
      (server = await startTestServer(driverEnv({ REST_DRIVER_ALLOW_WRITE: 'true' }), {
        anonymous: true,
      })),
  );
  after(() => server.close());

  it('runs insert, update and delete, seen at once by the service', async () => {
    assertJson(
      await driverQuery(
        server.url,
        `insert into groups (name) values (${param(1)}), (${param(2)})`,
        ['Editors', 'Viewers'],
      ),
      200,
      NO_ROWS,
    );
    assert.deepStrictEqual(await groupNames(server), ['Editors', 'Viewers']);
    assertJson(
      await driverQuery(server.url, `update groups set name = 'Readers' where name = ${param(1)}`, [
        'Viewers',
      ]),
      200,
      NO_ROWS,
    );
    assertJson(
      await driverQuery(server.url, `delete from groups where name = ${param(1)}`, ['Editors']),
      200,
      NO_ROWS,
    );
    assert.deepStrictEqual(await groupNames(server), ['Readers']);
  });

  it('answers the rows of RETURNING', async () => {
    const reply = await driverQuery(
      server.url,
      "insert into groups (name) values ('Auditors') returning name",
    );
    assertJson(reply, 200, {
      columns: [{ name: 'name', type: declared.varchar(200) }],
      rows: [['Auditors']],
      row_count: 1,
      truncated: false,
    });
  });

  it('keeps the foreign keys on', async () => {
    const reply = await driverQuery(
      server.url,
      'insert into user_groups (user_id, group_id) values (999, 999)',
    );
    assertJson(reply, 422);
    assert.match(reply.body.message, FOREIGN_KEY);
    assert.deepStrictEqual(reply.body, refusedStatement(reply.body.message));
  });

  it('still refuses more than one statement, running none of them', async () => {
    const before = await groupNames(server);
    const reply = await driverQuery(
      server.url,
      "insert into groups (name) values ('First'); drop table groups",
    );
    assertJson(reply, 422, refusedStatement('Send exactly one SQL statement per request.'));
    assert.deepStrictEqual(await groupNames(server), before);
  });
});

describe('driver: a write past the time limit', () => {
  let server: TestServer;
  before(
    async () =>
      (server = await startTestServer(
        driverEnv({ REST_DRIVER_ALLOW_WRITE: 'true', REST_DRIVER_TIMEOUT_MS: '100' }),
        { anonymous: true },
      )),
  );
  after(() => server.close());

  it('is answered 422 at the limit and rolled back, not committed, when it ends', async () => {
    assertJson(
      await driverQuery(server.url, SLOW_INSERT),
      422,
      refusedStatement('The statement ran longer than 100 ms and was cancelled.'),
    );
    // On SQLite this write waits for the slow one's lock, so by the time it lands the slow one
    // has ended; the servers cancel the slow one themselves before answering.
    assertJson(
      await driverQuery(server.url, "insert into groups (name) values ('after')"),
      200,
      NO_ROWS,
    );
    assert.deepStrictEqual(await groupNames(server), ['after']);
  });

  it("is cancelled even when the statement lifts the server's own time limit (MariaDB)", {
    skip: testEngine !== 'mysql' && "MariaDB's SET STATEMENT",
  }, async () => {
    // SET STATEMENT max_statement_time = 0 takes the server's limit away for this one statement;
    // the driver's backstop kills the connection 500 ms past the limit, which rolls it back.
    const lifted =
      "set statement max_statement_time = 0 for insert into groups (name) select 'lifted' from (select sleep(2)) s";
    const started = Date.now();
    assertJson(
      await driverQuery(server.url, lifted),
      422,
      refusedStatement('The statement ran longer than 100 ms and was cancelled.'),
    );
    assert.ok(Date.now() - started < 1500, 'answered before the sleep would have ended');
    // Past the end of the sleep, had it gone on.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.equal((await groupNames(server)).includes('lifted'), false);
  });
});
