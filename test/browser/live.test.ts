// The live admin (issue 32 item 5, DESIGN.md 3.9): every save of the form sends If-Match with
// the ETag it loaded, so a save over a version someone else saved meanwhile is refused as a
// conflict, never an overwrite, and keeps what was typed; the person then keeps their changes
// on top of the other version or loads it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import {
  type AdminHarness,
  assertAccessible,
  notOnThisEngine,
  open,
  screenshot,
  startAdmin,
} from '../helpers/browser.js';
import { type SessionClient, signedIn } from '../helpers/session-client.js';

const template = (title: string, code: string) => ({
  title,
  code,
  database_name: 'warehouse',
  mapping_json: '{"columns":["a"]}',
});

describe('admin front end: live screens and conflicts', { skip: notOnThisEngine }, () => {
  let admin: AdminHarness;
  let api: SessionClient;

  before(async () => {
    admin = await startAdmin();
    api = await signedIn(admin.server.url);
  });
  after(() => admin?.close());

  /** The same template's form open in a second page of the same browser. */
  async function secondPage(pathname: string): Promise<Page> {
    const page = await admin.context.newPage();
    await page.goto(admin.url(pathname));
    await page.getByRole('heading', { name: /^Import template: / }).waitFor();
    return page;
  }

  /** Opens a template's form and waits until it shows the record. */
  async function openForm(id: number, title: string): Promise<void> {
    await open(admin, `/admin/r/import-templates/${id}`);
    await admin.page.getByRole('heading', { name: `Import template: ${title}` }).waitFor();
  }

  const stored = async (id: number) => (await api.get(`/api/import-templates/${id}`)).body;

  it('a form edited in two pages: the second save gets a conflict, not an overwrite, and keeps what was typed', async () => {
    const id = (await api.post('/api/import-templates', template('Two pages', 'TWO'))).body.id;
    const form = `/admin/r/import-templates/${id}`;
    await openForm(id, 'Two pages');
    const first = admin.page;
    const second = await secondPage(form);

    await first.getByLabel('Description').fill('from the first page');
    await first.getByRole('button', { name: 'Save' }).click();
    await first.getByText('Import template saved.').waitFor();

    await second.getByLabel('Title', { exact: true }).fill('Typed on the second page');
    await second.getByLabel('Database name').fill('typed_db');
    await second.getByRole('button', { name: 'Save' }).click();
    const conflict = second.getByRole('alert');
    await conflict
      .getByText(/^Not saved: This import template was changed .*since you opened it\./)
      .waitFor();
    await conflict.getByText('Their changes: Description.').waitFor();
    assert.equal(
      await second.evaluate("document.activeElement?.getAttribute('role')"),
      'alert',
      'the conflict takes the focus',
    );
    assert.equal(
      await second.getByLabel('Title', { exact: true }).inputValue(),
      'Typed on the second page',
    );
    assert.equal(await second.getByLabel('Database name').inputValue(), 'typed_db');
    assert.equal(await second.getByLabel('Description').inputValue(), '');
    const kept = await stored(id);
    assert.equal(kept.title, 'Two pages', 'the second save did not overwrite');
    assert.equal(kept.description, 'from the first page');
    await assertAccessible(second, 'the form with a conflict');
    await screenshot(second, 'form-conflict');
    await second.close();
  });

  it('keeping my changes after a conflict lays them over the other version, and the next save stores both', async () => {
    const id = (await api.post('/api/import-templates', template('Keep mine', 'KEEP'))).body.id;
    await openForm(id, 'Keep mine');
    const { page } = admin;
    await api.put(`/api/import-templates/${id}`, { description: 'theirs' });
    await page.getByLabel('Title', { exact: true }).fill('Mine');
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('alert')
      .getByText(/^Not saved:/)
      .waitFor();
    await page.getByRole('button', { name: 'Keep my changes' }).click();
    assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'Mine');
    assert.equal(await page.getByLabel('Description').inputValue(), 'theirs');
    assert.equal(await page.getByRole('alert').count(), 0);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Import template saved.').waitFor();
    const saved = await stored(id);
    assert.equal(saved.title, 'Mine');
    assert.equal(saved.description, 'theirs');
  });

  it('loading their version after a conflict replaces the form with it', async () => {
    const id = (await api.post('/api/import-templates', template('Load theirs', 'LOAD'))).body.id;
    await openForm(id, 'Load theirs');
    const { page } = admin;
    await api.put(`/api/import-templates/${id}`, { title: 'Their title' });
    await page.getByLabel('Title', { exact: true }).fill('My title');
    await page.keyboard.press('Control+s');
    await page.getByRole('alert').getByText('Their changes: Title.').waitFor();
    await page.getByRole('button', { name: 'Load their version' }).click();
    assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'Their title');
    await page.getByRole('heading', { name: /^Import template: Their title/ }).waitFor();
    assert.equal(await page.getByText('Unsaved changes').count(), 0);
    assert.equal((await stored(id)).title, 'Their title');
  });
});
