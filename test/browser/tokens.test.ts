// The admin front end's token screen (issue 18 item 6, DESIGN.md 3.7): issue a token for a user
// in one of their units with abilities, see it once in `New token` with Copy, use it, revoke it
// after a confirmation, and the next request with it fails at once.
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
import { linkUnit, seedLoginUser, seedUnit } from '../helpers/session-seed.js';

describe('admin front end: tokens', { skip: notOnThisEngine }, () => {
  let admin: AdminHarness;
  let token = '';

  before(async () => {
    admin = await startAdmin();
    await admin.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: admin.server.url,
    });
  });
  after(() => admin?.close());

  const bearer = (value: string) =>
    fetch(`${admin.server.url}/api/import-templates`, {
      headers: { authorization: `Bearer ${value}` },
    });

  it('issues a token with chosen abilities and shows it once, with Copy', async () => {
    const { page } = admin;
    await open(admin, '/admin/tokens');
    await page.getByRole('combobox', { name: 'User' }).fill('admin');
    await page.getByRole('option', { name: /Administrator/ }).click();
    const unit = page.getByRole('main').getByLabel('Unit', { exact: true });
    await page
      .getByRole('main')
      .getByRole('option', { name: 'Main' })
      .waitFor({ state: 'attached' });
    assert.equal(await unit.inputValue(), '1');
    await page.getByLabel('Name', { exact: true }).fill('nightly import');
    await page
      .getByRole('group', { name: 'import-templates' })
      .getByLabel('import-templates.read')
      .check();
    await page.getByRole('button', { name: 'Issue token' }).click();
    const field = page.getByLabel('New token');
    await field.waitFor();
    assert.equal(await field.getAttribute('readonly'), '');
    token = await field.inputValue();
    assert.match(token, /^svc_api_/);
    await page.getByText('Copy it now: it will not be shown again.').waitFor();
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied.', { exact: false }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), token);
    const row = page.getByRole('row').filter({ hasText: 'nightly import' });
    await row.getByText('import-templates.read').waitFor();
    await assertAccessible(page, 'the token screen');
    await screenshot(page, 'tokens');
    assert.equal((await bearer(token)).status, 200);
  });

  it('revokes a token after a confirmation; a request with it fails at once', async () => {
    const { page } = admin;
    const row = page.getByRole('row').filter({ hasText: 'nightly import' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this token?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await bearer(token)).status, 200);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke' }).waitFor({ state: 'detached' });
    assert.equal((await bearer(token)).status, 401);
  });

  it('preselects the unit the chosen user works in (their first), not their first unit by name', async () => {
    const { page } = admin;
    const { db } = admin.server.service.database;
    const works = await seedUnit(db, 'Zeta works');
    const alpha = await seedUnit(db, 'Alpha');
    await seedLoginUser(db, 'worker', [works, alpha]);
    await open(admin, '/admin/tokens');
    await page.getByRole('combobox', { name: 'User' }).fill('worker');
    await page.getByRole('option', { name: /User worker/ }).click();
    const unit = page.getByRole('main').getByLabel('Unit', { exact: true });
    await page
      .getByRole('main')
      .getByRole('option', { name: 'Alpha' })
      .waitFor({ state: 'attached' });
    assert.equal(await unit.inputValue(), String(works));
    assert.deepStrictEqual(await unit.locator('option').allTextContents(), ['Zeta works', 'Alpha']);
  });

  it('preselects the unit this session works in when the token is for the signed-in user', async () => {
    const { page } = admin;
    const { db } = admin.server.service.database;
    const office = await seedUnit(db, 'Zulu office');
    await linkUnit(db, 1, office);
    await open(admin, '/admin/tokens');
    const switcher = page.getByRole('banner').getByLabel('Unit', { exact: true });
    const switched = page.waitForResponse((r) => r.url().endsWith('/app/session/unit'));
    await switcher.selectOption({ label: 'Zulu office' });
    assert.equal((await switched).status(), 200);
    const user = page.getByRole('combobox', { name: 'User' });
    await user.fill('admin');
    await page.getByRole('option', { name: /Administrator/ }).click();
    const unit = page.getByRole('main').getByLabel('Unit', { exact: true });
    await page
      .getByRole('main')
      .getByRole('option', { name: 'Zulu office' })
      .waitFor({ state: 'attached' });
    // Linked first and first by name: Main; this session works in Zulu office.
    assert.deepStrictEqual(await unit.locator('option').allTextContents(), ['Main', 'Zulu office']);
    assert.equal(await unit.inputValue(), String(office));
    await assertAccessible(page, 'the token form');
    // Back in Main, where the session starts, so the other tests find it as they left it.
    const back = page.waitForResponse((r) => r.url().endsWith('/app/session/unit'));
    await switcher.selectOption({ label: 'Main' });
    await back;
  });
});
