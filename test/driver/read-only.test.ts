// POST /_mad/rest-driver/query without REST_DRIVER_ALLOW_WRITE: the database refuses every write
// (a connection opened read-only, plus query_only), so the text of the SQL plays no part: a
// SELECT that mentions DELETE runs, a write however it is spelt is a 422, and the tables are
// unchanged. One statement per request; a row cap that says it cut; a statement timeout that
// does not hold up other requests.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DRIVER, driverEnv, driverQuery, driverRequest, refusedStatement } from '../helpers/driver-client.js';
import { assertJson, type Reply } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const READ_ONLY = refusedStatement('The driver is read-only (REST_DRIVER_ALLOW_WRITE is not true): the database refused a statement that writes.');
const ONE_STATEMENT = refusedStatement('Send exactly one SQL statement per request.');
const MAX_ROWS = 5;
const TIMEOUT_MS = 400;
/** Counts 1, 2, ... without end: rows as fast as the engine can make them. */
const COUNTER = 'with recursive c(x) as (select 1 union all select x + 1 from c)';

describe('driver: read-only queries', () => {
  let server: TestServer;
  /** Everything a write could change: rows of two tables, the schema, the header's user_version. */
  const state = async () => {
    const db = server.service.database.db;
    return {
      companies: (await sql`select * from companies order by id`.execute(db)).rows,
      groups: (await sql`select * from groups order by id`.execute(db)).rows,
      schema: (await sql`select type, name, sql from sqlite_schema order by name`.execute(db)).rows,
      version: (await sql`pragma user_version`.execute(db)).rows,
    };
  };
  before(async () => {
    server = await startTestServer(driverEnv({ REST_DRIVER_MAX_ROWS: String(MAX_ROWS), REST_DRIVER_TIMEOUT_MS: String(TIMEOUT_MS) }), { anonymous: true });
    await sql`insert into groups (name) values ('Editors'), ('Viewers')`.execute(server.service.database.db);
  });
  after(() => server.close());

  it('answers {columns, rows, row_count, truncated}: rows as arrays in column order, declared types', async () => {
    assertJson(await driverQuery(server.url, 'select id, name, 1 + 1 as two from groups order by id'), 200, {
      columns: [
        { name: 'id', type: 'INTEGER' },
        { name: 'name', type: 'varchar(200)' },
        { name: 'two', type: null },
      ],
      rows: [
        [1, 'Editors', 2],
        [2, 'Viewers', 2],
      ],
      row_count: 2,
      truncated: false,
    });
  });

  it('binds positional values (booleans as 1 and 0) and keeps repeated column names', async () => {
    assertJson(await driverQuery(server.url, 'select ? as a, ? as a, ? as b, ? as c', ['x', 1.5, true, null]), 200, {
      columns: [
        { name: 'a', type: null },
        { name: 'a', type: null },
        { name: 'b', type: null },
        { name: 'c', type: null },
      ],
      rows: [['x', 1.5, 1, null]],
      row_count: 1,
      truncated: false,
    });
    const named = await driverQuery(server.url, 'select name from groups where id = ?', [2]);
    assert.deepStrictEqual(named.body.rows, [['Viewers']]);
  });

  it('sends integers past 2^53 as strings and blobs as base64', async () => {
    const reply = await driverQuery(server.url, "select 9007199254740993 as big, 42 as small, x'00ff10' as blob");
    assert.deepStrictEqual(reply.body.rows, [['9007199254740993', 42, 'AP8Q']]);
  });

  it('runs a SELECT whose text mentions DELETE and DROP: the SQL text is not what decides', async () => {
    const reply = await driverQuery(server.url, "select 'delete from groups; drop table groups' as text");
    assert.deepStrictEqual(reply.body.rows, [['delete from groups; drop table groups']]);
  });

  const writes = [
    "insert into groups (name) values ('Intruders')",
    "update companies set name = 'Renamed'",
    'delete from groups',
    'drop table groups',
    'create table intruders (id integer)',
    'create temp table scratch (id integer)',
    'alter table groups add column extra text',
    "replace into groups (id, name) values (1, 'Replaced')",
    "with n(v) as (select 'Sneaky') insert into groups (name) select v from n",
    "insert into groups (name) values ('Returned') returning id",
    'pragma user_version = 7',
    'create index groups_name on groups (name)',
  ];
  for (const statement of writes) {
    it(`refuses "${statement}" with 422 and leaves the database unchanged`, async () => {
      const before = await state();
      assertJson(await driverQuery(server.url, statement), 422, READ_ONLY);
      assert.deepStrictEqual(await state(), before);
    });
  }

  it('refuses VACUUM INTO before it creates the file', async () => {
    const target = path.join(server.dataDir, 'copy.sqlite');
    assertJson(await driverQuery(server.url, `vacuum into '${target}'`), 422, READ_ONLY);
    assert.equal(fs.existsSync(target), false);
  });

  it('keeps nothing from one statement to the next: PRAGMA query_only = OFF does not open the way', async () => {
    assertJson(await driverQuery(server.url, 'pragma query_only = off'), 200);
    const before = await state();
    assertJson(await driverQuery(server.url, 'delete from groups'), 422, READ_ONLY);
    assert.deepStrictEqual(await state(), before);
  });

  it('refuses more than one statement with 422, whatever the statements', async () => {
    const before = await state();
    assertJson(await driverQuery(server.url, 'select 1; select 2'), 422, ONE_STATEMENT);
    assertJson(await driverQuery(server.url, 'select 1; delete from groups'), 422, ONE_STATEMENT);
    assertJson(await driverQuery(server.url, "select 1 as one; -- a comment; then\n insert into groups (name) values ('x')"), 422, ONE_STATEMENT);
    assert.deepStrictEqual(await state(), before);
    // A trailing semicolon or comment is not a second statement.
    assert.deepStrictEqual((await driverQuery(server.url, 'select 1 as one; -- done')).body.rows, [[1]]);
  });

  it(`cuts the rows at REST_DRIVER_MAX_ROWS (${MAX_ROWS}) and says so with truncated: true`, async () => {
    const many = await driverQuery(server.url, `${COUNTER} select x from c limit 1000000`);
    assertJson(many, 200, { columns: [{ name: 'x', type: null }], rows: [[1], [2], [3], [4], [5]], row_count: 5, truncated: true });
    const exactly = await driverQuery(server.url, `${COUNTER} select x from c limit ${MAX_ROWS}`);
    assert.equal(exactly.body.row_count, MAX_ROWS);
    assert.equal(exactly.body.truncated, false);
  });

  it(`cancels a statement after REST_DRIVER_TIMEOUT_MS (${TIMEOUT_MS}) while other requests go on being answered`, async () => {
    // A row every few million steps: far slower than the time limit, never near the row cap.
    const started = Date.now();
    const slow = driverQuery(server.url, `${COUNTER} select x from c where x % 5000000 = 0`).then((reply) => ({ reply, at: Date.now() }));
    const tables = await driverRequest(server.url, 'GET', `${DRIVER}/tables`);
    const tablesAt = Date.now();
    assertJson(tables, 200);
    const { reply, at } = await slow;
    assertJson(reply, 422, refusedStatement(`The statement ran longer than ${TIMEOUT_MS} ms and was cancelled.`));
    assert.ok(tablesAt < at, 'the catalog request was answered while the statement ran');
    assert.ok(at - started >= TIMEOUT_MS);
  });

  it('answers a statement the database cannot run with 422 and its message', async () => {
    assertJson(await driverQuery(server.url, 'selec 1'), 422, refusedStatement('near "selec": syntax error'));
    assertJson(await driverQuery(server.url, 'select * from no_such_table'), 422, refusedStatement('no such table: no_such_table'));
    assertJson(await driverQuery(server.url, 'select ?, ?', [1]), 422, refusedStatement('Too few parameter values were provided'));
    assertJson(await driverQuery(server.url, '-- nothing but a comment'), 422, refusedStatement('The sql field holds no SQL statement.'));
  });

  it('checks the body first: sql required, bindings an array of scalars, connection a known name', async () => {
    const query = (body: unknown): Promise<Reply> => driverRequest(server.url, 'POST', `${DRIVER}/query`, { body });
    assertJson(await query({}), 422, { message: 'The sql field is required.', errors: { sql: ['The sql field is required.'] } });
    assertJson(await query({ sql: 42, bindings: 'x', connection: 7 }), 422, {
      message: 'The sql field must be a string. (and 2 more errors)',
      errors: {
        sql: ['The sql field must be a string.'],
        bindings: ['The bindings field must be an array.'],
        connection: ['The connection field must be a string.'],
      },
    });
    assertJson(await query({ sql: 'select ?', bindings: [{ a: 1 }] }), 422, {
      message: 'The bindings.0 field must be a string, number, boolean or null.',
      errors: { 'bindings.0': ['The bindings.0 field must be a string, number, boolean or null.'] },
    });
    assertJson(await query({ sql: 'select 1', connection: 'elsewhere' }), 422, {
      message: 'The selected connection is invalid.',
      errors: { connection: ['The selected connection is invalid.'] },
    });
    assertJson(await driverRequest(server.url, 'POST', `${DRIVER}/query`, { raw: '{"sql": ' }), 400, { message: 'The request body is not valid JSON.' });
  });
});
