// POST /_mad/rest-driver/query without REST_DRIVER_ALLOW_WRITE: the database refuses every write
// (SQLite: a connection opened read-only, plus query_only; PostgreSQL: a READ ONLY transaction;
// MariaDB/MySQL: a read-only session inside an XA transaction), so the text of the SQL plays no
// part: a SELECT that mentions DELETE runs, a write however it is spelt is a 422, and the tables
// are unchanged. One statement per request; a row cap that says it cut; a statement timeout that
// does not hold up other requests. Runs on every engine; what differs is spelt out per engine.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { testEngine } from '../helpers/engines.js';
import { assertJson, type Reply } from '../helpers/http.js';
import {
  DRIVER,
  driverEnv,
  driverQuery,
  driverRequest,
  refusedStatement,
} from '../helpers/rest-driver-client.js';
import { declared, param, SLOW_SELECT, schemaSnapshot } from '../helpers/rest-driver-engine.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const READ_ONLY = refusedStatement(
  'The driver is read-only (REST_DRIVER_ALLOW_WRITE is not true): the database refused a statement that writes.',
);
const ONE_STATEMENT = refusedStatement('Send exactly one SQL statement per request.');
const EMPTY = refusedStatement('The sql field holds no SQL statement.');
const MAX_ROWS = 5;
const TIMEOUT_MS = 400;
/**
 * Counts 1, 2, ...: without end where the engine streams a recursive query (SQLite, PostgreSQL),
 * so only an exact cap answers at all; MariaDB/MySQL materialize it first, and stop recursing
 * at 1000 by default, so there it counts to 1000.
 */
const COUNTER =
  testEngine === 'mysql'
    ? 'with recursive c(x) as (select 1 union all select x + 1 from c where x < 1000)'
    : 'with recursive c(x) as (select 1 union all select x + 1 from c)';

/** Writes every engine refuses the same way. */
const WRITES = [
  "insert into groups (name) values ('Intruders')",
  "update companies set name = 'Renamed'",
  'delete from groups',
  'drop table groups',
  'create table intruders (id integer)',
  'alter table groups add column extra text',
  'create index groups_name on groups (name)',
  "insert into groups (name) values ('Returned') returning id",
  'create view intruders as select 1 as one',
];
/** Writes in each engine's own dialect, and the statements that would escape a plain read-only transaction. */
const ENGINE_WRITES = {
  sqlite: [
    'create temp table scratch (id integer)',
    "replace into groups (id, name) values (1, 'Replaced')",
    "with n(v) as (select 'Sneaky') insert into groups (name) select v from n",
    'pragma user_version = 7',
  ],
  postgres: [
    'create temp table scratch (id integer)',
    "with n(v) as (select 'Sneaky') insert into groups (name) select v from n",
    'truncate groups',
    "select nextval('groups_id_seq')",
    'copy groups (name) from stdin',
  ],
  mysql: [
    'create temporary table scratch (id integer)',
    "replace into groups (id, name) values (1, 'Replaced')",
    'truncate table groups',
    'rename table groups to intruders',
    'lock tables groups write',
    // DDL commits a MySQL transaction implicitly, and MariaDB's SET STATEMENT lifts a read-only
    // session for one statement: the XA transaction is what refuses this.
    'set statement tx_read_only = 0 for create table intruders (id integer)',
  ],
}[testEngine];

/** A statement that switches the session to read-write, and one that leaves state on the session. */
const SESSION = {
  sqlite: {
    lift: 'pragma query_only = off',
    leave: 'pragma query_only = off',
    probe: 'select 1 as one',
    left: [[1]],
  },
  // PREPARE is not undone by a rollback; DISCARD ALL drops it.
  postgres: {
    lift: 'set session characteristics as transaction read write',
    leave: 'prepare leftover as select 1',
    probe: 'execute leftover',
    left: null,
  },
  mysql: {
    lift: 'set session transaction read write',
    leave: "set @leftover = 'x'",
    probe: 'select @leftover as leftover',
    left: [[null]],
  },
}[testEngine];

