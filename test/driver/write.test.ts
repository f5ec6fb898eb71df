// REST_DRIVER_ALLOW_WRITE=true: statements may write, still one per request, each in its own
// transaction, committed only when it finished within the time limit: a write reported as
// cancelled leaves nothing behind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { driverEnv, driverQuery, refusedStatement } from '../helpers/driver-client.js';
import { assertJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const NO_ROWS = { columns: [], rows: [], row_count: 0, truncated: false };

async function groupNames(server: TestServer): Promise<string[]> {
  const rows = (await sql<{ name: string }>`select name from groups order by id`.execute(server.service.database.db)).rows;
  return rows.map((r) => r.name);
}

describe('driver: writes allowed', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer(driverEnv({ REST_DRIVER_ALLOW_WRITE: 'true' }), { anonymous: true })));
  after(() => server.close());

  it('runs insert, update and delete, seen at once by the service', async () => {
    assertJson(await driverQuery(server.url, 'insert into groups (name) values (?), (?)', ['Editors', 'Viewers']), 200, NO_ROWS);
    assert.deepStrictEqual(await groupNames(server), ['Editors', 'Viewers']);
    assertJson(await driverQuery(server.url, "update groups set name = 'Readers' where name = ?", ['Viewers']), 200, NO_ROWS);
    assertJson(await driverQuery(server.url, 'delete from groups where name = ?', ['Editors']), 200, NO_ROWS);
    assert.deepStrictEqual(await groupNames(server), ['Readers']);
  });

  it('answers the rows of RETURNING', async () => {
    const reply = await driverQuery(server.url, "insert into groups (name) values ('Auditors') returning name");
    assertJson(reply, 200, { columns: [{ name: 'name', type: 'varchar(200)' }], rows: [['Auditors']], row_count: 1, truncated: false });
  });

  it('keeps the foreign keys on', async () => {
    const reply = await driverQuery(server.url, 'insert into user_groups (user_id, group_id) values (999, 999)');
    assertJson(reply, 422, refusedStatement('FOREIGN KEY constraint failed'));
  });

  it('still refuses more than one statement, running none of them', async () => {
    const before = await groupNames(server);
    const reply = await driverQuery(server.url, "insert into groups (name) values ('First'); drop table groups");
    assertJson(reply, 422, refusedStatement('Send exactly one SQL statement per request.'));
    assert.deepStrictEqual(await groupNames(server), before);
  });
});

describe('driver: a write past the time limit', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer(driverEnv({ REST_DRIVER_ALLOW_WRITE: 'true', REST_DRIVER_TIMEOUT_MS: '100' }), { anonymous: true })));
  after(() => server.close());

  it('is answered 422 at the limit and rolled back, not committed, when it ends', async () => {
    // One statement that steps millions of times (about a second) before its single row is inserted.
    const slow = "insert into groups (name) select 'slow-' || x from (with recursive c(x) as (select 1 union all select x + 1 from c) select x from c where x % 8000000 = 0 limit 1)";
    assertJson(await driverQuery(server.url, slow), 422, refusedStatement('The statement ran longer than 100 ms and was cancelled.'));
    // This write waits for the slow one's lock, so by the time it lands the slow one has ended.
    assertJson(await driverQuery(server.url, "insert into groups (name) values ('after')"), 200, NO_ROWS);
    assert.deepStrictEqual(await groupNames(server), ['after']);
  });
});
