// GET /docs, the API reference page (issue 17 items 2 and 4, DESIGN.md 3.8): Swagger UI served
// by svc itself renders the document in a real browser (Debian's Chromium through
// playwright-core) without console errors or Content-Security-Policy violations, shows the
// operations, and works offline: every request the page makes goes to svc. Its policy allows no
// 'unsafe-eval' and no inline script. The page is the same on every engine: it runs on SQLite.
//
// test/helpers/browser.ts (the admin front end's harness) is not used: it builds the admin app
// first and counts only CSP and uncaught errors, where this page must log no error at all.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.js';
import { sqlitePassOnly } from '../helpers/engines.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** A host name that is not loopback (Chromium maps it to 127.0.0.1): the page as users reach it. */
const NAMED_HOST = 'svc-docs.test';

const skip = sqlitePassOnly(
  'the API reference page is the same on every engine: it is checked on SQLite only',
);

interface Visit {
  readonly page: Page;
  /** Every URL the page requested. */
  readonly requests: string[];
  /** Requests to another host than svc's (refused, so the test never needs the network). */
  readonly foreign: string[];
  /** Console errors, uncaught exceptions and CSP violations. */
  readonly errors: string[];
}

/** The directives of a Content-Security-Policy header: name -> sources. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name = '', ...sources]) => [name.toLowerCase(), sources]),
  );
}

describe('GET /docs: the API reference page in a real browser', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  /** Opens /docs at `origin` in a new browser context and waits for the operations to render. */
  async function visit(origin: string): Promise<Visit> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    const visit: Visit = {
      page: await context.newPage(),
      requests: [],
      foreign: [],
      errors: [],
    };
    const { host } = new URL(origin);
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).host === host) return route.continue();
      visit.foreign.push(url);
      return route.abort('blockedbyclient');
    });
    // Runs before the page's own scripts, whatever its policy says.
    await context.addInitScript(`document.addEventListener('securitypolicyviolation', (event) =>
      console.error('CSP violation: ' + event.violatedDirective + ' refused ' + (event.blockedURI || 'inline code')));`);
    const { page } = visit;
    page.on('request', (request) => visit.requests.push(request.url()));
    page.on('pageerror', (error) => visit.errors.push(`uncaught: ${String(error)}`));
    page.on('console', (message) => {
      if (message.type() === 'error') visit.errors.push(`console: ${message.text()}`);
    });
    const response = await page.goto(`${origin}/docs`);
    assert.equal(response?.status(), 200);
    await page.getByRole('heading', { name: 'svc', exact: false }).first().waitFor();
    await page
      .getByRole('heading', { name: /^Import templates/ })
      .first()
      .waitFor();
    return visit;
  }

  /** Expands a tag (they start collapsed) and waits for one of its operations. */
  async function expand(page: Page, tag: RegExp, operation: RegExp): Promise<void> {
    await page.getByRole('heading', { name: tag }).first().click();
    await page.getByRole('button', { name: operation }).first().waitFor();
  }

  before(async () => {
    browser = await launchChromium([`--host-resolver-rules=MAP ${NAMED_HOST} 127.0.0.1`]);
    server = await startTestServer({}, { anonymous: true });
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await server?.close();
  });

  it('renders the document: the "Import templates" tag and its operations, without console errors or CSP violations', async () => {
    const { page, errors } = await visit(server.url);
    // Every tag is there, collapsed; each expands to its operations.
    await expand(page, /^Import templates/, /^GET \/api\/import-templates\b/);
    for (const name of [
      /^POST \/api\/import-templates\b/,
      /^PATCH \/api\/import-templates\/\{import_template\}/,
      /^GET \/api\/import-templates\/changes\b/,
      /^POST \/api\/import-templates\/\{import_template\}\/history\/\{seq\}\/restore/,
    ])
      await page.getByRole('button', { name }).first().waitFor();
    await expand(page, /^Users/, /^DELETE \/api\/users\/\{user\}/);
    await expand(page, /^Session/, /^POST \/app\/login\b/);
    // An operation opens with its parameters and documented answers (3.1 schemas render).
    await page
      .getByRole('button', { name: /^GET \/api\/import-templates\b/ })
      .first()
      .click();
    const list = page.locator('#operations-Import_templates-listImportTemplates');
    await list.getByText('per_page', { exact: true }).waitFor();
    await list.getByText('Missing ability', { exact: false }).first().waitFor();
    await list.locator('.response[data-code="422"]').waitFor();
    assert.deepStrictEqual(errors, [], 'errors in the page');
  });

  it('works offline: every request the page makes goes to svc itself', async () => {
    const { requests, foreign, errors } = await visit(server.url);
    const origin = new URL(server.url).origin;
    assert.deepStrictEqual(foreign, [], 'requests to another host');
    assert.deepStrictEqual(
      requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:')),
      [],
    );
    for (const asset of [
      '/docs',
      '/docs/assets/swagger-ui-bundle.js',
      '/docs/start.js',
      '/api/openapi.json',
    ])
      assert.ok(
        requests.includes(origin + asset),
        `${asset} was not requested (${requests.join(', ')})`,
      );
    assert.deepStrictEqual(errors, [], 'errors in the page');
  });

  it('works offline under a host name that is not loopback too (Swagger UI adds a validator badge from validator.swagger.io on other hosts in some layouts)', async () => {
    const origin = `http://${NAMED_HOST}:${new URL(server.url).port}`;
    const { requests, foreign, errors } = await visit(origin);
    assert.deepStrictEqual(foreign, [], 'requests to another host');
    assert.ok(requests.includes(`${origin}/api/openapi.json`), requests.join(', '));
    assert.deepStrictEqual(errors, [], 'errors in the page');
  });

  it("the page's Content-Security-Policy allows no 'unsafe-eval' and no inline script", async () => {
    const response = await fetch(`${server.url}/docs`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    const policy = response.headers.get('content-security-policy');
    assert.ok(policy, 'GET /docs sends no Content-Security-Policy');
    const parsed = directives(policy);
    assert.ok(!policy.includes("'unsafe-eval'"), `'unsafe-eval' in ${policy}`);
    const scripts = parsed.get('script-src') ?? parsed.get('default-src');
    assert.ok(scripts, `no script-src or default-src in ${policy}`);
    for (const source of scripts)
      assert.ok(
        !["'unsafe-inline'", "'unsafe-hashes'", "'strict-dynamic'", '*', 'data:', 'blob:'].includes(
          source,
        ) && !/^'(nonce|sha(256|384|512))-/.test(source),
        `script-src allows ${source}: ${policy}`,
      );
    for (const name of ['script-src-elem', 'script-src-attr'])
      assert.ok(
        !parsed.has(name) || !(parsed.get(name) ?? []).includes("'unsafe-inline'"),
        `${name}: ${policy}`,
      );
    // And the page itself has none: every <script> has a src, no on* handler attributes.
    const html = await response.text();
    const tags = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    assert.ok(tags.length > 0);
    for (const [, attributes = '', body = ''] of tags) {
      assert.match(attributes, /\bsrc=/, `an inline <script>: ${attributes}`);
      assert.equal(body.trim(), '', 'a <script src> with inline code');
    }
    assert.doesNotMatch(html, /\son[a-z]+\s*=/i, 'an inline event handler attribute');
  });
});