/** Statements the database cannot run, with its own message. */
const CANNOT_RUN: ReadonlyArray<{ sql: string; bindings?: unknown[]; message: string | RegExp }> = {
  sqlite: [
    { sql: 'selec 1', message: 'near "selec": syntax error' },
    { sql: 'select * from no_such_table', message: 'no such table: no_such_table' },
    { sql: 'select ?, ?', bindings: [1], message: 'Too few parameter values were provided' },
  ],
  postgres: [
    { sql: 'selec 1', message: 'syntax error at or near "selec"' },
    { sql: 'select * from no_such_table', message: 'relation "no_such_table" does not exist' },
    {
      sql: 'select $1, $2',
      bindings: [1],
      message: 'bind message supplies 1 parameters, but prepared statement "" requires 2',
    },
  ],
  mysql: [
    {
      sql: 'selec 1',
      message: /^You have an error in your SQL syntax; .* near 'selec 1' at line 1$/,
    },
    { sql: 'select * from no_such_table', message: /^Table '\w+\.no_such_table' doesn't exist$/ },
    { sql: 'select ?, ?', bindings: [1], message: 'Incorrect arguments to mysqld_stmt_execute' },
  ],
}[testEngine];

describe('driver: read-only queries', () => {
  let server: TestServer;
  /** Everything a write could change: rows of two tables, the schema. */
  const state = async () => {
    const db = server.service.database.db;
    return {
      companies: (await sql`select * from companies order by id`.execute(db)).rows,
      groups: (await sql`select * from groups order by id`.execute(db)).rows,
      schema: await schemaSnapshot(db),
    };
  };
  before(async () => {
    server = await startTestServer(
      driverEnv({
        REST_DRIVER_MAX_ROWS: String(MAX_ROWS),
        REST_DRIVER_TIMEOUT_MS: String(TIMEOUT_MS),
      }),
      { anonymous: true },
    );
    await sql`insert into groups (name) values ('Editors'), ('Viewers')`.execute(
      server.service.database.db,
    );
  });
  after(() => server.close());

  it('answers {columns, rows, row_count, truncated}: rows as arrays in column order, declared types', async () => {
    assertJson(
      await driverQuery(server.url, 'select id, name, 1 + 1 as two from groups order by id'),
      200,
      {
        columns: [
          { name: 'id', type: declared.id },
          { name: 'name', type: declared.varchar(200) },
          { name: 'two', type: null },
        ],
        rows: [
          [1, 'Editors', 2],
          [2, 'Viewers', 2],
        ],
        row_count: 2,
        truncated: false,
      },
    );
  });

  it('binds positional values and keeps repeated column names', async () => {
    // SQLite and MySQL store booleans as 1 and 0; PostgreSQL has a boolean type. PostgreSQL's
    // parameters take their type from where they are used, so the casts say what they are.
    const binds = {
      sqlite: { sql: 'select ? as a, ? as a, ? as b, ? as c', row: ['x', 1.5, 1, null] },
      postgres: {
        sql: 'select $1::text as a, $2::float8 as a, $3::boolean as b, $4::int as c',
        row: ['x', 1.5, true, null],
      },
      mysql: { sql: 'select ? as a, ? as a, ? as b, ? as c', row: ['x', 1.5, 1, null] },
    }[testEngine];
    assertJson(await driverQuery(server.url, binds.sql, ['x', 1.5, true, null]), 200, {
      columns: [
        { name: 'a', type: null },
        { name: 'a', type: null },
        { name: 'b', type: null },
        { name: 'c', type: null },
      ],
      rows: [binds.row],
      row_count: 1,
      truncated: false,
    });
    const named = await driverQuery(
      server.url,
      `select name from groups where id = ${param(1)}`,
      [2],
    );
    assert.deepStrictEqual(named.body.rows, [['Viewers']]);
  });

  it('sends integers past 2^53 as strings and blobs as base64', async () => {
    const blob = testEngine === 'postgres' ? "'\\x00ff10'::bytea" : "x'00ff10'";
    const reply = await driverQuery(
      server.url,
      `select 9007199254740993 as big, 42 as small, ${blob} as ${testEngine === 'mysql' ? '`blob`' : 'blob'}`,
    );
    assert.deepStrictEqual(reply.body.rows, [['9007199254740993', 42, 'AP8Q']]);
  });

  it('runs a SELECT whose text mentions DELETE and DROP: the SQL text is not what decides', async () => {
    const reply = await driverQuery(
      server.url,
      "select 'delete from groups; drop table groups' as text",
    );
    assert.deepStrictEqual(reply.body.rows, [['delete from groups; drop table groups']]);
  });

  for (const statement of [...WRITES, ...ENGINE_WRITES]) {
    it(`refuses "${statement}" with 422 and leaves the database unchanged`, async () => {
      const before = await state();
      assertJson(await driverQuery(server.url, statement), 422, READ_ONLY);
      assert.deepStrictEqual(await state(), before);
    });
  }

  it('refuses VACUUM INTO before it creates the file', {
    skip: testEngine !== 'sqlite' && "VACUUM INTO is SQLite's",
  }, async () => {
    const target = path.join(server.dataDir, 'copy.sqlite');
    assertJson(await driverQuery(server.url, `vacuum into '${target}'`), 422, READ_ONLY);
    assert.equal(fs.existsSync(target), false);
  });

  it(`keeps nothing from one statement to the next: "${SESSION.lift}" does not open the way`, async () => {
    assertJson(await driverQuery(server.url, SESSION.lift), 200);
    const before = await state();
    assertJson(await driverQuery(server.url, 'delete from groups'), 422, READ_ONLY);
    assert.deepStrictEqual(await state(), before);
    assertJson(await driverQuery(server.url, SESSION.leave), 200);
    const probe = await driverQuery(server.url, SESSION.probe);
    if (SESSION.left === null) assert.equal(probe.status, 422, probe.text);
    else assert.deepStrictEqual(probe.body.rows, SESSION.left);
  });

  it('refuses to turn the transaction read-write from inside a statement (PostgreSQL)', {
    skip: testEngine !== 'postgres' && 'the PostgreSQL transaction rule',
  }, async () => {
    const before = await state();
    const message = refusedStatement('transaction read-write mode must be set before any query');
    assertJson(await driverQuery(server.url, 'set transaction read write'), 422, message);
    assertJson(
      await driverQuery(server.url, "select set_config('transaction_read_only', 'off', false)"),
      422,
      message,
    );
    assert.deepStrictEqual(await state(), before);
  });

  it('refuses more than one statement with 422, whatever the statements', async () => {
    const before = await state();
    assertJson(await driverQuery(server.url, 'select 1; select 2'), 422, ONE_STATEMENT);
    assertJson(await driverQuery(server.url, 'select 1; delete from groups'), 422, ONE_STATEMENT);
    assertJson(
      await driverQuery(
        server.url,
        "select 1 as one; -- a comment; then\n insert into groups (name) values ('x')",
      ),
      422,
      ONE_STATEMENT,
    );
    assert.deepStrictEqual(await state(), before);
    // A trailing semicolon or comment is not a second statement.
    assert.deepStrictEqual((await driverQuery(server.url, 'select 1 as one; -- done')).body.rows, [
      [1],
    ]);
  });

  it(`cuts the rows at REST_DRIVER_MAX_ROWS (${MAX_ROWS}) and says so with truncated: true`, async () => {
    const many = await driverQuery(server.url, `${COUNTER} select x from c limit 1000000`);
    assertJson(many, 200, {
      columns: [{ name: 'x', type: null }],
      rows: [[1], [2], [3], [4], [5]],
      row_count: 5,
      truncated: true,
    });
    // Without a LIMIT of its own (MariaDB/MySQL: sql_select_limit stops the server there).
    assertJson(await driverQuery(server.url, `${COUNTER} select x from c`), 200, many.body);
    const exactly = await driverQuery(server.url, `${COUNTER} select x from c limit ${MAX_ROWS}`);
    assert.equal(exactly.body.row_count, MAX_ROWS);
    assert.equal(exactly.body.truncated, false);
  });

  it(`cancels a statement after REST_DRIVER_TIMEOUT_MS (${TIMEOUT_MS}) while other requests go on being answered`, async () => {
    const started = Date.now();
    const slow = driverQuery(server.url, SLOW_SELECT).then((reply) => ({ reply, at: Date.now() }));
    const tables = await driverRequest(server.url, 'GET', `${DRIVER}/tables`);
    const tablesAt = Date.now();
    assertJson(tables, 200);
    const { reply, at } = await slow;
    assertJson(
      reply,
      422,
      refusedStatement(`The statement ran longer than ${TIMEOUT_MS} ms and was cancelled.`),
    );
    assert.ok(tablesAt < at, 'the catalog request was answered while the statement ran');
    assert.ok(at - started >= TIMEOUT_MS);
  });

  it('answers a statement the database cannot run with 422 and its message', async () => {
    for (const { sql: text, bindings, message } of CANNOT_RUN) {
      const reply = await driverQuery(server.url, text, bindings);
      if (typeof message === 'string') assertJson(reply, 422, refusedStatement(message));
      else {
        assertJson(reply, 422);
        assert.match(reply.body.message, message);
        assert.deepStrictEqual(reply.body.errors, { sql: [reply.body.message] });
      }
    }
    // MariaDB prepares a statement of comments only as one that does nothing.
    const comment = await driverQuery(server.url, '-- nothing but a comment');
    if (testEngine === 'mysql')
      assertJson(comment, 200, { columns: [], rows: [], row_count: 0, truncated: false });
    else assertJson(comment, 422, EMPTY);
  });

  it('checks the body first: sql required, bindings an array of scalars, connection a known name', async () => {
    const query = (body: unknown): Promise<Reply> =>
      driverRequest(server.url, 'POST', `${DRIVER}/query`, { body });
    assertJson(await query({}), 422, {
      message: 'The sql field is required.',
      errors: { sql: ['The sql field is required.'] },
    });
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
    assertJson(
      await driverRequest(server.url, 'POST', `${DRIVER}/query`, { raw: '{"sql": ' }),
      400,
      { message: 'The request body is not valid JSON.' },
    );
  });
});
