// The admin front end's generic screens (issue 18 items 3-4, DESIGN.md 3.7), on import
// templates: a list to filter, sort and page through with its state in the address and the back
// button; a master-detail form to create and edit with group and user rows, a 422 on the right
// cell, the unsaved-changes guard, Ctrl+S, delete with confirmation, and the template's logs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type AdminHarness,
  assertAccessible,
  notOnThisEngine,
  open,
  screenshot,
  startAdmin,
  templateFields,
} from '../helpers/browser.js';
import { SessionClient, signedIn } from '../helpers/session-client.js';
import { ADMIN_PASSWORD } from '../helpers/test-server.js';

describe('admin front end: lists and master-detail forms', { skip: notOnThisEngine }, () => {
  let admin: AdminHarness;
  let api: SessionClient;
  let logged: number;

  before(async () => {
    admin = await startAdmin();
    api = await signedIn(admin.server.url);
    for (const name of ['Editors', 'Viewers']) await api.post('/api/groups', { name });
    for (let i = 1; i <= 16; i += 1)
      await api.post(
        '/api/import-templates',
        templateFields(`Template ${String(i).padStart(2, '0')}`, `T${i}`),
      );
    const created = await api.post(
      '/api/import-templates',
      templateFields('Monthly stock', 'STOCK'),
    );
    logged = created.body.id;
    for (const status of ['succeeded', 'failed'])
      await api.post('/api/import-template-logs', {
        template_id: logged,
        status,
        message: `run ${status}`,
      });
  });
  after(() => admin?.close());

  const rows = () => admin.page.getByRole('table').first().getByRole('row');

  it('lists the templates sorted by title, pages through them, and keeps the state in the address', async () => {
    const { page } = admin;
    await open(admin, '/admin/r/import-templates');
    await page.getByText('Page 1 of 2 · 17 records').waitFor();
    assert.equal(await rows().count(), 16); // the header and 15 rows
    await assertAccessible(page, 'the list');
    await screenshot(page, 'list');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForURL(/\?page=2$/);
    await page.getByText('Page 2 of 2 · 17 records').waitFor();
    await page.getByLabel('Rows per page').selectOption('25');
    await page.waitForURL(/\?per_page=25$/);
    await page.getByText('Page 1 of 1 · 17 records').waitFor();
    await page.goBack();
    await page.getByText('Page 2 of 2 · 17 records').waitFor();
  });

  it('sorts by a column with its header button, and the back button restores the order', async () => {
    const { page } = admin;
    await open(admin, '/admin/r/import-templates');
    const title = page.getByRole('button', { name: 'Title', exact: true });
    await title.click();
    await page.waitForURL(/sort=title&direction=desc/);
    await page
      .getByRole('columnheader', { name: 'Title' })
      .and(page.locator('[aria-sort="descending"]'))
      .waitFor();
    await rows().nth(1).getByRole('link', { name: 'Template 16' }).waitFor();
    await page.goBack();
    await rows().nth(1).getByRole('link', { name: 'Monthly stock' }).waitFor();
  });

  it('filters by a field with its label, and clears the filter', async () => {
    const { page } = admin;
    await page.getByLabel('Title', { exact: true }).fill('stock');
    await page.getByLabel('Title', { exact: true }).press('Enter');
    await page.waitForURL(/f\.title=stock/);
    await page.getByText('Page 1 of 1 · 1 record').waitFor();
    await rows().nth(1).getByRole('link', { name: 'Monthly stock' }).waitFor();
    await page.getByLabel('Code', { exact: true }).fill('T1');
    await page.getByLabel('Code operator').selectOption({ label: 'is' });
    await page.getByLabel('Title', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('Page 1 of 1 · 1 record').waitFor();
    await rows().nth(1).getByRole('link', { name: 'Template 01' }).waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByText('Page 1 of 2 · 17 records').waitFor();
    // Choices: one, or several with `is one of`.
    await page.getByLabel('Active', { exact: true }).selectOption('N');
    await page.getByText('Page 1 of 1 · 0 records').waitFor();
    await page.getByLabel('Active operator').selectOption({ label: 'is one of' });
    await page.getByLabel('Active', { exact: true }).selectOption(['Y', 'N']);
    await page.waitForURL(/f\.active=Y%2CN&op\.active=in$/);
    await page.getByText('Page 1 of 2 · 17 records').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    // A foreign key is filtered with a picker, applied when picked.
    await page.getByRole('combobox', { name: 'Created by', exact: true }).fill('admin');
    await page.getByRole('option', { name: /Administrator/ }).click();
    await page.waitForURL(/f\.created_by=1$/);
    await page.getByText('Page 1 of 2 · 17 records').waitFor();
    await page.getByLabel('Created by operator').selectOption({ label: 'is not' });
    await page.getByText('Page 1 of 1 · 0 records').waitFor();
    await page.getByText('No records.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByText('Page 1 of 2 · 17 records').waitFor();
  });

  it('creates a template with a group row and a user row picked by name', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'New' }).click();
    await page.waitForURL(/\/admin\/r\/import-templates\/new$/);
    await page.getByLabel('Title').fill('Weekly orders');
    await page.getByLabel('Database name').fill('sales');
    await page.getByLabel('Mapping JSON').fill('{"columns": ["id",  "total"]}');
    await page.getByRole('button', { name: 'Format JSON' }).click();
    assert.equal(
      await page.getByLabel('Mapping JSON').inputValue(),
      '{\n  "columns": [\n    "id",\n    "total"\n  ]\n}',
    );
    const groups = page.getByRole('region', { name: 'Groups', exact: true });
    await groups.getByRole('button', { name: 'Add row' }).click();
    await groups.getByRole('combobox', { name: 'Group' }).fill('Edi');
    await page.getByRole('option', { name: 'Editors' }).click();
    const users = page.getByRole('region', { name: 'Users', exact: true });
    await users.getByRole('button', { name: 'Add row' }).click();
    await users.getByRole('combobox', { name: 'User' }).fill('Admin');
    await page.getByRole('option', { name: /Administrator/ }).click();
    await assertAccessible(page, 'the form');
    await screenshot(page, 'form');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/admin\/r\/import-templates\/\d+$/);
    await page.getByText('Import template created.').waitFor();
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const stored = (await api.get(`/api/import-templates/${id}`)).body;
    assert.equal(stored.title, 'Weekly orders');
    assert.equal(stored.active, 'Y', 'left empty on create: the service default');
    assert.equal(stored.mapping_json, '{\n  "columns": [\n    "id",\n    "total"\n  ]\n}');
    assert.deepStrictEqual(
      stored.groups.map((g: any) => g.group_id),
      [1],
    );
    assert.deepStrictEqual(
      stored.users.map((u: any) => u.user_id),
      [1],
    );
    assert.equal(await groups.getByRole('combobox', { name: 'Group' }).inputValue(), 'Editors');
  });

  it('shows a 422 on the detail row’s cell and the summary on top, keeping what was typed', async () => {
    const { page } = admin;
    await page.getByLabel('Description').fill('typed before the error');
    const groups = page.getByRole('region', { name: 'Groups', exact: true });
    await groups.getByRole('button', { name: 'Add row' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText(/^The groups\.1\.group_id field is required\./).waitFor();
    const cell = groups.getByRole('row').nth(2).getByRole('combobox', { name: 'Group' });
    assert.equal(await cell.getAttribute('aria-invalid'), 'true');
    assert.equal(
      await groups
        .getByRole('row')
        .nth(1)
        .getByRole('combobox', { name: 'Group' })
        .getAttribute('aria-invalid'),
      null,
    );
    await groups
      .getByRole('row')
      .nth(2)
      .getByText('The groups.1.group_id field is required.')
      .waitFor();
    assert.equal(await page.getByLabel('Description').inputValue(), 'typed before the error');
    await assertAccessible(page, 'the form with errors');
    // Fixed in the cell, saved with Ctrl+S.
    await cell.fill('View');
    await page.getByRole('option', { name: 'Viewers' }).click();
    await page.keyboard.press('Control+s');
    await page.getByText('Import template saved.').waitFor();
    assert.equal(await page.getByRole('alert').count(), 0);
  });

  it('asks before leaving with unsaved changes, also when only a row changed, and not when the payload is back to what was saved', async () => {
    const { page } = admin;
    const nav = page.getByRole('navigation', { name: 'Main' });
    const groups = page.getByRole('region', { name: 'Groups', exact: true });
    const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
    // Typed and typed back: the payload is what was saved, so nothing to lose.
    await page.getByLabel('Title').fill('Weekly orders (draft)');
    await page.getByLabel('Title').fill('Weekly orders');
    await nav.getByRole('link', { name: 'Groups' }).click();
    await page.waitForURL(/\/admin\/r\/groups$/);
    await page.goBack();
    await page.waitForURL(/\/admin\/r\/import-templates\/\d+$/);
    // Only a row removed: that is a change.
    await groups.getByRole('row').nth(2).getByRole('button', { name: 'Remove row' }).click();
    await nav.getByRole('link', { name: 'Groups' }).click();
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.match(page.url(), /\/admin\/r\/import-templates\/\d+$/);
    assert.equal(await groups.getByRole('row').count(), 2);
    // The back button asks too; Esc says no.
    await page.goBack();
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.match(page.url(), /\/admin\/r\/import-templates\/\d+$/);
    await nav.getByRole('link', { name: 'Groups' }).click();
    await dialog.getByRole('button', { name: 'Leave' }).click();
    await page.waitForURL(/\/admin\/r\/groups$/);
    await page.goBack();
    await page.waitForURL(/\/admin\/r\/import-templates\/\d+$/);
    await groups.getByRole('row').nth(2).waitFor();
    assert.equal(await groups.getByRole('row').count(), 3, 'the stored rows, nothing saved');
  });

  it('goes back to the form after Leave even when the back button comes before the next frame', async () => {
    // The screen left must stop guarding when it goes, not a frame later: a back button pressed
    // in between used to ask "Leave without saving?" again over the list it had gone to, and
    // stay there (resources.test.ts timed out once on it in CI). The page's clock is paused
    // across Leave and Back, so "before the next frame" is certain, not a matter of luck.
    const created = await api.post('/api/import-templates', {
      ...templateFields('Left before a frame', 'FRAME'),
      groups: [{ group_id: 1 }, { group_id: 2 }],
    });
    const id = created.body.id;
    // A context of its own: the clock is installed in it and stays there.
    const context = await admin.browser.newContext({
      viewport: { width: 1280, height: 800 },
      locale: 'en-GB',
      timezoneId: 'Europe/Paris',
    });
    context.setDefaultTimeout(30_000);
    try {
      const page = await context.newPage();
      await page.clock.install();
      await open({ ...admin, context, page }, `/admin/r/import-templates/${id}`);
      const groups = page.getByRole('region', { name: 'Groups', exact: true });
      const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
      await groups.getByRole('row').nth(2).getByRole('button', { name: 'Remove row' }).click();
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Groups' })
        .click();
      const leave = dialog.getByRole('button', { name: 'Leave' });
      await leave.waitFor();
      await page.clock.pauseAt(Date.now() + 5_000);
      await leave.click();
      await page.waitForURL(/\/admin\/r\/groups$/);
      await page.goBack();
      await page.clock.resume();
      await groups.getByRole('row').nth(2).or(dialog).waitFor();
      assert.equal(await dialog.isVisible(), false, 'no question: nothing is unsaved any more');
      assert.match(page.url(), new RegExp(`/admin/r/import-templates/${id}$`));
      assert.equal(await groups.getByRole('row').count(), 3, 'the stored rows');
    } finally {
      await context.close();
      await api.delete(`/api/import-templates/${id}`);
    }
  });

  it('warns before the tab closes with unsaved changes, and not without', async () => {
    const tab = await admin.context.newPage();
    try {
      const dialogs: string[] = [];
      tab.on('dialog', (dialog) => {
        dialogs.push(dialog.type());
        dialog.dismiss().catch(() => {});
      });
      await tab.goto(admin.url(`/admin/r/import-templates/${logged}`));
      const title = tab.getByLabel('Title');
      await title.waitFor();
      await title.fill('Monthly stock');
      await tab.close({ runBeforeUnload: true });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepStrictEqual(dialogs, [], 'the same payload: nothing to warn about');
    } finally {
      if (!tab.isClosed()) await tab.close();
    }
    const dirty = await admin.context.newPage();
    try {
      const warned = new Promise<string>((resolve) =>
        dirty.once('dialog', (dialog) => {
          resolve(dialog.type());
          dialog.accept().catch(() => {});
        }),
      );
      await dirty.goto(admin.url(`/admin/r/import-templates/${logged}`));
      await dirty.getByLabel('Title').fill('Monthly stock, changed');
      await dirty.close({ runBeforeUnload: true });
      assert.equal(await warned, 'beforeunload');
    } finally {
      if (!dirty.isClosed()) await dirty.close();
    }
  });

  it('names a foreign key in a list by its record’s title, not its id', async () => {
    const { page } = admin;
    await open(admin, '/admin/r/import-template-logs');
    const table = page.getByRole('table').first();
    await table.getByRole('cell', { name: 'Monthly stock' }).first().waitFor();
    assert.equal(await table.getByRole('cell', { name: 'Monthly stock', exact: true }).count(), 2);
    assert.equal(await table.getByRole('columnheader', { name: 'Template' }).count(), 1);
  });

  it('lists a template’s import logs on its page, newest first, read-only', async () => {
    const { page } = admin;
    await open(admin, `/admin/r/import-templates/${logged}`);
    const logs = page.getByRole('region', { name: 'Import template logs' });
    await logs.getByRole('row').nth(2).waitFor();
    assert.equal(await logs.getByRole('row').count(), 3);
    await logs.getByRole('row').nth(1).getByText('failed', { exact: true }).waitFor();
    await logs.getByRole('row').nth(2).getByText('succeeded', { exact: true }).waitFor();
    assert.equal(await logs.getByRole('textbox').count(), 0);
  });

  it('deletes after a confirmation in a dialog, and Cancel keeps the record', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this import template?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await api.get(`/api/import-templates/${logged}`)).status, 200);
    await page.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/admin\/r\/import-templates$/);
    await page.getByText('Import template deleted.').waitFor();
    assert.equal((await api.get(`/api/import-templates/${logged}`)).status, 404);
  });

  it('creates a user with a password, a unit row and a group row, then resets the password', async () => {
    const { page } = admin;
    await open(admin, '/admin/r/users/new');
    await page.getByLabel('Login', { exact: true }).fill('maria');
    await page.getByLabel('Name', { exact: true }).fill('Maria Lopez');
    await page.getByLabel('Password').fill('first-password-1');
    await page.getByLabel('Admin').selectOption('N');
    await page.getByLabel('Active').selectOption('Y');
    const units = page.getByRole('region', { name: 'Units', exact: true });
    await units.getByRole('button', { name: 'Add row' }).click();
    await units.getByRole('combobox', { name: 'Unit' }).fill('Ma');
    await page.getByRole('option', { name: 'Main' }).click();
    const groups = page.getByRole('region', { name: 'Groups', exact: true });
    await groups.getByRole('button', { name: 'Add row' }).click();
    await groups.getByRole('combobox', { name: 'Group' }).fill('View');
    await page.getByRole('option', { name: 'Viewers' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('User created.').waitFor();
    const maria = new SessionClient(admin.server.url);
    assert.equal((await maria.login('maria', 'first-password-1')).status, 200);
    // Empty keeps the password; a new one replaces it.
    await page.getByLabel('Name', { exact: true }).fill('Maria López');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('User saved.').waitFor();
    assert.equal((await maria.login('maria', 'first-password-1')).status, 200);
    await page.getByLabel('Password').fill('second-password-2');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('User saved.').waitFor();
    assert.equal((await maria.login('maria', 'first-password-1')).status, 422);
    assert.equal((await maria.login('maria', 'second-password-2')).status, 200);
  });

  it('renews an ended session over a form with unsaved changes, keeping what was typed, and sends the save again', async () => {
    const { page } = admin;
    await open(admin, '/admin/r/import-templates/new');
    await page.getByLabel('Title').fill('Typed before the session ended');
    await page.getByLabel('Database name').fill('sales');
    await page.getByLabel('Mapping JSON').fill('{}');
    await admin.server.service.database.db.deleteFrom('sessions').execute();
    await page.getByRole('button', { name: 'Save' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your session has ended' });
    await dialog.getByLabel('Login').fill('admin');
    await dialog.getByLabel('Password').fill(ADMIN_PASSWORD);
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The save that met the ended session is sent again once signed in: no second click.
    await page.getByText('Import template created.').waitFor();
    assert.equal(await page.getByLabel('Title').inputValue(), 'Typed before the session ended');
  });
});
