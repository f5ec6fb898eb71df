// SPEC.md 2.1 `with` ("detail relations are loaded too") and 2.2 rule 1: a record carries its
// detail rows in primary key order, every stored value as the column holds it. On SQLite they
// come as one JSON column of the record's own select (DialectAdapter.childRows); elsewhere by a
// batched statement. Both must answer the same: doubles to the last digit, text with quotes
// and non-ASCII characters, nulls, bytes, and no rows at all.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { defineEntity } from '../../src/model/entity.js';
import { hasMany } from '../../src/model/relations/relation.js';
import { actingInUnit, type FixtureApp, startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson } from '../helpers/http.js';
import { insertRow } from '../helpers/rows.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const fxMeasure = defineEntity({
  name: 'FxDetailMeasure',
  table: 'fx_measures',
  storage: 'data',
  columns: ['id', 'template_id', 'reading', 'note', 'raw'],
  casts: { id: 'integer', template_id: 'integer' },
  fillable: ['reading', 'note'],
});
const fxTemplate = defineEntity({
  name: 'FxDetailTemplate',
  table: 'import_templates',
  storage: 'data',
  columns: ['id', 'title'],
  casts: { id: 'integer' },
  fillable: ['title'],
  relations: { measures: hasMany(() => fxMeasure, 'template_id') },
});
const measured = defineResource({
  model: fxTemplate,
  details: ['measures'],
  defaultOrder: 'id asc',
});

const bytes = (values: number[]) => ({ type: 'Buffer', data: values });

describe('SPEC 2.1 detail rows in a record', () => {
  let server: TestServer;
  let fixture: FixtureApp;
  let withRows: number;
  let without: number;

  before(async () => {
    server = await startTestServer();
    const { db, adapter } = server.service.database;
    await db.schema
      .createTable('fx_measures')
      .addColumn('id', adapter.name === 'postgres' ? 'serial' : 'integer', (c) =>
        adapter.name === 'mysql' ? c.primaryKey().autoIncrement() : c.primaryKey(),
      )
      .addColumn('template_id', 'integer', (c) => c.notNull())
      .addColumn('reading', 'double precision')
      .addColumn('note', 'text')
      .addColumn('raw', adapter.name === 'postgres' ? 'bytea' : 'blob')
      .execute();
    withRows = await insertRow(db, 'import_templates', templatePayload({ title: 'With rows' }));
    without = await insertRow(db, 'import_templates', templatePayload({ title: 'Without' }));
    // Inserted out of key order (ids clear of the sequence new rows take): answered in key order.
    await insertRow(db, 'fx_measures', {
      id: 301,
      template_id: withRows,
      reading: 0.1 + 0.2,
      note: 'a "quote", ünïcödé \\ and 🙂',
      raw: Buffer.from([0, 255, 16]),
    });
    await insertRow(db, 'fx_measures', {
      id: 101,
      template_id: withRows,
      reading: -1e-300,
      note: null,
      raw: null,
    });
    await insertRow(db, 'fx_measures', {
      id: 201,
      template_id: withRows,
      reading: 123456789.12345679,
      note: '',
      raw: Buffer.alloc(0),
    });
    fixture = await startFixtureApp(server.service.database, [
      { path: '/api/fx-measured', resource: measured },
    ]);
  });
  after(async () => {
    await fixture?.close();
    await server.close();
  });

  const expected = () => [
    { id: 101, template_id: withRows, reading: -1e-300, note: null, raw: null },
    { id: 201, template_id: withRows, reading: 123456789.12345679, note: '', raw: bytes([]) },
    {
      id: 301,
      template_id: withRows,
      reading: 0.30000000000000004,
      note: 'a "quote", ünïcödé \\ and 🙂',
      raw: bytes([0, 255, 16]),
    },
  ];

  it('show: the detail rows in key order, every value as stored', async () => {
    const reply = await fixture.get(`/api/fx-measured/${withRows}`);
    assertJson(reply, 200);
    assert.deepEqual(reply.body.measures, expected());
  });

  it('show: a record without detail rows carries an empty list', async () => {
    const reply = await fixture.get(`/api/fx-measured/${without}`);
    assertJson(reply, 200);
    assert.deepEqual(reply.body.measures, []);
  });

  it('list: each item carries its own detail rows only', async () => {
    const reply = await fixture.get('/api/fx-measured?per_page=50');
    assertJson(reply, 200);
    const byId = new Map(reply.body.data.map((item: { id: number }) => [item.id, item]));
    assert.deepEqual((byId.get(withRows) as { measures: unknown }).measures, expected());
    assert.deepEqual((byId.get(without) as { measures: unknown }).measures, []);
  });

  it('write answers: the reloaded record carries the detail rows just written', async () => {
    const reply = await fixture.put(`/api/fx-measured/${without}`, {
      measures: [
        { reading: 2.5, note: 'new' },
        { reading: null, note: 'second' },
      ],
    });
    assertJson(reply, 200);
    assert.deepEqual(
      reply.body.measures.map((m: { reading: unknown; note: unknown; raw: unknown }) => [
        m.reading,
        m.note,
        m.raw,
      ]),
      [
        [2.5, 'new', null],
        [null, 'second', null],
      ],
    );
  });
});

