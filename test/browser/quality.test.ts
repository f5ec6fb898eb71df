// Qualities a person notices (issue 18 item 8): the keyboard alone signs in and creates a
// template with a detail row; the focus is visible; 375 px wide works without sideways
// scrolling; the dark scheme passes axe-core too; dates in the browser's locale and time zone;
// the bell polls every 30 s when real time is off.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import {
  type AdminHarness,
  assertAccessible,
  notOnThisEngine,
  open,
  screenshot,
  startAdmin,
} from '../helpers/browser.js';
import { type SessionClient, signedIn } from '../helpers/session-client.js';
import { ADMIN_PASSWORD } from '../helpers/test-server.js';

/** Presses Tab until `target` has the focus (at most `max` times). */
async function tabTo(page: Page, target: Locator, max = 40): Promise<void> {
  for (let i = 0; i < max; i += 1) {
    if (await target.evaluate((el) => el === el.ownerDocument.activeElement).catch(() => false))
      return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached ${target}`);
}

const hasFocusRing = (target: Locator) =>
  target.evaluate((el) => {
    const style = el.ownerDocument.defaultView?.getComputedStyle(el);
    return style !== undefined && style.outlineStyle !== 'none' && style.outlineWidth !== '0px';
  });

describe('admin front end: keyboard, small screens, dark scheme, dates, polling', {
  skip: notOnThisEngine,
}, () => {
  let admin: AdminHarness;
  let api: SessionClient;

  before(async () => {
    admin = await startAdmin();
    api = await signedIn(admin.server.url);
    await api.post('/api/groups', { name: 'Editors' });
  });
  after(() => admin?.close());

  it('signs in and creates a template with a group row by keyboard alone, the focus always visible', async () => {
    const { page } = admin;
    await page.goto(admin.url('/admin/login'));
    const login = page.getByLabel('Login');
    await login.waitFor();
    assert.equal(await login.evaluate((el) => el === el.ownerDocument.activeElement), true);
    await page.keyboard.type('admin');
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN_PASSWORD);
    await page.keyboard.press('Enter');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await tabTo(page, skip);
    assert.equal(await hasFocusRing(skip), true);
    const templates = page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Import templates' });
    await tabTo(page, templates);
    assert.equal(await hasFocusRing(templates), true);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/r\/import-templates$/);
    const create = page.getByRole('button', { name: 'New' });
    await tabTo(page, create);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/new$/);
    await tabTo(page, page.getByLabel('Title'));
    await page.keyboard.type('Keyboard made');
    await tabTo(page, page.getByLabel('Database name'));
    await page.keyboard.type('kb');
    await tabTo(page, page.getByLabel('Mapping JSON'));
    await page.keyboard.type('{}');
    const groups = page.getByRole('region', { name: 'Groups', exact: true });
    const addRow = groups.getByRole('button', { name: 'Add row' });
    await tabTo(page, addRow);
    assert.equal(await hasFocusRing(addRow), true);
    await page.keyboard.press('Enter');
    // The new row's picker has the focus: type, then Enter takes the first choice.
    const picker = groups.getByRole('combobox', { name: 'Group' });
    await picker.waitFor();
    assert.equal(await picker.evaluate((el) => el === el.ownerDocument.activeElement), true);
    await page.keyboard.type('Edi');
    await page.getByRole('option', { name: 'Editors' }).waitFor();
    await page.keyboard.press('Enter');
    assert.equal(await groups.getByRole('combobox', { name: 'Group' }).inputValue(), 'Editors');
    await page.keyboard.press('Control+s');
    await page.getByText('Import template created.').waitFor();
  });

  it('shows dates in the browser’s locale and time zone', async () => {
    const { page } = admin;
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const stored = (await api.get(`/api/import-templates/${id}`)).body;
    const expected = new Intl.DateTimeFormat('en-GB', {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone: 'Europe/Paris',
    }).format(new Date(stored.created_at));
    await page.getByText(expected).first().waitFor();
  });

  it('works 375 px wide without sideways scrolling of the page', async () => {
    const { page } = admin;
    await page.setViewportSize({ width: 375, height: 740 });
    try {
      for (const screen of [
        '/admin/r/import-templates',
        '/admin/r/import-templates/new',
        '/admin/tokens',
      ]) {
        await open(admin, screen);
        await page.getByRole('heading', { level: 1 }).waitFor();
        const width = await page.evaluate('document.documentElement.scrollWidth');
        assert.ok(Number(width) <= 375, `${screen} is ${width} px wide`);
        await assertAccessible(page, `${screen} at 375 px`);
      }
      await open(admin, '/admin/r/import-templates');
      await page.getByText(/^Page 1 of 1/).waitFor();
      await screenshot(page, 'list-375px');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('shows a detail row picker’s options whole over the table, 1280 and 375 px wide', async () => {
    // The detail table scrolls sideways (overflow-x), which clipped the options placed in it to
    // a thin line under the input: the first option must be in the viewport and on top.
    const { page } = admin;
    const shown = (option: Locator) =>
      option.evaluate((el) => {
        const box = el.getBoundingClientRect();
        const viewport = el.ownerDocument.documentElement;
        const hit = el.ownerDocument.elementFromPoint(
          box.left + box.width / 2,
          box.top + box.height / 2,
        );
        return {
          inViewport:
            box.height > 0 &&
            box.top >= 0 &&
            box.left >= 0 &&
            box.bottom <= viewport.clientHeight &&
            box.right <= viewport.clientWidth,
          onTop: hit !== null && el.contains(hit),
        };
      });
    try {
      await open(admin, '/admin/r/import-templates/new');
      const groups = page.getByRole('region', { name: 'Groups', exact: true });
      await groups.getByRole('button', { name: 'Add row' }).click();
      const picker = groups.getByRole('combobox', { name: 'Group' });
      const option = groups.getByRole('option', { name: 'Editors' });
      for (const width of [1280, 375]) {
        await page.setViewportSize({ width, height: 740 });
        await picker.scrollIntoViewIfNeeded();
        await picker.click();
        await option.waitFor();
        assert.deepStrictEqual(
          await shown(option),
          { inViewport: true, onTop: true },
          `${width} px`,
        );
        const pageWidth = await page.evaluate('document.documentElement.scrollWidth');
        assert.ok(Number(pageWidth) <= width, `the page is ${pageWidth} px wide at ${width} px`);
        await page.keyboard.press('Escape');
        await option.waitFor({ state: 'hidden' });
      }
      // Where it is seen is where a click chooses it.
      await picker.click();
      await option.click();
      assert.equal(await picker.inputValue(), 'Editors');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('follows prefers-color-scheme: dark, and passes axe-core there too', async () => {
    const { page } = admin;
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await open(admin, '/admin/r/import-templates');
      await page.getByText(/^Page 1 of 1/).waitFor();
      const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
      assert.equal(background, 'rgb(15, 18, 22)');
      await assertAccessible(page, 'the list, dark');
      await page.getByRole('link', { name: 'Keyboard made' }).click();
      await page.getByRole('heading', { name: 'Import template: Keyboard made' }).waitFor();
      await assertAccessible(page, 'the form, dark');
      await screenshot(page, 'form-dark');
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('polls the unread count every 30 s when real time is off', async () => {
    const page = await admin.context.newPage();
    try {
      await page.clock.install();
      // The first count read and the poll set up (real time off) before anything is sent.
      const counted = page.waitForResponse((r) => r.url().includes('/app/notifications?'));
      const settings = page.waitForResponse((r) => r.url().endsWith('/app/realtime'));
      await page.goto(admin.url('/admin/'));
      await counted;
      assert.equal((await (await settings).json()).enabled, false);
      const bell = (n: number) => page.getByRole('button', { name: `Notifications, ${n} unread` });
      await bell(0).waitFor();
      await api.post('/api/notifications', {
        to: 1,
        title: 'Polled',
        message: 'Found by the poll.',
      });
      await page.clock.runFor(25_000);
      const bellName = page.getByRole('button', { name: /^Notifications, / });
      assert.equal(await bellName.getAttribute('aria-label'), 'Notifications, 0 unread');
      await page.clock.runFor(6_000);
      await bell(1).waitFor();
    } finally {
      await page.close();
    }
  });
});
