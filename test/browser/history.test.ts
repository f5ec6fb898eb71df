// The History panel of the admin form (issue 35 item 4, DESIGN.md 3.11) in real Chromium: who
// changed what and when, field by field and row by row, a revision's record, and Restore after a
// confirmation in the native <dialog>, which puts the form and the record back as they were.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type AdminHarness,
  assertAccessible,
  notOnThisEngine,
  open,
  screenshot,
  startAdmin,
} from '../helpers/browser.js';
import { type SessionClient, signedIn } from '../helpers/session-client.js';

describe('admin front end: the History panel of a form', { skip: notOnThisEngine }, () => {
  let admin: AdminHarness;
  let api: SessionClient;
  let id: number;
  let group: number;

  before(async () => {
    admin = await startAdmin();
    api = await signedIn(admin.server.url);
    group = (await api.post('/api/groups', { name: 'Editors' })).body.id;
    const created = await api.post('/api/import-templates', {
      title: 'Monthly stock',
      code: 'STOCK',
      database_name: 'warehouse',
      mapping_json: '{"columns":["a","b"]}',
      groups: [{ group_id: group }],
    });
    id = created.body.id;
    const etag = created.headers.get('etag') ?? '';
    const changed = await api.request('PATCH', `/api/import-templates/${id}`, {
      body: { title: 'Weekly stock', groups: [] },
      headers: { 'if-match': etag },
    });
    assert.equal(changed.status, 200);
  });
  after(() => admin?.close());

  it('lists who changed what and when, newest first, field by field and row by row', async () => {
    const { page } = admin;
    await open(admin, `/admin/r/import-templates/${id}`);
    const history = page.getByRole('region', { name: 'History' });
    const items = history.getByRole('list').first().locator(':scope > li');
    await items.nth(1).waitFor();
    assert.equal(await items.count(), 2);
    const newest = items.nth(0);
    await newest.getByText(/^Changed by /).waitFor();
    await newest.getByText('Title: Weekly stock').waitFor();
    await newest.getByText('Groups: 1 removed').waitFor();
    await items
      .nth(1)
      .getByText(/^Created by /)
      .waitFor();
    await items.nth(1).getByText('Groups: 1 added').waitFor();
    // A reference shows the record it names, as the form's picker does, not its id.
    await items.nth(1).getByText('Created by: Administrator (admin)').waitFor();
    await assertAccessible(page, 'the History panel');
  });

  it('restores a version after a confirmation in a dialog; Cancel changes nothing', async () => {
    const { page } = admin;
    const history = page.getByRole('region', { name: 'History' });
    const restore = history.getByRole('button', { name: 'Restore this version' });
    await restore.click();
    const dialog = page.getByRole('dialog', {
      name: 'Restore this version of the import template?',
    });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await api.get(`/api/import-templates/${id}`)).body.title, 'Weekly stock');
    await restore.click();
    await screenshot(page, 'form-history-restore');
    await dialog.getByRole('button', { name: 'Restore' }).click();
    await page.getByText('Import template restored.').waitFor();
    assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'Monthly stock');
    const shown = (await api.get(`/api/import-templates/${id}`)).body;
    assert.equal(shown.title, 'Monthly stock');
    assert.deepEqual(
      shown.groups.map((row: { group_id: number }) => row.group_id),
      [group],
    );
    const items = history.getByRole('list').first().locator(':scope > li');
    await items.nth(2).waitFor();
    assert.equal(await items.count(), 3);
    await items.nth(0).getByText('Title: Monthly stock').waitFor();
    await screenshot(page, 'form-history');
  });
});

describe('admin front end: deleted records found and restored', { skip: notOnThisEngine }, () => {
  let admin: AdminHarness;
  let api: SessionClient;

  before(async () => {
    admin = await startAdmin();
    api = await signedIn(admin.server.url);
  });
  after(() => admin?.close());

  it('lists the deleted templates with who deleted them, and Restore brings one back with its id and opens its form', async () => {
    const { page } = admin;
    const group = (await api.post('/api/groups', { name: 'Auditors' })).body.id;
    const created = await api.post('/api/import-templates', {
      title: 'Quarterly audit',
      database_name: 'ledger',
      mapping_json: '{}',
      groups: [{ group_id: group }],
    });
    const id = created.body.id as number;
    const etag = created.headers.get('etag') ?? '';
    const gone = await api.request('DELETE', `/api/import-templates/${id}`, {
      headers: { 'if-match': etag },
    });
    assert.equal(gone.status, 200);
    await open(admin, '/admin/r/import-templates');
    await page.getByRole('link', { name: 'Deleted import templates' }).click();
    await page.waitForURL(/\/admin\/r\/import-templates\/deleted$/);
    const row = page.getByRole('row', { name: /Quarterly audit/ });
    await row.getByText(/Administrator/).waitFor();
    await assertAccessible(page, 'the deleted records');
    await screenshot(page, 'deleted');
    await row.getByRole('button', { name: 'Restore Quarterly audit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore this import template?' });
    await dialog.getByRole('button', { name: 'Restore' }).click();
    await page.waitForURL(new RegExp(`/admin/r/import-templates/${id}$`));
    await page.getByText('Import template restored.').waitFor();
    const shown = await api.get(`/api/import-templates/${id}`);
    assert.equal(shown.status, 200);
    assert.deepEqual(shown.body.groups, created.body.groups);
  });
});