// SPEC.md 5.1.3 with DESIGN.md 3.5: a unit-bound detail relation shows, and a write compares
// against, the caller's unit's rows only; another unit's rows are neither shown nor changed.
const fxLog = defineEntity({
  name: 'FxDetailLog',
  table: 'import_template_logs',
  storage: 'data',
  columns: ['id', 'template_id', 'unit_id', 'status'],
  casts: { id: 'integer', template_id: 'integer', unit_id: 'integer' },
  fillable: ['status'],
  unitColumn: 'unit_id',
});
const fxLogged = defineEntity({
  name: 'FxDetailLogged',
  table: 'import_templates',
  storage: 'data',
  columns: ['id', 'title'],
  casts: { id: 'integer' },
  fillable: ['title'],
  relations: { logs: hasMany(() => fxLog, 'template_id') },
});
const logged = defineResource({ model: fxLogged, details: ['logs'], defaultOrder: 'id asc' });

describe('SPEC 5.1.3 unit-bound detail rows: the caller unit only', () => {
  let server: TestServer;
  let fixture: FixtureApp;
  let template: number;
  let ours: number;
  let theirs: number;

  before(async () => {
    server = await startTestServer();
    const database = server.service.database;
    template = await insertRow(
      database.db,
      'import_templates',
      templatePayload({ title: 'Logged' }),
    );
    ours = await insertRow(database.db, 'import_template_logs', {
      template_id: template,
      unit_id: 1,
      status: 'succeeded',
    });
    theirs = await insertRow(database.db, 'import_template_logs', {
      template_id: template,
      unit_id: 2,
      status: 'failed',
    });
    const { registry, middleware } = actingInUnit(database, 1);
    fixture = await startFixtureApp(
      database,
      [
        {
          path: '/api/fx-logged',
          resource: logged,
          middleware,
        },
      ],
      {},
      registry,
    );
  });
  after(async () => {
    await fixture?.close();
    await server.close();
  });

  it('show and list: only the caller unit rows', async () => {
    const shown = await fixture.get(`/api/fx-logged/${template}`);
    assertJson(shown, 200);
    assert.deepEqual(shown.body.logs, [
      { id: ours, template_id: template, unit_id: 1, status: 'succeeded' },
    ]);
    const listed = await fixture.get('/api/fx-logged?per_page=50');
    assertJson(listed, 200);
    const item = listed.body.data.find((record: { id: number }) => record.id === template);
    assert.deepEqual(
      item.logs.map((log: { id: number }) => log.id),
      [ours],
    );
  });

  it('update: another unit row is not this write to change or delete', async () => {
    const refused = await fixture.put(`/api/fx-logged/${template}`, {
      logs: [{ id: theirs, status: 'queued' }],
    });
    assertJson(refused, 422);
    assert.ok('logs.0.id' in refused.body.errors, JSON.stringify(refused.body));
    // An empty list removes the caller's rows only.
    const emptied = await fixture.put(`/api/fx-logged/${template}`, { logs: [] });
    assertJson(emptied, 200);
    assert.deepEqual(emptied.body.logs, []);
    const left = await server.service.database.db
      .selectFrom('import_template_logs')
      .select(['id', 'status'])
      .where('template_id', '=', template)
      .execute();
    assert.deepEqual(
      left.map((row) => [Number(row.id), row.status]),
      [[theirs, 'failed']],
    );
  });
});
