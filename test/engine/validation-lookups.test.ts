// The exists and unique rules (SPEC.md 4.4 rule 2) ask the database through the entity declared
// for the table: by that entity's own primary key, and within the caller's unit and tenant (a
// unit-bound row of another unit neither exists for the caller nor takes a value from it).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { defineEntity } from '../../src/model/entity.js';
import { actingInUnit, type FixtureApp, startFixtureApp } from '../helpers/fixture-app.js';
import { assertJson } from '../helpers/http.js';
import { insertRow } from '../helpers/rows.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// A table keyed by another column than `id`.
const fxKeyed = defineEntity({
  name: 'FxLookupKeyed',
  table: 'fx_lookup_keyed',
  storage: 'data',
  primaryKey: 'num',
  columns: ['num', 'label'],
  casts: { num: 'integer' },
  fillable: ['label'],
  rules: (id) => ({
    label: ['required', 'string', `unique:fx_lookup_keyed,label,${id ?? 'NULL'}`],
  }),
});
// Notes on run logs, which are unit-bound (import_template_logs.unit_id).
const fxNote = defineEntity({
  name: 'FxLookupLogNote',
  table: 'fx_lookup_notes',
  storage: 'data',
  columns: ['id', 'log_id', 'note'],
  casts: { id: 'integer', log_id: 'integer' },
  fillable: ['log_id', 'note'],
  rules: () => ({
    log_id: ['required', 'integer', 'exists:import_template_logs,id'],
    note: ['nullable', 'string', 'unique:import_template_logs,message'],
  }),
});

describe('SPEC 4.4 exists and unique lookups', () => {
  let server: TestServer;
  let fixture: FixtureApp;
  let ours: number;
  let theirs: number;

  before(async () => {
    server = await startTestServer();
    const database = server.service.database;
    const { db, adapter } = database;
    const key = (name: string) =>
      db.schema
        .createTable(name)
        .addColumn(
          name === 'fx_lookup_keyed' ? 'num' : 'id',
          adapter.name === 'postgres' ? 'serial' : 'integer',
          (c) => (adapter.name === 'mysql' ? c.primaryKey().autoIncrement() : c.primaryKey()),
        );
    await key('fx_lookup_keyed').addColumn('label', 'varchar(100)').execute();
    await key('fx_lookup_notes')
      .addColumn('log_id', 'integer')
      .addColumn('note', 'varchar(100)')
      .execute();
    const template = await insertRow(db, 'import_templates', templatePayload({ title: 'Logged' }));
    ours = await insertRow(db, 'import_template_logs', {
      template_id: template,
      unit_id: 1,
      status: 'succeeded',
      message: 'ours',
    });
    theirs = await insertRow(db, 'import_template_logs', {
      template_id: template,
      unit_id: 2,
      status: 'failed',
      message: 'theirs',
    });
    const { registry, middleware: inUnit1 } = actingInUnit(database, 1);
    fixture = await startFixtureApp(
      database,
      [
        { path: '/api/fx-keyed', resource: defineResource({ model: fxKeyed }) },
        { path: '/api/fx-notes', resource: defineResource({ model: fxNote }), middleware: inUnit1 },
      ],
      {},
      registry,
    );
  });
  after(async () => {
    await fixture?.close();
    await server.close();
  });

  it('unique reads the table by its entity primary key, and ignores the record itself on update', async () => {
    const first = await fixture.post('/api/fx-keyed', { label: 'alpha' });
    assertJson(first, 201, { num: first.body.num, label: 'alpha' });
    assertJson(await fixture.post('/api/fx-keyed', { label: 'alpha' }), 422, {
      message: 'The label has already been taken.',
      errors: { label: ['The label has already been taken.'] },
    });
    assertJson(await fixture.put(`/api/fx-keyed/${first.body.num}`, { label: 'alpha' }), 200, {
      num: first.body.num,
      label: 'alpha',
    });
  });

  it('exists finds a unit-bound row of the caller unit only', async () => {
    const created = await fixture.post('/api/fx-notes', { log_id: ours, note: null });
    assertJson(created, 201, { id: created.body.id, log_id: ours, note: null });
    assertJson(await fixture.post('/api/fx-notes', { log_id: theirs, note: null }), 422, {
      message: 'The selected log id is invalid.',
      errors: { log_id: ['The selected log id is invalid.'] },
    });
  });

  it('unique counts only the caller unit rows as taken', async () => {
    assertJson(await fixture.post('/api/fx-notes', { log_id: ours, note: 'ours' }), 422, {
      message: 'The note has already been taken.',
      errors: { note: ['The note has already been taken.'] },
    });
    const free = await fixture.post('/api/fx-notes', { log_id: ours, note: 'theirs' });
    assertJson(free, 201, { id: free.body.id, log_id: ours, note: 'theirs' });
  });

  it('asks a write’s exists and unique lookups in one statement, each answered by its own rows', async () => {
    const measured = async (body: Record<string, unknown>) => {
      const { value: reply, statements } = await server.counted(() =>
        fixture.post('/api/fx-notes', body),
      );
      return { reply, statements };
    };
    // An integer column and a text one: each lookup keeps its own columns' types in the union.
    const both = await measured({ log_id: theirs, note: 'ours' });
    assertJson(both.reply, 422, {
      message: 'The selected log id is invalid. (and 1 more error)',
      errors: {
        log_id: ['The selected log id is invalid.'],
        note: ['The note has already been taken.'],
      },
    });
    const one = await measured({ log_id: theirs, note: null });
    assertJson(one.reply, 422, {
      message: 'The selected log id is invalid.',
      errors: { log_id: ['The selected log id is invalid.'] },
    });
    assert.equal(both.statements, one.statements, 'the unique lookup rides with the exists one');
    const passing = await measured({ log_id: ours, note: 'a fresh note' });
    assertJson(passing.reply, 201, {
      id: passing.reply.body.id,
      log_id: ours,
      note: 'a fresh note',
    });
  });

  it('answers three lookups of one write in one statement: a unique on text and two exists on integers', async () => {
    const user = (login: string, unit: number, group: number) => ({
      login,
      name: 'Three lookups',
      password: 'three-lookups-password',
      units: [{ unit_id: unit }],
      groups: [{ group_id: group }],
    });
    const first = await server.post('/api/users', user('three-lookups', 1, 999999));
    assertJson(first, 422, {
      message: 'The selected groups.0.group_id is invalid.',
      errors: { 'groups.0.group_id': ['The selected groups.0.group_id is invalid.'] },
    });
    const groupId = await insertRow(server.service.database.db, 'groups', { name: 'Three' });
    const created = await server.post('/api/users', user('three-lookups', 1, groupId));
    assertJson(created, 201);
    const { units: _, groups: __, ...loginOnly } = user('three-lookups', 0, 0);
    const alone = await server.counted(() => server.post('/api/users', loginOnly));
    assertJson(alone.value, 422, {
      message: 'The login has already been taken.',
      errors: { login: ['The login has already been taken.'] },
    });
    const taken = await server.counted(() =>
      server.post('/api/users', user('three-lookups', 999999, 999999)),
    );
    assertJson(taken.value, 422, {
      message: 'The login has already been taken. (and 2 more errors)',
      errors: {
        login: ['The login has already been taken.'],
        'units.0.unit_id': ['The selected units.0.unit_id is invalid.'],
        'groups.0.group_id': ['The selected groups.0.group_id is invalid.'],
      },
    });
    assert.equal(
      taken.statements,
      alone.statements,
      'the two exists lookups ride with the unique one',
    );
  });
});
