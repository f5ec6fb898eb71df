// The admin front end as svc serves it (DESIGN.md 3.7, issue 18): / sends to /admin/, every GET
// under /admin/ that is not an asset answers the app's index.html (not cached, a strict CSP with
// no inline script), hashed assets are cached for a year, /api/* stays JSON, and the JavaScript
// a first visit loads stays within 60 kB gzipped; the page drops the XSRF-TOKEN cookie of an
// ended session.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type BuiltWeb, buildWeb } from '../../scripts/build-web.mjs';
import { sqlitePassOnly } from '../helpers/engines.js';
import { signedIn, XSRF_COOKIE } from '../helpers/session-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const BUDGET_GZIP = 60 * 1024;

describe('the admin front end: serving', {
  skip: sqlitePassOnly('serving does not depend on the database engine: run on SQLite only'),
}, () => {
  let server: TestServer;
  let built: BuiltWeb;
  let entry: string;

  before(async () => {
    built = await buildWeb();
    entry = built.initial[0]?.name ?? '';
    server = await startTestServer({}, { anonymous: true });
  });
  after(() => server?.close());

  const fetchRaw = (path: string, init: RequestInit = {}) =>
    fetch(server.url + path, { redirect: 'manual', ...init });

  it('redirects GET / to /admin/', async () => {
    const reply = await fetchRaw('/');
    assert.equal(reply.status, 302);
    assert.equal(reply.headers.get('location'), '/admin/');
  });

  for (const path of [
    '/admin/',
    '/admin',
    '/admin/login',
    '/admin/r/import-templates/12?x=1',
    '/admin/tokens',
  ]) {
    it(`answers GET ${path} with the app's index.html, not cached, under a CSP without inline script`, async () => {
      const reply = await fetchRaw(path);
      assert.equal(reply.status, 200);
      assert.equal(reply.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(reply.headers.get('cache-control'), 'no-cache');
      const csp = reply.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /connect-src 'self' ws: wss:/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      const html = await reply.text();
      assert.equal(html, built.index);
      assert.ok(html.includes(`<script type="module" src="/admin/${entry}"></script>`), html);
      assert.doesNotMatch(
        html,
        /<script>|<script type="module">|style=/,
        'no inline script or style',
      );
    });
  }

  it('drops the readable XSRF-TOKEN cookie with the page when its session has ended, and keeps a live one', async () => {
    const browser = await signedIn(server.url);
    assert.equal((await browser.get('/admin/login')).status, 200);
    assert.deepStrictEqual(browser.lastSetCookies, []);
    // Another tab signs out: this one keeps cookies that name no session.
    assert.equal((await browser.clone().post('/app/logout')).status, 200);
    assert.ok(browser.cookie(XSRF_COOKIE));
    assert.equal((await browser.get('/admin/login')).status, 200);
    assert.equal(browser.cookie(XSRF_COOKIE), undefined);
  });

  it('serves hashed assets with a year of immutable caching, compressed when asked', async () => {
    const reply = await fetchRaw(`/admin/${entry}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^(text|application)\/javascript/);
    assert.equal(reply.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(reply.headers.get('content-encoding'), 'gzip');
    assert.match(entry, /^assets\/main-[A-Z0-9]{8}\.js$/);
    assert.ok((await reply.text()).length > 1000);
  });

  it('answers an unknown asset with the JSON 404, not the app', async () => {
    const reply = await fetchRaw('/admin/assets/main-NOTBUILT.js');
    assert.equal(reply.status, 404);
    assert.deepStrictEqual(await reply.json(), { error: 'Not found' });
  });

  it('leaves unknown /api/* routes and non-GET /admin requests the JSON 404', async () => {
    for (const [method, path] of [
      ['GET', '/api/nothing-here'],
      ['GET', '/api/admin/'],
      ['POST', '/admin/login'],
    ] as const) {
      const reply = await fetchRaw(path, { method });
      assert.equal(reply.status, 404, `${method} ${path}`);
      assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepStrictEqual(await reply.json(), { error: 'Not found' });
    }
  });

  it('keeps the initial JavaScript within 60 kB gzipped; pusher-js is a chunk of its own, loaded later', () => {
    const total = built.initial.reduce((sum, file) => sum + file.gzip, 0);
    const list = built.initial.map((f) => `${f.name} ${f.gzip} B`).join(', ');
    assert.ok(
      total <= BUDGET_GZIP,
      `initial JavaScript is ${total} B gzipped (${list}), over ${BUDGET_GZIP}`,
    );
    assert.equal(
      built.initial.some((f) => f.name.includes('pusher')),
      false,
      list,
    );
    assert.ok(
      built.chunks.some((f) => f.name.startsWith('assets/pusher-')),
      'a pusher-js chunk',
    );
    console.log(`# initial JavaScript: ${(total / 1024).toFixed(1)} kB gzipped (${list})`);
  });
});
