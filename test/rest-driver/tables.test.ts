// GET /_mad/rest-driver/tables and /tables/{name}: the user tables and views of the database a
// request names (`?connection=`, a DB_CONNECTIONS entry; the main database by default), and
// one table's columns. The name is looked up among existing tables, never spliced into SQL. On
// every engine: SQLite's catalog, PostgreSQL's and MariaDB's information_schema for the
// database's current schema, each naming types its own way.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import {
  createTestDatabase,
  runStatements,
  type TestDatabase,
  testEngine,
} from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { DRIVER, driverEnv, driverQuery, driverRequest } from '../helpers/rest-driver-client.js';
import { declared } from '../helpers/rest-driver-engine.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const TABLES = `${DRIVER}/tables`;
const TABLE_NOT_FOUND = { error: 'Table not found' };

const ARCHIVE = [
  'create table old_orders (id integer primary key, total real not null default 0, note text)',
  'insert into old_orders (id, total) values (1, 9.5)',
];
/** old_orders as each engine's catalog describes it (MariaDB's `real` is a double). */
const ARCHIVE_COLUMNS = {
  sqlite: { id: 'INTEGER', total: 'REAL', note: 'TEXT' },
  postgres: { id: 'integer', total: 'real', note: 'text' },
  mysql: { id: 'int(11)', total: 'double', note: 'text' },
}[testEngine];
/** The default of companies.active and of the generated key, as each catalog holds them. */
const DEFAULTS = {
  sqlite: { id: null, active: "'Y'" },
  postgres: { id: "nextval('companies_id_seq'::regclass)", active: "'Y'::character varying" },
  mysql: { id: null, active: "'Y'" },
}[testEngine];

