// The live admin over real time (issue 32 items 4-5, DESIGN.md 3.9): with REALTIME_NOTIFICATIONS
// on, an open list subscribes to private-resource.<resource> (authorized by POST
// /broadcasting/auth) and reads the change feed when a push says so, not on its poll.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type AdminHarness,
  notOnThisEngine,
  open,
  REALTIME_ADMIN_ENV,
  startAdmin,
  templateFields,
} from '../helpers/browser.js';
import { type SessionClient, signedIn } from '../helpers/session-client.js';

describe('admin front end: live screens over real time', { skip: notOnThisEngine }, () => {
  let admin: AdminHarness;
  let api: SessionClient;

  before(async () => {
    admin = await startAdmin(REALTIME_ADMIN_ENV);
    api = await signedIn(admin.server.url);
  });
  after(() => admin?.close());

  it('an open list subscribes to its resource channel and shows a template created through the API when the push says so, with no poll', async () => {
    await open(admin, '/admin/r/import-templates'); // signed in
    // A page of its own whose timers the test holds: once subscribed, only a push can read.
    const page = await admin.context.newPage();
    await page.clock.install();
    const subscribed = page.waitForResponse(
      (r) =>
        new URL(r.url()).pathname === '/broadcasting/auth' &&
        (r.request().postData() ?? '').includes('private-resource.import-templates'),
    );
    await page.goto(admin.url('/admin/r/import-templates'));
    assert.equal((await subscribed).status(), 200);
    await page.getByText('Page 1 of 1 · 0 records').waitFor();
    await page.waitForLoadState('networkidle');
    await page.clock.pauseAt(Date.now() + 1000);
    const reads: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/changes?')) reads.push(r.url());
    });
    await api.post('/api/import-templates', templateFields('Pushed', 'PUSHED'));
    await page.getByRole('link', { name: 'Pushed' }).waitFor();
    assert.equal(reads.length, 1, `the one read the push asked for: ${reads.join(', ')}`);
    await page.clock.resume();
    await page.close();
  });

  it('a form’s own save, pushed back before its answer arrives, is not told as a change made elsewhere', async () => {
    const { page } = admin;
    const id = (await api.post('/api/import-templates', templateFields('Own save', 'OWN'))).body.id;
    const subscribed = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/broadcasting/auth',
    );
    await open(admin, `/admin/r/import-templates/${id}`);
    assert.equal((await subscribed).status(), 200);
    await page.getByRole('heading', { name: 'Import template: Own save' }).waitFor();
    await page.waitForLoadState('networkidle');
    // The save's answer is held until the page has read the change its push announced.
    const pushedBack = page.waitForResponse((r) => r.url().includes('/changes?after='));
    await page.route(`**/api/import-templates/${id}`, async (route) => {
      if (route.request().method() !== 'PUT') return route.continue();
      const response = await route.fetch();
      await pushedBack;
      await route.fulfill({ response });
    });
    await page.getByLabel('Title', { exact: true }).fill('Own save again');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Import template saved.').waitFor();
    await page.waitForLoadState('networkidle');
    assert.equal(await page.getByText(/was changed/).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Reload' }).count(), 0);
    await page.unroute(`**/api/import-templates/${id}`);
  });
});
