// Issue 36: the 26 mistakes a developer makes declaring a resource (the `suppliers` of the issue,
// a master with detail relations `contacts` and `addresses`, a creator, exists/unique rules, a
// projection and a transformer). Each one stops the service before it serves, with a message
// naming the resource and the fix, or cannot be written. Mistakes 1-15 stopped it already (the
// declaration is checked when it is made: the module that declares it fails to load); 16-26 are
// found against the live database at start (startService, as `svc serve` runs it, and `svc check`).
// Then the other half: a pending migration stops the start unless the operator chose otherwise,
// and then GET /ready answers 503.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { user } from '../../src/app/entities/user.js';
import { serviceRoutes } from '../../src/app/routes.js';
import { loadConfig } from '../../src/config/config.js';
import type { Database } from '../../src/database/database.js';
import { columnTypes } from '../../src/database/migrations/column-types.js';
import { migrationFolder, migrationNames } from '../../src/database/migrator.js';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import type { ResourceConfig } from '../../src/engine/definition/resource-config.js';
import type { ResourceRoute } from '../../src/engine/routes.js';
import { defineEntity, type EntityDefinition } from '../../src/model/entity.js';
import { belongsTo, hasMany } from '../../src/model/relations/relation.js';
import { startService } from '../../src/service.js';
import { runCli } from '../helpers/cli.js';
import { SessionClient } from '../helpers/session-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** The shipped resources' names in route order: the test stays true when one is added. */
const SHIPPED = serviceRoutes.map((r) => r.resource.name);

/** The suppliers' tables, as their migration would make them. */
async function supplierTables({ db }: Database): Promise<void> {
  const t = columnTypes(db);
  await t
    .id(db.schema.createTable('fx_suppliers'))
    .addColumn('name', 'varchar(120)', (c) => c.notNull())
    .addColumn('tax_id', 'varchar(20)')
    .addColumn('country', 'varchar(2)')
    .addColumn('active', 'varchar(1)')
    .addColumn('created_by', t.bigint, (c) => c.references('users.id'))
    .addColumn('created_at', t.timestamp)
    .addColumn('updated_at', t.timestamp)
    .execute();
  await t
    .id(db.schema.createTable('fx_supplier_contacts'))
    .addColumn('supplier_id', t.bigint, (c) => c.notNull().references('fx_suppliers.id'))
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('email', 'varchar(255)')
    .execute();
  // Keyed to its supplier by a column without a foreign key: mistake 19's table.
  await t
    .id(db.schema.createTable('fx_supplier_addresses'))
    .addColumn('supplier_id', t.bigint, (c) => c.notNull())
    .addColumn('line', 'varchar(200)')
    .execute();
}

let declared = 0;

/** A contact entity, with `changes` over the right one (each declaration is a new entity). */
function contactEntity(changes: Partial<EntityDefinition> = {}) {
  declared += 1;
  return defineEntity({
    name: `FxSupplierContact${declared}`,
    table: 'fx_supplier_contacts',
    columns: ['id', 'supplier_id', 'name', 'email'],
    casts: { id: 'integer', supplier_id: 'integer' },
    fillable: ['name', 'email'],
    rules: () => ({ name: ['required', 'string', 'max:100'], email: ['nullable', 'email'] }),
    ...changes,
  });
}

function supplierEntity(
  changes: Partial<EntityDefinition> = {},
  contacts = contactEntity(),
  addresses = false,
) {
  declared += 1;
  return defineEntity({
    name: `FxSupplier${declared}`,
    table: 'fx_suppliers',
    columns: [
      'id',
      'name',
      'tax_id',
      'country',
      'active',
      'created_by',
      'created_at',
      'updated_at',
    ],
    casts: { id: 'integer', created_by: 'integer', created_at: 'datetime', updated_at: 'datetime' },
    fillable: ['name', 'tax_id', 'country', 'active', 'created_by'],
    ownerColumn: 'created_by',
    relations: {
      creator: belongsTo(() => user, 'created_by', { columns: ['id', 'login', 'name'] }),
      contacts: hasMany(() => contacts, 'supplier_id'),
      ...(addresses
        ? {
            addresses: hasMany(
              () =>
                contactEntity({
                  table: 'fx_supplier_addresses',
                  columns: ['id', 'supplier_id', 'line'],
                  fillable: ['line'],
                  rules: () => ({ line: ['required', 'string', 'max:200'] }),
                }),
              'supplier_id',
            ),
          }
        : {}),
    },
    rules: (id) => ({
      name: ['required', 'string', 'max:120'],
      // No max: the column's length (varchar(20)) is the rule.
      tax_id: ['nullable', 'string', `unique:fx_suppliers,tax_id,${id ?? 'NULL'}`],
      country: ['nullable', 'in:NL,BE,DE'],
      active: ['nullable', 'in:Y,N'],
      created_by: ['nullable', 'integer', 'exists:users,id'],
    }),
    ...changes,
  });
}

