// The admin front end's notifications (issue 18 item 7, DESIGN.md 3.7), real time on: a
// notification sent with `svc notify` appears in the bell without a reload; the dropdown and the
// reader open it (marking it read), mark it unread and all read; the three action kinds lead where
// they say.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type AdminHarness,
  assertAccessible,
  notOnThisEngine,
  open,
  REALTIME_ADMIN_ENV,
  screenshot,
  startAdmin,
} from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { type SessionClient, signedIn } from '../helpers/session-client.js';
import { ADMIN_PASSWORD } from '../helpers/test-server.js';

describe('admin front end: notifications, real time on', { skip: notOnThisEngine }, () => {
  let admin: AdminHarness;
  let api: SessionClient;

  before(async () => {
    admin = await startAdmin(REALTIME_ADMIN_ENV);
    api = await signedIn(admin.server.url);
  });
  after(() => admin?.close());

  const bell = (unread: number) =>
    admin.page.getByRole('button', { name: `Notifications, ${unread} unread` });

  const send = (body: Record<string, unknown>) =>
    api.post('/api/notifications', { to: 1, message: 'Details.', ...body });

  it('shows a notification sent with svc notify in the bell without a reload', async () => {
    const { page } = admin;
    // The socket is up (the channel authorised) before the push is sent.
    const subscribed = page.waitForResponse((r) =>
      r.url().includes('/broadcasting/auth-notifications'),
    );
    await open(admin, '/admin/');
    await bell(0).waitFor();
    assert.equal((await subscribed).status(), 200);
    const run = await runCli(
      {
        ...process.env,
        ...REALTIME_ADMIN_ENV,
        ...admin.server.storageEnv,
        ADMIN_PASSWORD,
        LOG_LEVEL: 'silent',
        HOST: '127.0.0.1',
        PORT: new URL(admin.server.url).port,
      },
      [
        'notify',
        'admin',
        '--title=Import finished',
        '--message=1,204 rows imported.',
        '--navigate=/admin/r/import-templates',
      ],
    );
    assert.equal(run.code, 0, run.stderr);
    await bell(1).waitFor();
  });

  it('opens it from the dropdown: the reader shows it and marks it read; Esc closes the dropdown', async () => {
    const { page } = admin;
    await bell(1).click();
    await page.keyboard.press('Escape');
    await page.getByRole('link', { name: /Import finished/ }).waitFor({ state: 'hidden' });
    assert.equal(await bell(1).evaluate((b) => b === b.ownerDocument.activeElement), true);
    await bell(1).click();
    await page.getByRole('link', { name: /Import finished/ }).waitFor();
    await assertAccessible(page, 'the bell’s dropdown');
    await page.getByRole('link', { name: /Import finished/ }).click();
    await page.waitForURL(/\/admin\/notifications\?open=\d+$/);
    await page.getByText('1,204 rows imported.').waitFor();
    await bell(0).waitFor();
    await assertAccessible(page, 'the notification reader');
    await screenshot(page, 'notifications');
  });

  it('marks it unread, then all read', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Mark as unread' }).click();
    await bell(1).waitFor();
    await page.getByText('1 notification, 1 unread').waitFor();
    await page.getByRole('main').getByRole('button', { name: 'Mark all read' }).click();
    await bell(0).waitFor();
  });

  it('follows the navigate, go and url actions', async () => {
    const { page } = admin;
    await page.getByRole('button', { name: 'Import finished' }).click();
    await page.getByRole('link', { name: 'Open' }).click();
    await page.waitForURL(/\/admin\/r\/import-templates$/);

    const template = await api.post('/api/import-templates', {
      title: 'Stock',
      database_name: 'warehouse',
      mapping_json: '{}',
    });
    await send({
      title: 'Template changed',
      action: {
        kind: 'go',
        screen: 'import-templates',
        parameters: { id: template.body.id },
        label: 'Show the template',
      },
    });
    await send({
      title: 'Report ready',
      action: { kind: 'url', url: 'https://example.com/report', label: 'Download the report' },
    });
    await bell(2).waitFor();
    await open(admin, '/admin/notifications');
    await page.getByRole('button', { name: 'Report ready' }).click();
    const external = page.getByRole('link', { name: /Download the report/ });
    assert.equal(await external.getAttribute('href'), 'https://example.com/report');
    assert.equal(await external.getAttribute('target'), '_blank');
    await page.getByRole('button', { name: 'Template changed' }).click();
    await page.getByRole('link', { name: 'Show the template' }).click();
    await page.waitForURL(new RegExp(`/admin/r/import-templates/${template.body.id}$`));
    await page.getByRole('heading', { name: 'Import template: Stock' }).waitFor();
  });

  it('never leaves the app for a navigate action a browser reads as another host', async () => {
    const { page } = admin;
    const sent = await send({
      title: 'Old link',
      action: { kind: 'navigate', url: '/admin/r/users', label: 'Go there' },
    });
    // A record stored before the server read the address as a browser does.
    await admin.server.service.database.db
      .updateTable('notifications')
      .set({
        action: JSON.stringify({ kind: 'navigate', url: '/\\evil.example/x', label: 'Go there' }),
      })
      .where('id', '=', sent.body.data[0].id)
      .execute();
    await open(admin, '/admin/notifications');
    await page.getByRole('button', { name: 'Old link' }).click();
    await page.getByRole('button', { name: 'Mark as unread' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Go there' }).count(), 0);
    const origin = new URL(admin.server.url).origin;
    const links = await page.getByRole('main').locator('a[href]').all();
    for (const link of links) {
      const href = String(await link.getAttribute('href'));
      assert.equal(new URL(href, origin).origin, origin, href);
    }
  });

  it('a full load of a list reads the bell’s notifications once, after the channel is subscribed', async () => {
    const { page } = admin;
    await open(admin, '/admin/r/import-templates');
    await page.waitForLoadState('networkidle');
    const reads: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/app/notifications?per_page=')) reads.push(r.url());
    });
    const subscribed = page.waitForResponse((r) =>
      r.url().includes('/broadcasting/auth-notifications'),
    );
    await page.reload();
    await page.getByText(/^Page 1 of 1/).waitFor();
    assert.equal((await subscribed).status(), 200);
    await bell(0).waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(reads.length, 1, reads.join(', '));
  });
});
