// The live admin (issue 32 item 5, DESIGN.md 3.9): lists follow their resource's change feed
// (new and changed rows appear, or are offered when the person is busy with the table, with
// the filters, page and focus kept); a form says when its record is saved elsewhere, by whom
// and when; every save sends If-Match with the ETag it loaded, so a save over a version someone
// else saved meanwhile is refused as a conflict, never an overwrite, and keeps what was typed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { pruneChanges } from '../../src/engine/changes/retention.js';
import {
  type AdminHarness,
  assertAccessible,
  notOnThisEngine,
  open,
  screenshot,
  startAdmin,
  templateFields,
} from '../helpers/browser.js';
import { type SessionClient, signedIn } from '../helpers/session-client.js';
import { seedLoginUser, USER_PASSWORD } from '../helpers/session-seed.js';

describe('admin front end: live screens and conflicts', { skip: notOnThisEngine }, () => {
  let admin: AdminHarness;
  let api: SessionClient;
  /** Another admin, whose changes the screens name. */
  let colleague: SessionClient;

  before(async () => {
    admin = await startAdmin();
    api = await signedIn(admin.server.url);
    await seedLoginUser(admin.server.service.database.db, 'colleague', [1], 'Y');
    colleague = await signedIn(admin.server.url, 'colleague', USER_PASSWORD);
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

  it('a form edited in two pages: the second save gets a conflict naming who and when, not an overwrite, and keeps what was typed', async () => {
    const id = (await api.post('/api/import-templates', templateFields('Two pages', 'TWO'))).body
      .id;
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
      .getByText(
        /^Not saved: This import template was changed by Administrator \(admin\) at .*\d\d:\d\d since you opened it\./,
      )
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
    const id = (await api.post('/api/import-templates', templateFields('Keep mine', 'KEEP'))).body
      .id;
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
    const id = (await api.post('/api/import-templates', templateFields('Load theirs', 'LOAD'))).body
      .id;
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

  const rows = () => admin.page.getByRole('table').first().getByRole('row');
  const announced = (text: string | RegExp) =>
    admin.page.getByRole('status').filter({ hasText: text }).waitFor();

  it('a template created through the API appears in an open list, marked New and announced', async () => {
    const { page } = admin;
    await open(admin, '/admin/r/import-templates');
    await page.getByText(/^Page 1 of 1 · \d+ records?$/).waitFor();
    const before = await rows().count();
    await colleague.post('/api/import-templates', templateFields('Arrived by API', 'ARRIVED'));
    const row = rows().filter({ has: page.getByRole('link', { name: 'Arrived by API' }) });
    await row.getByText('New', { exact: true }).waitFor();
    assert.equal(await rows().count(), before + 1);
    await announced('Import templates: 1 new.');
    await assertAccessible(page, 'the list with a new row');
    await screenshot(page, 'list-live');
  });

  it('a list whose table has the focus keeps its rows, filters and focus, and offers the new rows in a bar', async () => {
    const { page } = admin;
    await api.post('/api/import-templates', templateFields('Live B', 'LIVEB'));
    await open(admin, '/admin/r/import-templates?f.title=Live');
    await page.getByText('Page 1 of 1 · 1 record').waitFor();
    const link = page.getByRole('link', { name: 'Live B' });
    await link.focus();
    // One that matches the filter and sorts first, one that does not match, one changed in place.
    await colleague.post('/api/import-templates', templateFields('Live A', 'LIVEA'));
    await colleague.post('/api/import-templates', templateFields('Elsewhere', 'ELSEWHERE'));
    await page.getByText('1 new change', { exact: true }).waitFor();
    await announced('Import templates: 1 new change. Show changes to see them.');
    assert.equal(await rows().count(), 2, 'the header and the row that was there');
    assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Live B');
    await assertAccessible(page, 'the list offering changes');
    await screenshot(page, 'list-offer');
    // Keyboard only: back from the row's link (through the table's headers) to the bar's button.
    const focused = () => page.evaluate('document.activeElement?.textContent');
    for (let i = 0; i < 12 && (await focused()) !== 'Show changes'; i += 1)
      await page.keyboard.press('Shift+Tab');
    assert.equal(await focused(), 'Show changes');
    await page.keyboard.press('Enter');
    const arrived = rows().filter({ has: page.getByRole('link', { name: 'Live A' }) });
    await arrived.getByText('New', { exact: true }).waitFor();
    await page.waitForFunction("document.activeElement?.textContent === 'Live A'");
    assert.match(page.url(), /\?f\.title=Live$/);
    await page.getByText('Page 1 of 1 · 2 records').waitFor();
    assert.equal(await page.getByRole('link', { name: 'Elsewhere' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Show changes' }).count(), 0);
  });

  it('a form says when its record is changed elsewhere, by whom and when, and offers to reload', async () => {
    const id = (await api.post('/api/import-templates', templateFields('Told', 'TOLD'))).body.id;
    await openForm(id, 'Told');
    const { page } = admin;
    await colleague.put(`/api/import-templates/${id}`, { title: 'Told again' });
    await page
      .getByText(/^This import template was changed by User colleague.* at .*\d\d:\d\d\.$/)
      .waitFor();
    await page.getByText('Their changes: Title.').waitFor();
    await announced(/^This import template was changed by User colleague/);
    assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'Told');
    await assertAccessible(page, 'the form told of a change elsewhere');
    await screenshot(page, 'form-changed-elsewhere');
    await page.getByRole('button', { name: 'Reload' }).click();
    assert.equal(await page.getByLabel('Title', { exact: true }).inputValue(), 'Told again');
    await page.getByRole('heading', { name: 'Import template: Told again' }).waitFor();
  });

  it('a form with unsaved changes whose record changes elsewhere keeps them and offers both versions', async () => {
    const id = (await api.post('/api/import-templates', templateFields('Busy', 'BUSY'))).body.id;
    await openForm(id, 'Busy');
    const { page } = admin;
    await page.getByLabel('Database name').fill('mine_db');
    await colleague.put(`/api/import-templates/${id}`, { description: 'their note' });
    await page.getByText('Their changes: Description.').waitFor();
    assert.equal(await page.getByLabel('Database name').inputValue(), 'mine_db');
    assert.equal(await page.getByLabel('Description').inputValue(), '');
    await page.getByRole('button', { name: 'Keep my changes' }).click();
    assert.equal(await page.getByLabel('Database name').inputValue(), 'mine_db');
    assert.equal(await page.getByLabel('Description').inputValue(), 'their note');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Import template saved.').waitFor();
    const saved = await stored(id);
    assert.equal(saved.database_name, 'mine_db');
    assert.equal(saved.description, 'their note');
  });

  it('a list that fell behind the feed’s retention (410) reads its page again and follows on from there', async () => {
    await open(admin, '/admin/r/import-templates'); // signed in
    // A page of its own whose timers the test holds: no poll runs while the feed is pruned.
    const page = await admin.context.newPage();
    await page.clock.install();
    await page.goto(admin.url('/admin/r/import-templates?f.title=Pruned'));
    await page.getByText('Page 1 of 1 · 0 records').waitFor();
    await page.clock.pauseAt(Date.now() + 1000);
    await api.post('/api/import-templates', templateFields('Pruned one', 'PRUNED1'));
    await api.post('/api/import-templates', templateFields('Pruned two', 'PRUNED2'));
    // Every change so far is past retention: the list's next `after` answers 410.
    await pruneChanges(admin.server.service.database, Date.now() + 60_000, 500);
    assert.equal((await api.get('/api/import-templates/changes?after=0')).status, 410);
    await page.clock.resume();
    await page.getByRole('link', { name: 'Pruned one' }).waitFor();
    await page.getByRole('link', { name: 'Pruned two' }).waitFor();
    await colleague.post('/api/import-templates', templateFields('Pruned three', 'PRUNED3'));
    await page.getByRole('link', { name: 'Pruned three' }).waitFor();
    assert.match(page.url(), /\?f\.title=Pruned$/);
    await page.close();
  });
});