describe('driver: tables and columns', () => {
  let server: TestServer;
  let archiveDir: string;
  let archiveDatabase: TestDatabase | null = null;
  let missingDatabase: TestDatabase | null = null;
  before(async () => {
    // A second database, named by DB_CONNECTIONS, on the engine under test; and one that does not exist.
    archiveDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-driver-archive-'));
    let archiveUrl: string;
    let missingUrl: string;
    if (testEngine === 'sqlite') {
      const archive = new BetterSqlite3(path.join(archiveDir, 'archive.sqlite'));
      for (const statement of ARCHIVE) archive.exec(statement);
      archive.close();
      archiveUrl = `sqlite:${path.join(archiveDir, 'archive.sqlite')}`;
      missingUrl = `sqlite:${path.join(archiveDir, 'missing.sqlite')}`;
    } else {
      archiveDatabase = await createTestDatabase();
      archiveUrl = archiveDatabase.url as string;
      await runStatements(testEngine, archiveUrl, ARCHIVE);
      missingDatabase = await createTestDatabase();
      missingUrl = missingDatabase.url as string;
    }
    server = await startTestServer(
      driverEnv({ DB_CONNECTIONS: JSON.stringify({ archive: archiveUrl, missing: missingUrl }) }),
      { anonymous: true },
    );
    await sql`create view active_companies as select id, name from companies where active = 'Y'`.execute(
      server.service.database.db,
    );
    // The service migrates every DB_CONNECTIONS database at start (units may keep their data
    // there); "missing" is then a database gone while the service runs.
    for (const suffix of ['', '-wal', '-shm'])
      fs.rmSync(path.join(archiveDir, `missing.sqlite${suffix}`), { force: true });
    await missingDatabase?.drop();
  });
  after(async () => {
    await server.close();
    await archiveDatabase?.drop();
    fs.rmSync(archiveDir, { recursive: true, force: true });
  });

  it("lists the tables and views by name, without the engine's own", async () => {
    const reply = await driverRequest(server.url, 'GET', TABLES);
    assertJson(reply, 200);
    const tables: Array<{ name: string; type: string }> = reply.body.tables;
    assert.deepStrictEqual(
      tables.find((t) => t.name === 'companies'),
      { name: 'companies', type: 'table' },
    );
    assert.deepStrictEqual(
      tables.find((t) => t.name === 'active_companies'),
      { name: 'active_companies', type: 'view' },
    );
    assert.deepStrictEqual(
      tables.map((t) => t.name),
      [...tables.map((t) => t.name)].sort(),
    );
    assert.equal(
      tables.some((t) => /^(sqlite_|pg_)/.test(t.name)),
      false,
    );
  });

  it("describes a table's columns: name, declared type, nullable, default, primary key", async () => {
    assertJson(await driverRequest(server.url, 'GET', `${TABLES}/companies`), 200, {
      name: 'companies',
      columns: [
        { name: 'id', type: declared.id, nullable: false, default: DEFAULTS.id, primary_key: true },
        {
          name: 'name',
          type: declared.varchar(200),
          nullable: false,
          default: null,
          primary_key: false,
        },
        {
          name: 'active',
          type: declared.varchar(1),
          nullable: false,
          default: DEFAULTS.active,
          primary_key: false,
        },
        {
          name: 'created_at',
          type: declared.timestamp,
          nullable: true,
          default: null,
          primary_key: false,
        },
        {
          name: 'updated_at',
          type: declared.timestamp,
          nullable: true,
          default: null,
          primary_key: false,
        },
      ],
    });
    const view = await driverRequest(server.url, 'GET', `${TABLES}/active_companies`);
    assert.deepStrictEqual(
      view.body.columns.map((c: { name: string }) => c.name),
      ['id', 'name'],
    );
  });

  it('answers 404 {error: "Table not found"} for a name that is not a table, however it is written', async () => {
    for (const name of [
      'no_such_table',
      'sqlite_schema',
      'pg_class',
      'TABLES',
      'COMPANIES',
      encodeURIComponent('companies; drop table groups'),
      encodeURIComponent("companies') --"),
    ]) {
      assertJson(await driverRequest(server.url, 'GET', `${TABLES}/${name}`), 404, TABLE_NOT_FOUND);
    }
    const groups = await driverRequest(server.url, 'GET', `${TABLES}/groups`);
    assertJson(groups, 200);
  });

  it('reaches a DB_CONNECTIONS database by name, for the catalog and for queries', async () => {
    const catalog = await driverRequest(server.url, 'GET', `${TABLES}?connection=archive`);
    assertJson(catalog, 200);
    // The archive's own table, next to the data tables the service's migrations made there.
    const names = catalog.body.tables.map((t: { name: string }) => t.name);
    assert.ok(names.includes('old_orders') && names.includes('import_templates'), names.join(', '));
    assertJson(
      await driverRequest(server.url, 'GET', `${TABLES}/old_orders?connection=archive`),
      200,
      {
        name: 'old_orders',
        columns: [
          {
            name: 'id',
            type: ARCHIVE_COLUMNS.id,
            nullable: false,
            default: null,
            primary_key: true,
          },
          {
            name: 'total',
            type: ARCHIVE_COLUMNS.total,
            nullable: false,
            default: '0',
            primary_key: false,
          },
          {
            name: 'note',
            type: ARCHIVE_COLUMNS.note,
            nullable: true,
            default: null,
            primary_key: false,
          },
        ],
      },
    );
    assertJson(
      await driverRequest(server.url, 'GET', `${TABLES}/companies?connection=archive`),
      404,
      TABLE_NOT_FOUND,
    );
    const query = await driverQuery(server.url, 'select id, total from old_orders', undefined, {
      connection: 'archive',
    });
    assert.deepStrictEqual(query.body.rows, [[1, 9.5]]);
  });

  it('answers 422 for an unknown connection and 503 for one whose database cannot be opened', async () => {
    const invalid = {
      message: 'The selected connection is invalid.',
      errors: { connection: ['The selected connection is invalid.'] },
    };
    assertJson(
      await driverRequest(server.url, 'GET', `${TABLES}?connection=nowhere`),
      422,
      invalid,
    );
    assertJson(
      await driverQuery(server.url, 'select 1', undefined, { connection: 'nowhere' }),
      422,
      invalid,
    );
    const unavailable = { message: 'The database is unavailable. Try again shortly.' };
    assertJson(
      await driverRequest(server.url, 'GET', `${TABLES}?connection=missing`),
      503,
      unavailable,
    );
    assertJson(
      await driverQuery(server.url, 'select 1', undefined, { connection: 'missing' }),
      503,
      unavailable,
    );
    assert.equal(fs.existsSync(path.join(archiveDir, 'missing.sqlite')), false);
  });
});
