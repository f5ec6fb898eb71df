// The admin front end, sign-in and shell (issue 18 item 2, DESIGN.md 3.7): the sign-in screen
// and its 422 and 429 messages, the shell (the user's name, navigation from the metadata, unit
// switcher, Sign out, the bell's one first read), an expired session sending the person to sign
// in and back where they were, and no session probe (no 401) on the sign-in page without one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type AdminHarness,
  assertAccessible,
  notOnThisEngine,
  screenshot,
  signIn,
  startAdmin,
} from '../helpers/browser.js';
import { linkUnit, seedLoginUser, seedUnit, USER_PASSWORD } from '../helpers/session-seed.js';

describe('admin front end: sign-in and shell', { skip: notOnThisEngine }, () => {
  let admin: AdminHarness;

  before(async () => {
    admin = await startAdmin();
    const { db } = admin.server.service.database;
    await linkUnit(db, 1, await seedUnit(db, 'Second'));
    await seedLoginUser(db, 'editor', [1]);
    await admin.server.service.database.db
      .insertInto('groups')
      .values({
        name: 'Editors',
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      })
      .execute();
  });
  after(() => admin?.close());

  it('sends a person without a session to sign in, shows a wrong password, then opens where they were going', async () => {
    const { page } = admin;
    await page.goto(admin.url('/admin/notifications'));
    await page.waitForURL(/\/admin\/login\?next=%2Fadmin%2Fnotifications$/);
    await page.getByLabel('Login').fill('admin');
    await page.getByLabel('Password').fill('not the password');
    await assertAccessible(page, 'the sign-in screen');
    await screenshot(page, 'sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('alert')
      .getByText('These credentials do not match our records.')
      .waitFor();
    await signIn(page);
    await page.waitForURL(/\/admin\/notifications$/);
  });

  it('shows the user’s name, Sign out, and a navigation link per listable resource, Tokens and Notifications', async () => {
    const { page } = admin;
    await page.getByText('Administrator', { exact: true }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of [
      'Import templates',
      'Users',
      'Companies',
      'Units',
      'Groups',
      'Tokens',
      'Notifications',
    ])
      await nav.getByRole('link', { name, exact: true }).waitFor();
    await page.getByRole('link', { name: 'svc admin' }).click();
    await page.getByRole('heading', { name: 'Welcome, Administrator' }).waitFor();
    await assertAccessible(page, 'the start page');
    await nav.getByRole('link', { name: 'Users', exact: true }).click();
    await page.waitForURL(/\/admin\/r\/users$/);
    await assertAccessible(page, 'the users list');
  });

  it('switches the session’s unit with the unit switcher', async () => {
    const { page } = admin;
    const unit = page.getByLabel('Unit', { exact: true });
    assert.equal(await unit.inputValue(), '1');
    const switched = page.waitForResponse((r) => r.url().endsWith('/app/session/unit'));
    await unit.selectOption({ label: 'Second' });
    assert.equal((await switched).status(), 200);
    const session: any = await page.evaluate(() => fetch('/app/session').then((r) => r.json()));
    assert.equal(session.unit.name, 'Second');
    const back = page.waitForResponse((r) => r.url().endsWith('/app/session/unit'));
    const reloaded = page.waitForResponse((r) => r.url().endsWith('/app/resources'));
    await unit.selectOption({ label: 'Main' });
    assert.equal((await back).status(), 200);
    // The screen reloads in the new unit: settled before the next test ends the session.
    assert.equal((await reloaded).status(), 200);
    await page.getByText(/^Page 1 of 1/).waitFor();
  });

  it('sends an expired session to sign in on its next request, and back to the same screen after', async () => {
    const { page } = admin;
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Groups' })
      .click();
    await page.waitForURL(/\/admin\/r\/groups$/);
    // The list has loaded: the session ends after its request, not before it.
    await page.getByText('Editors', { exact: true }).waitFor();
    await admin.server.service.database.db.deleteFrom('sessions').execute();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Companies' })
      .click();
    await page.waitForURL(/\/admin\/login\?next=%2Fadmin%2Fr%2Fcompanies$/);
    await signIn(page);
    await page.waitForURL(/\/admin\/r\/companies$/);
  });

  it('signs out', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    const status = await page.evaluate(() => fetch('/app/session').then((r) => r.status));
    assert.equal(status, 401);
  });

  it('shows a user who is not an admin only what they may use, and lets them pick groups and users', async () => {
    const { page } = admin;
    await signIn(page, 'editor', USER_PASSWORD);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Import templates' }).click();
    for (const name of ['Users', 'Companies', 'Units', 'Groups', 'Tokens'])
      assert.equal(await nav.getByRole('link', { name, exact: true }).count(), 0, name);
    await nav.getByRole('link', { name: 'Notifications' }).waitFor();
    await page.getByRole('button', { name: 'New' }).click();
    const groups = page.getByRole('region', { name: 'Groups', exact: true });
    await groups.getByRole('button', { name: 'Add row' }).click();
    await groups.getByRole('combobox', { name: 'Group' }).fill('Edit');
    await page.getByRole('option', { name: 'Editors' }).click();
    const users = page.getByRole('region', { name: 'Users', exact: true });
    await users.getByRole('button', { name: 'Add row' }).click();
    await users.getByRole('combobox', { name: 'User' }).fill('admin');
    await page.getByRole('option', { name: /Administrator/ }).click();
    // Signing out of a form with unsaved changes asks first.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page
      .getByRole('dialog', { name: 'Leave without saving?' })
      .getByRole('button', { name: 'Leave' })
      .click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
  });

  it('a visit to the sign-in page without a session asks for none: no 401 in the console, also after signing out', async () => {
    const context = await admin.browser.newContext();
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('console', (m) => m.type() === 'error' && failures.push(m.text()));
    page.on('response', (r) => r.status() === 401 && failures.push(`401 ${r.url()}`));
    const signInPage = async (pathname: string) => {
      await page.goto(admin.url(pathname));
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await page.waitForLoadState('networkidle');
    };
    await signInPage('/admin/login');
    await signInPage('/admin/r/groups');
    assert.match(page.url(), /\/admin\/login\?next=%2Fadmin%2Fr%2Fgroups$/);
    await signIn(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInPage('/admin/login');
    assert.deepStrictEqual(failures, []);
    await context.close();
  });

  it('a session that ended while in use is forgotten with its first 401: the sign-in page asks for none after', async () => {
    const context = await admin.browser.newContext();
    const page = await context.newPage();
    await page.goto(admin.url('/admin/login'));
    await signIn(page);
    const groups = page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Groups' });
    await groups.waitFor();
    await admin.server.service.database.db.deleteFrom('sessions').execute();
    // The click meets the 401, or the page's own poll meets it first and the link is gone (a
    // slow machine): either way the page goes to sign in, next= naming where it was going.
    await groups.click({ timeout: 5_000 }).catch(() => {});
    await page.waitForURL(/\/admin\/login\?next=%2Fadmin/);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.waitForLoadState('networkidle');
    // The ended session met its 401 above; a visit to the sign-in page after it asks nothing.
    const failures: string[] = [];
    page.on('console', (m) => m.type() === 'error' && failures.push(m.text()));
    page.on('response', (r) => r.status() === 401 && failures.push(`401 ${r.url()}`));
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepStrictEqual(failures, []);
    await assertAccessible(page, 'the sign-in page');
    await context.close();
  });

  it('a visit to the sign-in page after the session expired logs no error in the console', async () => {
    const context = await admin.browser.newContext();
    const page = await context.newPage();
    await page.goto(admin.url('/admin/login'));
    await signIn(page);
    await page.waitForLoadState('networkidle');
    // The session ends on the server while the browser keeps its cookies (idle expiry).
    await admin.server.service.database.db.deleteFrom('sessions').execute();
    const failures: string[] = [];
    page.on('console', (m) => m.type() === 'error' && failures.push(m.text()));
    page.on('response', (r) => r.status() === 401 && failures.push(`401 ${r.url()}`));
    await page.goto(admin.url('/admin/login'));
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepStrictEqual(failures, []);
    await signIn(page);
    await context.close();
  });

  it('a full load of a list reads the bell’s notifications once (real time off: the poll’s first read)', async () => {
    const context = await admin.browser.newContext();
    const page = await context.newPage();
    await page.goto(admin.url('/admin/login?next=%2Fadmin%2Fr%2Fgroups'));
    await signIn(page);
    await page.getByText('Editors', { exact: true }).waitFor();
    const reads: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/app/notifications?per_page=')) reads.push(r.url());
    });
    await page.reload();
    await page.getByText('Editors', { exact: true }).waitFor();
    await page.getByRole('button', { name: /^Notifications, 0 unread$/ }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepStrictEqual(reads, [admin.url('/app/notifications?per_page=5')]);
    await context.close();
  });

  it('shows the 429 of the per-IP failure limit', async () => {
    const { page } = admin;
    for (let i = 0; i < 20; i += 1)
      await admin.server.post('/app/login', { login: 'admin', password: 'wrong' });
    await page.getByLabel('Login').fill('admin');
    await page.getByLabel('Password').fill('anything');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Too many requests. Try again later.').waitFor();
  });
});
