// The browser tests' harness (issue 18): the real svc on SQLite with the admin front end built,
// Debian's Chromium driven by playwright-core, one browser per test file. Elements are found by
// role and accessible name only (DESIGN.md 3.7, STYLE.md example 16).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { buildWeb } from '../../scripts/build-web.mjs';
import {
  ADMIN_PASSWORD,
  startTestServer,
  type TestServer,
  type TestServerOptions,
} from './test-server.js';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Why a browser suite does not run on this engine (the front end is the same on every engine:
 * it runs once, on SQLite), or false.
 */
export const notOnThisEngine: string | false =
  process.env.SVC_TEST_ENGINE !== undefined && process.env.SVC_TEST_ENGINE !== 'sqlite'
    ? `browser tests run on SQLite only (this run is ${process.env.SVC_TEST_ENGINE})`
    : false;

/** The environment of an admin whose bell and live screens follow the embedded Pusher server. */
export const REALTIME_ADMIN_ENV = {
  REALTIME_NOTIFICATIONS: 'true',
  PUSHER_APP_SECRET: 'browser-test-secret',
} as const;

/** The fields an import template needs, for a screen to show (created through the API). */
export const templateFields = (title: string, code: string) => ({
  title,
  code,
  database_name: 'warehouse',
  mapping_json: '{"columns":["a","b"]}',
});

export interface AdminHarness {
  readonly server: TestServer;
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  /** The address of an admin screen: `screen('/admin/tokens')`. */
  url(pathname: string): string;
  close(): Promise<void>;
}

/** Builds the front end, starts svc (env as startTestServer takes it) and a browser page. */
/** Debian's Chromium, headless and quiet (no sandbox: tests run as root), with `args` added. */
export function launchChromium(args: readonly string[] = []): Promise<Browser> {
  assert.ok(
    fs.existsSync(CHROMIUM),
    `${CHROMIUM} is missing: the browser tests need Debian's chromium package (apt-get install -y chromium; .ci/run installs it).`,
  );
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...args,
    ],
  });
}

export async function startAdmin(
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): Promise<AdminHarness> {
  await buildWeb();
  const browser = await launchChromium();
  const server = await startTestServer(env, { ...options, anonymous: true });
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    locale: 'en-GB',
    timezoneId: 'Europe/Paris',
  });
  // Generous: on a loaded 2-core machine (CI, or other runs beside this one) a screen can take
  // seconds to settle; a wait only lasts this long when something is really missing.
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    // CSP refusals and uncaught errors are failures of the app, whatever the test looks at.
    if (message.type() === 'error' && /Content Security Policy|Uncaught/.test(message.text()))
      errors.push(message.text());
  });
  return {
    server,
    browser,
    context,
    page,
    url: (pathname) => server.url + pathname,
    async close() {
      await browser.close();
      await server.close();
      assert.deepStrictEqual(errors, [], 'errors in the page');
    },
  };
}

/** Signs in through the sign-in screen (the page must show it). */
export async function signIn(
  page: Page,
  login = 'admin',
  password = ADMIN_PASSWORD,
): Promise<void> {
  await page.getByLabel('Login').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Opens an admin address, signing in first when the app asks. */
export async function open(harness: AdminHarness, pathname: string): Promise<void> {
  const { page } = harness;
  await page.goto(harness.url(pathname));
  const signOut = page.getByRole('button', { name: 'Sign out' });
  const signInButton = page.getByRole('button', { name: 'Sign in' });
  await signOut.or(signInButton).first().waitFor();
  if (await signInButton.isVisible()) await signIn(page);
}

const require = createRequire(import.meta.url);
const AXE = path.join(path.dirname(require.resolve('axe-core')), 'axe.min.js');

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly string[] }[];
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.1 AA rules). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated, not added as a <script>: the admin's CSP refuses inline scripts, as it should.
  if (!(await page.evaluate(() => 'axe' in globalThis)))
    await page.evaluate(fs.readFileSync(AXE, 'utf8'));
  const violations: AxeViolation[] = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const result = await axe.run(
      { exclude: [] },
      {
        runOnly: {
          type: 'tag',
          values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'],
        },
      },
    );
    return result.violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export async function assertAccessible(page: Page, screen: string): Promise<void> {
  const violations = await seriousViolations(page);
  assert.deepStrictEqual(
    violations.map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
    [],
    `axe-core on ${screen}`,
  );
}

/**
 * A screenshot for the README (docs/screenshots/<name>.png), taken only when SVC_SCREENSHOTS=1
 * (the screens show dates: every run would change the files).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.SVC_SCREENSHOTS !== '1') return;
  const dir = path.resolve(
    path.dirname(fileURLToPath(import.meta.url)),
    '..',
    '..',
    'docs',
    'screenshots',
  );
  fs.mkdirSync(dir, { recursive: true });
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}
