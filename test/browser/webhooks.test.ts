// The admin front end's webhook screens (issue 34, DESIGN.md 3.10): the generic form creates an
// endpoint with its events chosen among the declared ones (a multiple choice, sent as a list),
// and says the signing secret once, with the confirmation; the record never shows it again.
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

describe('admin front end: webhooks', { skip: notOnThisEngine }, () => {
  let admin: AdminHarness;

  before(async () => {
    admin = await startAdmin();
  });
  after(() => admin?.close());

  it('creates an endpoint with events chosen in a multiple choice and shows its secret once', async () => {
    const { page } = admin;
    await open(admin, '/admin/r/webhooks/new');
    await page.getByLabel('URL').fill('https://example.com/hooks/svc');
    await page
      .getByLabel('Events')
      .selectOption(['import-templates.created', 'import-templates.updated']);
    await assertAccessible(page, 'webhook form');
    await page.getByRole('button', { name: 'Save' }).click();
    const said = page.getByText(/Webhook created\. Its secret, shown this once: whsec_/);
    await said.waitFor();
    const secret = /whsec_\S+/.exec((await said.textContent()) ?? '')?.[0] ?? '';
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    await screenshot(page, 'webhook-created');
    // The page's session reads what was stored.
    const stored = await page.request.get(admin.url('/api/webhooks?per_page=1'));
    const [record] = (await stored.json()).data as Array<{ events: string[] }>;
    assert.deepEqual(record?.events, ['import-templates.created', 'import-templates.updated']);
    assert.deepEqual(
      await page
        .getByLabel('Events')
        .evaluate((select: HTMLSelectElement) => [...select.selectedOptions].map((o) => o.value)),
      ['import-templates.created', 'import-templates.updated'],
    );
    await page.reload();
    await page.getByLabel('URL').waitFor();
    assert.equal((await page.content()).includes(secret), false, 'the secret shown again');
  });
});
