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
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/** The CSRF token the page's session holds (its XSRF-TOKEN cookie). */
async function xsrf(admin: AdminHarness): Promise<string> {
  const cookies = await admin.context.cookies(admin.server.url);
  return decodeURIComponent(cookies.find((c) => c.name === 'XSRF-TOKEN')?.value ?? '');
}

describe('admin front end: webhooks', { skip: notOnThisEngine }, () => {
  let admin: AdminHarness;
  const receiver = new WebhookReceiver();

  before(async () => {
    await receiver.up();
    admin = await startAdmin({
      WEBHOOKS_WORKER: 'true',
      WEBHOOKS_ALLOW_PRIVATE: 'true',
      WEBHOOKS_POLL_MS: '100',
      WEBHOOKS_RETRY_BASE_MS: '50',
      WEBHOOKS_RETRY_MAX_MS: '100',
      WEBHOOKS_RETRY_FOR_SECONDS: '1',
    });
  });
  after(async () => {
    await admin?.close();
    await receiver.down();
  });

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
        .evaluate((select) =>
          Array.from(
            (select as unknown as { selectedOptions: ArrayLike<{ value: string }> })
              .selectedOptions,
            (option) => option.value,
          ),
        ),
      ['import-templates.created', 'import-templates.updated'],
    );
    await page.reload();
    await page.getByLabel('URL').waitFor();
    assert.equal((await page.content()).includes(secret), false, 'the secret shown again');
    // Nothing is to go out to example.com from the next test's write.
    const id = (record as unknown as { id: number }).id;
    const gone = await page.request.delete(admin.url(`/api/webhooks/${id}`), {
      headers: { 'x-xsrf-token': await xsrf(admin) },
    });
    assert.equal(gone.status(), 200, await gone.text());
  });

  it("lists a webhook's deliveries with status, attempts and last answer, and Replay sends a dead one again", async () => {
    const { page } = admin;
    receiver.status = 500;
    const created = await page.request.post(admin.url('/api/webhooks'), {
      data: { url: receiver.url, events: ['import-templates.created'] },
      headers: { 'x-xsrf-token': await xsrf(admin) },
    });
    assert.equal(created.status(), 201, await created.text());
    const hook = (await created.json()) as { id: number };
    const template = await page.request.post(admin.url('/api/import-templates'), {
      data: { title: 'Hooked', database_name: 'erp', mapping_json: '{}' },
      headers: { 'x-xsrf-token': await xsrf(admin) },
    });
    assert.equal(template.status(), 201, await template.text());
    await open(admin, `/admin/r/webhooks/${hook.id}`);
    const panel = page.getByRole('region', { name: 'Deliveries' });
    const row = panel.getByRole('row').filter({ hasText: 'import-templates.created' });
    await row.getByRole('cell', { name: 'dead' }).waitFor();
    await row.getByText('HTTP 500').waitFor();
    await assertAccessible(page, 'webhook deliveries');
    await screenshot(page, 'webhook-deliveries');
    receiver.status = 200;
    await row.getByRole('button', { name: /^Replay delivery/ }).click();
    await panel.getByText(/is sent again/).waitFor();
    await row.getByRole('cell', { name: 'succeeded' }).waitFor({ timeout: 15_000 });
    await row.getByText('HTTP 200').waitFor();
  });
});