/** The supplier resource's configuration, with `changes`. */
function supplierConfig(
  model = supplierEntity(),
  changes: Partial<ResourceConfig> = {},
): ResourceConfig {
  return {
    model,
    name: 'suppliers',
    searchable: ['name', 'tax_id', 'country'],
    sortable: ['name', 'created_at'],
    with: ['creator'],
    details: ['contacts'],
    defaultOrder: 'name asc',
    indexFields: ['name', 'country', { author: 'creator.name' }],
    transformers: { tax_id: (value) => (value === null ? null : String(value).toUpperCase()) },
    ...changes,
  };
}

function route(config: ResourceConfig): ResourceRoute {
  return { path: '/api/suppliers', parameter: 'supplier', resource: defineResource(config) };
}

describe('issue 36: every mistake in a resource stops the service before it serves', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer(
      {},
      {
        resources: [...serviceRoutes, route(supplierConfig())],
        beforeStart: supplierTables,
      },
    );
  });
  after(() => server?.close());

  /** Starts the service as `svc serve` does, with the shipped resources and `candidate`. */
  async function refusedAtStart(candidate: ResourceRoute, ...expected: RegExp[]): Promise<void> {
    const config = loadConfig({ ...server.storageEnv, LOG_LEVEL: 'silent', PORT: '0' });
    await assert.rejects(
      startService(config, { resources: [...serviceRoutes, candidate], logger: false }),
      (error: Error) => {
        assert.match(error.message, /^The resources do not match the database/);
        assert.match(error.message, /Resource "suppliers"/);
        assert.match(error.message, /Fix: /);
        for (const pattern of expected) assert.match(error.message, pattern);
        return true;
      },
    );
  }

  it('the correct supplier resource serves (the other tests change one thing each)', async () => {
    const created = await server.post('/api/suppliers', {
      name: 'Acme',
      tax_id: 'nl 555',
      country: 'NL',
      contacts: [{ name: 'Ann' }],
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.tax_id, 'NL 555');
  });

  it("a value longer than its column is the max rule's 422 on its field, on every engine", async () => {
    const tooLong = await server.post('/api/suppliers', {
      name: 'Long tax id',
      tax_id: 'x'.repeat(21),
      contacts: [{ name: 'Bo', email: `${'b'.repeat(250)}@x.example` }],
    });
    assert.equal(tooLong.status, 422, tooLong.text);
    assert.deepEqual(tooLong.body.errors, {
      tax_id: ['The tax id field must not be greater than 20 characters.'],
      'contacts.0.email': ['The contacts.0.email field must not be greater than 255 characters.'],
    });
    // At the column's length it is stored, unchanged.
    const fits = await server.post('/api/suppliers', { name: 'Fits', tax_id: 'y'.repeat(20) });
    assert.equal(fits.status, 201, fits.text);
    assert.equal(fits.body.tax_id, 'Y'.repeat(20));
  });

  it('a transformed field is output only (DESIGN.md 3.6): read-only in the admin form, readOnly in the OpenAPI document', async () => {
    const session = await new SessionClient(server.url).signIn();
    const described = await session.get('/app/resources');
    const suppliers = described.body.data.find((r: { name: string }) => r.name === 'suppliers');
    const field = (name: string) => suppliers.fields.find((f: { name: string }) => f.name === name);
    assert.equal(field('tax_id').read_only, true);
    assert.equal(field('name').read_only, false);
    const doc = (await server.get('/api/openapi.json')).body;
    const record = doc.components.schemas.Supplier;
    assert.equal(record.properties.tax_id.readOnly, true);
    assert.equal(record.properties.country.readOnly, undefined);
  });

  describe('found when declared (1-15)', () => {
    it('1 two entities with one name', () => {
      supplierEntity({ name: 'FxSupplierTwin' });
      assert.throws(
        () => supplierEntity({ name: 'FxSupplierTwin', table: 'fx_supplier_contacts' }),
        /^Error: Entity FxSupplierTwin: another entity is already named "FxSupplierTwin"/,
      );
    });
    it('2 fillable names an undeclared column', () => {
      assert.throws(
        () => supplierEntity({ fillable: ['name', 'taxid'] }),
        /Entity FxSupplier\d+: fillable column "taxid" is not a declared column/,
      );
    });
    it('3 rules name a field that is neither a column nor write-only', () => {
      assert.throws(
        () => supplierEntity({ rules: () => ({ nmae: ['required'] }) }),
        /Entity FxSupplier\d+: rules name field "nmae", which is neither a column nor a write-only field/,
      );
    });
    it('4 a misspelt rule', () => {
      assert.throws(
        () => supplierEntity({ rules: () => ({ name: ['requird'] }) }),
        /Entity FxSupplier\d+: Invalid validation rule "requird" for field "name": unknown rule "requird"/,
      );
    });
    it('5 a rule with a malformed parameter', () => {
      assert.throws(
        () => supplierEntity({ rules: () => ({ name: ['max:many'] }) }),
        /Entity FxSupplier\d+: Invalid validation rule "max:many" for field "name": "max" needs a number/,
      );
    });
    it('6 a cast of an undeclared column', () => {
      assert.throws(
        () => supplierEntity({ casts: { created: 'datetime' } }),
        /Entity FxSupplier\d+: cast column "created" is not a declared column/,
      );
    });
    it('7 searchable names an unknown column', () => {
      assert.throws(
        () => route(supplierConfig(undefined, { searchable: ['vat'] })),
        /Resource for FxSupplier\d+: searchable names "vat", which is not a column of fx_suppliers/,
      );
    });
    it('8 sortable names an unknown column', () => {
      assert.throws(
        () => route(supplierConfig(undefined, { sortable: ['created'] })),
        /Resource for FxSupplier\d+: sortable names "created", which is not a column of fx_suppliers/,
      );
    });
    it('9 details names no relation', () => {
      assert.throws(
        () => route(supplierConfig(undefined, { details: ['contact'] })),
        /Resource for FxSupplier\d+: details names "contact", which is not a relation of FxSupplier\d+/,
      );
    });
    it('10 details names a belongs-to relation', () => {
      assert.throws(
        () => route(supplierConfig(undefined, { details: ['creator'] })),
        /Resource for FxSupplier\d+: details needs a one-to-many relation, "creator" is belongsTo/,
      );
    });
    it('11 defaultOrder names an unknown column', () => {
      assert.throws(
        () => route(supplierConfig(undefined, { defaultOrder: 'title asc' })),
        /Resource for FxSupplier\d+: defaultOrder column "title" is not a column/,
      );
    });
    it('12 a projection names a field the record does not carry', () => {
      assert.throws(
        () => route(supplierConfig(undefined, { indexFields: ['name', 'vat'] })),
        /Resource for FxSupplier\d+: a projection names "vat", which the record does not carry/,
      );
    });
    it('13 listColumns names a key a list item does not carry', () => {
      assert.throws(
        () => route(supplierConfig(undefined, { listColumns: ['name', 'tax_id'] })),
        /Resource for FxSupplier\d+: listColumns names "tax_id", which a list item does not carry/,
      );
    });
    it('14 appends names an attribute the entity does not compute', () => {
      assert.throws(
        () => route(supplierConfig(undefined, { appends: ['display_name'] })),
        /Resource for FxSupplier\d+: appends names "display_name", which FxSupplier\d+ does not compute/,
      );
    });
    it('15 requireIfMatch without a version column', () => {
      assert.throws(
        () => route(supplierConfig(undefined, { requireIfMatch: true })),
        /Resource for FxSupplier\d+: requireIfMatch needs a versionColumn on FxSupplier\d+/,
      );
    });
  });

  describe('found at start, against the database (16-26)', () => {
    it('16 a migration not registered anywhere: impossible, a set is the files of its folder', async () => {
      for (const set of ['system', 'data'] as const) {
        const files = fs
          .readdirSync(migrationFolder(set))
          .map((file) => path.basename(file, path.extname(file)))
          .sort();
        assert.deepEqual(await migrationNames(set), files);
        const ran = await server.service.database.db
          .selectFrom(`svc_migrations_${set}`)
          .select('name')
          .orderBy('name')
          .execute();
        assert.deepEqual(
          ran.map((row: { name: string }) => row.name),
          files,
        );
      }
    });
    it('17 a column the table lacks', async () => {
      const entity = supplierEntity({
        columns: [
          'id',
          'name',
          'tax_id',
          'country',
          'active',
          'created_by',
          'created_at',
          'website',
        ],
        casts: { id: 'integer' },
        fillable: ['name', 'website'],
        rules: () => ({ name: ['required', 'string', 'max:120'] }),
      });
      await refusedAtStart(
        route(supplierConfig(entity, { transformers: {} })),
        /entity FxSupplier\d+: column "website" does not exist in table "fx_suppliers" on DATABASE_URL\. Fix: check the column's name, or add the column: write a migration/,
      );
    });
    it('18 a table no migration made (the entity misspelt it)', async () => {
      await refusedAtStart(
        route(supplierConfig(supplierEntity({ table: 'fx_supplier' }), { transformers: {} })),
        /entity FxSupplier\d+: table "fx_supplier" does not exist on DATABASE_URL\. Fix: check the table's name, or write a migration/,
      );
    });
    it('19 a detail relation whose table has no foreign key to the master', async () => {
      const entity = supplierEntity({}, contactEntity(), true);
      await refusedAtStart(
        route(supplierConfig(entity, { details: ['contacts', 'addresses'] })),
        /relation "addresses" \(hasMany FxSupplierContact\d+\): table "fx_supplier_addresses" has no foreign key from "supplier_id" to "fx_suppliers\.id" on DATABASE_URL\. Fix: add it in a migration \(\.references\('fx_suppliers\.id'\)\)/,
      );
    });
    it('20 a misspelt table in a detail entity', async () => {
      const contacts = contactEntity({ table: 'fx_supplier_contact' });
      await refusedAtStart(
        route(supplierConfig(supplierEntity({}, contacts))),
        /detail "contacts" \(entity FxSupplierContact\d+\): table "fx_supplier_contact" does not exist on DATABASE_URL/,
      );
    });
    it('21 a belongs-to column list naming a column the target lacks', () => {
      const entity = supplierEntity({
        relations: {
          creator: belongsTo(() => user, 'created_by', { columns: ['id', 'nickname'] }),
          contacts: hasMany(() => contactEntity(), 'supplier_id'),
        },
      });
      assert.throws(
        () => route(supplierConfig(entity, { indexFields: ['name'] })),
        /Resource for FxSupplier\d+: relation "creator": loaded column "nickname" is not a column of User \(users\): name one of id, login, name, email/,
      );
    });
    it('22 a misspelt table in an exists rule', async () => {
      const entity = supplierEntity({
        rules: () => ({ created_by: ['nullable', 'integer', 'exists:user,id'] }),
      });
      await refusedAtStart(
        route(supplierConfig(entity)),
        /rules of FxSupplier\d+: field "created_by" rule "exists:user,id": table "user" does not exist on DATABASE_URL\. Fix: check the table's name/,
      );
    });
    it('23 a misspelt column in a unique rule', async () => {
      const entity = supplierEntity({
        rules: (id) => ({ tax_id: ['nullable', `unique:fx_suppliers,taxid,${id ?? 'NULL'}`] }),
      });
      await refusedAtStart(
        route(supplierConfig(entity)),
        /rules of FxSupplier\d+: field "tax_id" rule "unique:fx_suppliers,taxid": column "taxid" does not exist in table "fx_suppliers" on DATABASE_URL\. Fix: check the column's name/,
      );
    });
    it('24 a projection to a field the relation does not load (creator.nickname)', () => {
      assert.throws(
        () => route(supplierConfig(undefined, { indexFields: ['name', 'creator.nickname'] })),
        /Resource for FxSupplier\d+: a projection names "creator\.nickname", but relation "creator" loads only id, login, name: name one of them, or add "nickname" to the relation's columns/,
      );
    });
    it('25 a projection through a has-many relation (contacts.name)', () => {
      assert.throws(
        () => route(supplierConfig(undefined, { indexFields: ['name', 'contacts.name'] })),
        /Resource for FxSupplier\d+: a projection names "contacts\.name", which goes through has-many relation "contacts" \(a list of rows, not one value\): project "contacts" whole/,
      );
    });
    it('26 a transformer on a field no answer carries', () => {
      assert.throws(
        () => route(supplierConfig(undefined, { transformers: { taxid: (v) => v } })),
        /Resource for FxSupplier\d+: transformers name "taxid", which no answer carries: name a field of the record or a key of its projection/,
      );
      const resource = defineResource(supplierConfig());
      assert.throws(
        () => resource.addTransformer('vat', (v) => v),
        /transformers name "vat", which no answer carries/,
      );
    });
  });

  describe('more found at start', () => {
    it('a declared max longer than the column', async () => {
      const entity = supplierEntity({
        rules: () => ({ name: ['required', 'string', 'max:200'] }),
      });
      await refusedAtStart(
        route(supplierConfig(entity)),
        /field "name" allows max:200 but column "fx_suppliers\.name" holds 120 characters on DATABASE_URL\. Fix: lower the rule to max:120, or widen the column in a migration/,
      );
    });
    it('a cast the column cannot hold', async () => {
      const entity = supplierEntity({ casts: { id: 'integer', country: 'integer' } });
      await refusedAtStart(
        route(supplierConfig(entity)),
        /column "fx_suppliers\.country" is [a-z ]+(\(2\))? on DATABASE_URL, which cannot hold an integer \(its cast\)\. Fix: change the cast/,
      );
    });
    it('two resources filed under one name', async () => {
      const config = loadConfig({ ...server.storageEnv, LOG_LEVEL: 'silent', PORT: '0' });
      const twin = route(supplierConfig());
      await assert.rejects(
        startService(config, {
          resources: [
            ...serviceRoutes,
            twin,
            {
              ...route(
                supplierConfig(contactEntity(), {
                  searchable: [],
                  sortable: [],
                  with: [],
                  details: [],
                  defaultOrder: null,
                  indexFields: [],
                  transformers: {},
                }),
              ),
              path: '/api/suppliers-again',
            },
          ],
          logger: false,
        }),
        /Resource "suppliers" is declared twice \(entities FxSupplier\d+ and FxSupplierContact\d+\)\. Fix: give one of them another `name`/,
      );
    });
  });

  describe('a pending migration', () => {
    const LAST = 'svc_migrations_data';
    let removed: Record<string, unknown> | undefined;

    before(async () => {
      // As if the newest data migration had been added since the last `svc migrate`.
      const { db } = server.service.database;
      removed = await db.selectFrom(LAST).selectAll().orderBy('name', 'desc').executeTakeFirst();
      await db.deleteFrom(LAST).where('name', '=', String(removed?.name)).execute();
    });
    after(async () => {
      if (removed) await server.service.database.db.insertInto(LAST).values(removed).execute();
    });

    it('svc check fails naming it, and passes once it has run: the report as JSON on stdout, in words on stderr', async () => {
      const env = { PATH: process.env.PATH, ...server.storageEnv, LOG_LEVEL: 'silent' };
      const failed = await runCli(env, ['check']);
      assert.equal(failed.code, 1, failed.stderr);
      const reported = JSON.parse(failed.stdout) as { pending: string[]; problems: string[] };
      assert.equal(reported.pending.length, 1, failed.stdout);
      assert.match(reported.pending[0] ?? '', new RegExp(`data/${String(removed?.name)}`));
      assert.deepEqual(reported.problems, []);
      assert.match(
        failed.stderr,
        new RegExp(
          `- Migrations have not run on DATABASE_URL .*: data/${String(removed?.name)}\\. Fix: run npx svc migrate`,
        ),
      );
      await server.service.database.db.insertInto(LAST).values(removed!).execute();
      try {
        const passed = await runCli(env, ['check']);
        assert.equal(passed.code, 0, passed.stderr);
        assert.deepEqual(JSON.parse(passed.stdout), {
          resources: SHIPPED.length,
          databases: 1,
          pending: [],
          problems: [],
        });
        assert.match(
          passed.stderr,
          new RegExp(
            `${SHIPPED.length} resources match their database; every migration has run\\.`,
          ),
        );
      } finally {
        await server.service.database.db
          .deleteFrom(LAST)
          .where('name', '=', String(removed?.name))
          .execute();
      }
    });

    it('stops the start with MIGRATE_ON_START=false, naming the migration, the resources, the setting and the fix', async () => {
      const config = loadConfig({
        ...server.storageEnv,
        LOG_LEVEL: 'silent',
        PORT: '0',
        MIGRATE_ON_START: 'false',
      });
      await assert.rejects(startService(config, { logger: false }), (error: Error) => {
        assert.match(
          error.message,
          new RegExp(
            `Migrations have not run on DATABASE_URL \\(used by resources "${SHIPPED[0]}", .*"${SHIPPED.at(-1)}"\\): data/${String(removed?.name)}\\. Fix: run npx svc migrate .*or set START_WITH_PENDING_MIGRATIONS=true to serve anyway \\(GET /ready answers 503 until they have run\\)`,
          ),
        );
        return true;
      });
    });

    it('with START_WITH_PENDING_MIGRATIONS=true the service serves and GET /ready answers 503', async () => {
      const second = await startTestServer(
        {
          ...server.storageEnv,
          MIGRATE_ON_START: 'false',
          START_WITH_PENDING_MIGRATIONS: 'true',
        },
        { anonymous: true },
      );
      try {
        const ready = await second.get('/ready');
        assert.equal(ready.status, 503);
        assert.deepEqual(ready.body, {
          status: 'unavailable',
          checks: { database: 'ok', migrations: 'pending' },
        });
      } finally {
        await second.service.close();
      }
    });
  });
});
