// DESIGN.md 3.6, issue 36: a transformed field is output only. The admin form of a resource
// with a transformer shows the field's answered value read-only and never sends it back, so
// saving a change to another field leaves the stored value as it was (the supplier: its
// stored tax id `nl 555` became `NL555` when only the name was edited).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { grantableAbilities, serviceRoutes } from '../../src/app/routes.js';
import { createToken } from '../../src/auth/tokens/token-service.js';
import type { Database } from '../../src/database/database.js';
import { columnTypes } from '../../src/database/migrations/column-types.js';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { defineEntity } from '../../src/model/entity.js';
import {
  type AdminHarness,
  assertAccessible,
  notOnThisEngine,
  open,
  screenshot,
  startAdmin,
} from '../helpers/browser.js';

const supplier = defineEntity({
  name: 'FxBrowserSupplier',
  table: 'fx_browser_suppliers',
  columns: ['id', 'name', 'tax_id', 'created_at', 'updated_at'],
  casts: { id: 'integer', created_at: 'datetime', updated_at: 'datetime' },
  fillable: ['name', 'tax_id'],
  labels: { tax_id: 'Tax ID' },
  titleColumns: ['name'],
  rules: () => ({ name: ['required', 'string', 'max:120'], tax_id: ['nullable', 'string'] }),
});

const suppliers = defineResource({
  model: supplier,
  name: 'fx-suppliers',
  defaultOrder: 'name asc',
  transformers: {
    tax_id: (value) => (value === null ? null : String(value).replace(/\s+/g, '').toUpperCase()),
  },
});

const routes = [
  ...serviceRoutes,
  {
    path: '/api/fx-suppliers',
    parameter: 'fx_supplier',
    resource: suppliers,
    middleware: { read: ['svc.api:fx-suppliers.read'], write: ['svc.api:fx-suppliers.write'] },
  },
];

async function supplierTable({ db }: Database): Promise<void> {
  const t = columnTypes(db);
  await t
    .id(db.schema.createTable('fx_browser_suppliers'))
    .addColumn('name', 'varchar(120)', (c) => c.notNull())
    .addColumn('tax_id', 'varchar(20)')
    .addColumn('created_at', t.timestamp)
    .addColumn('updated_at', t.timestamp)
    .execute();
}

describe('admin front end: a transformed field is output only', { skip: notOnThisEngine }, () => {
  let admin: AdminHarness;

  before(async () => {
    admin = await startAdmin(
      {},
      {
        resources: routes,
        beforeStart: supplierTable,
      },
    );
  });
  after(() => admin?.close());

  it('shows it read-only, and saving another field leaves its stored value alone', async () => {
    // Created through the API, as a client would: its history starts with it.
    const abilities = grantableAbilities(routes);
    const { token } = await createToken(admin.server.service.database, abilities, {
      userId: 1,
      unitId: 1,
      name: 'browser test',
      abilities,
      expiresAt: null,
    });
    const created = await admin.server.post(
      '/api/fx-suppliers',
      { name: 'Acme', tax_id: 'nl 555' },
      { headers: { authorization: `Bearer ${token}` } },
    );
    assert.equal(created.status, 201, created.text);
    const { id } = created.body;
    const { db } = admin.server.service.database;
    const { page } = admin;
    await open(admin, `/admin/r/fx-suppliers/${String(id)}`);
    const name = page.getByLabel('Name', { exact: true });
    await name.waitFor();
    // The answered value, shown as a fact of the record, with no input to change it.
    await page.getByText('NL555', { exact: true }).waitFor();
    assert.equal(await page.getByLabel('Tax ID').count(), 0);
    await assertAccessible(page, 'form with a transformed field');
    await name.fill('Acme Trading');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText(/saved/i).waitFor();
    await screenshot(page, 'transformed-field-read-only');
    const stored = await db
      .selectFrom('fx_browser_suppliers')
      .select(['name', 'tax_id'])
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, { name: 'Acme Trading', tax_id: 'nl 555' });
  });
});
