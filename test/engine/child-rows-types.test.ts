// DialectAdapter.childRows carries a record's detail rows in the record's own select, as JSON:
// the rows it gives back must be exactly those a plain select of the child table gives on that
// engine, for every column type the engine has (PostgreSQL: numeric stays a string, timestamps
// Date objects to the millisecond, bytea bytes, json and jsonb parsed, int8 a number, NaN, NULL),
// so every answer stays byte-identical to the batched statement's (and to SQLite's).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { defineEntity } from '../../src/model/entity.js';
import {
  embeddedRows,
  embeddedStoredRows,
  loadHasMany,
} from '../../src/model/relations/eager-load.js';
import { hasMany } from '../../src/model/relations/relation.js';
import { NO_SCOPE } from '../../src/model/scope.js';
import { testEngine } from '../helpers/engines.js';
import { type FixtureApp, startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson } from '../helpers/http.js';
import { insertRow } from '../helpers/rows.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** Per engine: the typed columns of the child table and the rows they hold (column -> value). */
const TYPES: Record<
  string,
  {
    columns: Array<[string, string]>;
    rows: Array<Record<string, unknown>>;
    /** Table options, as svc's migrations give them (column-types.ts). */
    table?: string;
  }
> = {
  postgres: {
    columns: [
      ['small', 'smallint'],
      ['whole', 'integer'],
      ['big', 'bigint'],
      ['exact', 'numeric(30,10)'],
      ['single', 'real'],
      ['double', 'double precision'],
      ['flag', 'boolean'],
      ['note', 'text'],
      ['short', 'varchar(20)'],
      ['fixed', 'char(4)'],
      ['stamp', 'timestamptz'],
      ['local', 'timestamp'],
      ['day', 'date'],
      ['raw', 'bytea'],
      ['doc', 'json'],
      ['docb', 'jsonb'],
      ['uid', 'uuid'],
      ['list', 'integer[]'],
    ],
    rows: [
      {
        small: -32768,
        whole: 2147483647,
        big: '9007199254740993',
        exact: '12345678901234567890.0123456789',
        single: 0.1,
        double: 0.1 + 0.2,
        flag: true,
        note: 'a "quote", ünïcödé \\ \n and 🙂',
        short: 'short',
        fixed: 'ab',
        stamp: '2024-02-29 23:59:59.123456+00',
        local: '2024-02-29 23:59:59.987654',
        day: '2024-02-29',
        raw: Buffer.from([0, 255, 16, 92]),
        doc: '{"b": 1,  "a": [1, 2.50, "x"], "n": null}',
        docb: '{"b": 1, "a": [1, 2.50, "x"]}',
        uid: '2f1c1a0e-5d4b-4c3a-9e2f-1a2b3c4d5e6f',
        list: [3, 1, 2],
      },
      {
        small: 0,
        whole: -1,
        big: '-42',
        exact: 'NaN',
        single: Number.NaN,
        double: Number.POSITIVE_INFINITY,
        flag: false,
        note: '',
        short: '',
        fixed: '',
        stamp: '1970-01-01 00:00:00+00',
        local: '1999-12-31 00:00:00',
        day: '1970-01-01',
        raw: Buffer.alloc(0),
        doc: '"text"',
        docb: '[]',
        uid: '00000000-0000-0000-0000-000000000000',
        list: [],
      },
      {},
    ],
  },
  mysql: {
    table: 'engine = InnoDB default charset = utf8mb4 collate = utf8mb4_bin',
    // Integers past 2^53 are not among them: a plain select reads them as text, JSON as the
    // nearest number (svc's integer cast stores none).
    columns: [
      ['tiny', 'tinyint'],
      ['small', 'smallint'],
      ['whole', 'int'],
      ['big', 'bigint'],
      ['exact', 'decimal(30,10)'],
      ['single', 'float'],
      ['dbl', 'double'],
      ['flag', 'boolean'],
      ['note', 'text'],
      ['short', 'varchar(20)'],
      ['fixed', 'char(4)'],
      ['stamp', 'datetime(3)'],
      ['micro', 'datetime(6)'],
      ['day', 'date'],
      ['clock', 'time'],
      ['yr', 'year'],
      ['choice', "enum('a','b')"],
      ['doc', 'json'],
      ['raw', 'blob'],
      ['bin', 'varbinary(8)'],
      ['bits', 'bit(8)'],
    ],
    rows: [
      {
        tiny: -128,
        small: -32768,
        whole: 2147483647,
        big: 9007199254740991,
        exact: '12345678901234567890.0123456789',
        single: 0.1,
        dbl: 0.1 + 0.2,
        flag: true,
        note: 'a "quote", ünïcödé \\ \n and 🙂',
        short: 'short',
        fixed: 'ab',
        stamp: '2024-02-29 23:59:59.123',
        micro: '2024-02-29 23:59:59.987654',
        day: '2024-02-29',
        clock: '12:34:56',
        yr: 2024,
        choice: 'b',
        doc: '{"b": 1,  "a": [1, 2.50, "x"], "n": null}',
        raw: Buffer.from([0, 255, 16, 92]),
        bin: Buffer.from([0xf0, 0x9f]),
        bits: Buffer.from([5]),
      },
      {
        tiny: 0,
        small: 0,
        whole: -1,
        big: -42,
        exact: '-0.5',
        single: -1.5,
        dbl: -1e-300,
        flag: false,
        note: '',
        short: '',
        fixed: '',
        stamp: '1970-01-01 00:00:00.000',
        micro: '1999-12-31 00:00:00.000001',
        day: '1970-01-01',
        clock: '-01:00:00',
        yr: 1999,
        choice: 'a',
        doc: '[1, "two"]',
        raw: Buffer.alloc(0),
        bin: Buffer.from('ab'),
        bits: Buffer.from([0]),
      },
      {},
    ],
  },
  sqlite: {
    columns: [
      ['whole', 'integer'],
      ['big', 'integer'],
      ['double', 'real'],
      ['note', 'text'],
      ['raw', 'blob'],
      ['loose', ''],
    ],
    rows: [
      {
        whole: -1,
        big: 9007199254740991,
        double: 0.1 + 0.2,
        note: 'a "quote", ünïcödé \\ \n and 🙂',
        raw: Buffer.from([0, 255, 16]),
        loose: 1.5,
      },
      { whole: 0, big: -42, double: -1e-300, note: '', raw: Buffer.alloc(0), loose: 'text' },
      {},
    ],
  },
};
const engine = TYPES[testEngine];
const columns = engine?.columns ?? [];

const fxTyped = defineEntity({
  name: 'FxTypedRow',
  table: 'fx_typed_rows',
  storage: 'data',
  columns: ['id', 'template_id', ...columns.map(([name]) => name)],
  fillable: [],
});
const fxTypedParent = defineEntity({
  name: 'FxTypedParent',
  table: 'import_templates',
  storage: 'data',
  columns: ['id', 'title'],
  casts: { id: 'integer' },
  fillable: ['title'],
  relations: { typed: hasMany(() => fxTyped, 'template_id') },
});
const typedResource = defineResource({
  model: fxTypedParent,
  details: ['typed'],
  defaultOrder: 'id asc',
});
const relation = fxTypedParent.relations.typed as Parameters<typeof loadHasMany>[1];

describe('detail rows of every column type: read with the record as a plain select reads them', {
  skip: engine ? false : `${testEngine} has no childRows: its detail rows are a plain select`,
}, () => {
  let server: TestServer;
  let fixture: FixtureApp;
  let parent: number;

  before(async () => {
    server = await startTestServer();
    const { db } = server.service.database;
    await sql
      .raw(
        `create table fx_typed_rows (id integer primary key, template_id integer not null, ${columns
          .map(([name, type]) => `${name} ${type}`)
          .join(', ')}) ${engine?.table ?? ''}`,
      )
      .execute(db);
    parent = await insertRow(db, 'import_templates', templatePayload({ title: 'Typed' }));
    // Inserted out of key order: read back in key order.
    for (const [i, values] of (engine?.rows ?? []).entries()) {
      await db
        .insertInto('fx_typed_rows')
        .values({ id: 30 - i * 10, template_id: parent, ...values })
        .execute();
    }
    fixture = await startFixtureApp(server.service.database, [
      { path: '/api/fx-typed', resource: typedResource },
    ]);
  });
  after(async () => {
    await fixture?.close();
    await server.close();
  });

  it("a record's detail rows read in its own statement equal a plain select of the child table, value for value", async () => {
    const { db, adapter } = server.service.database;
    assert.ok(adapter.childRows, `${adapter.name} has childRows`);
    const plain = await db
      .selectFrom('fx_typed_rows')
      .select(fxTyped.columns)
      .where('template_id', '=', parent)
      .orderBy('id')
      .execute();
    assert.equal(plain.length, 3);
    const [row] = await db
      .selectFrom('import_templates')
      .select(embeddedRows(relation, 'import_templates', NO_SCOPE, adapter.childRows).as('rows'))
      .where('id', '=', parent)
      .execute();
    assert.deepStrictEqual(embeddedStoredRows(relation, adapter)(row?.rows), plain);
  });

  it('show and list answer every column type exactly as the batched statement does', async () => {
    const { db } = server.service.database;
    const batched = await loadHasMany({ system: db, data: db }, relation, [parent], NO_SCOPE);
    const expected = JSON.parse(JSON.stringify(batched.get(String(parent))));
    assert.equal(expected.length, 3);
    const shown = await fixture.get(`/api/fx-typed/${parent}`);
    assertJson(shown, 200);
    assert.deepStrictEqual(shown.body.typed, expected);
    const listed = await fixture.get('/api/fx-typed?per_page=100');
    assertJson(listed, 200);
    const item = listed.body.data.find((record: { id: number }) => record.id === parent);
    assert.deepStrictEqual(item.typed, expected);
  });
});
