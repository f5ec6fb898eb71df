// Signed requests (docs/rest-driver.md "Signed-request driver", DESIGN.md 3.6): X-Svc-Signature is the hex
// HMAC-SHA256 of `METHOD\nTARGET\nTIMESTAMP\nNONCE\nSHA256HEX(BODY)`, the timestamp within 300 s,
// the nonce new. Every refusal is a 401 `{error}` that counts toward the per-IP failure limit:
// the 21st request after 20 refusals is the 429 of SPEC.md 7, even when correctly signed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assert429 } from '../helpers/bearer.js';
import { assertJson, httpRequest, type Reply } from '../helpers/http.js';
import {
  assertDriver401,
  DRIVER,
  type DriverSend,
  driverEnv,
  driverQuery,
  driverRequest,
  signedHeaders,
} from '../helpers/rest-driver-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const QUERY = `${DRIVER}/query`;
const TABLES = `${DRIVER}/tables`;
const ONE = { columns: [{ name: 'one', type: null }], rows: [[1]], row_count: 1, truncated: false };
const now = () => Math.floor(Date.now() / 1000);

const INVALID = 'Invalid signature.';
const SKEW = 'X-Svc-Timestamp is more than 300 seconds away from the server time.';
const REPLAYED = 'The nonce was already used.';
const MISSING = 'Missing X-Svc-Timestamp, X-Svc-Nonce or X-Svc-Signature.';

interface Refusal {
  readonly name: string;
  readonly error: string;
  send(url: string): Promise<Reply>;
}

const query = (url: string, send: DriverSend) =>
  driverRequest(url, 'POST', QUERY, { body: { sql: 'select 1 as one' }, ...send });

/** Each way a request can fail authentication, and the error it gets. */
const REFUSALS: readonly Refusal[] = [
  {
    name: 'a replayed nonce',
    error: REPLAYED,
    async send(url) {
      const headers = signedHeaders('POST', QUERY, JSON.stringify({ sql: 'select 1 as one' }));
      assertJson(await query(url, { headers }), 200, ONE);
      return query(url, { headers });
    },
  },
  {
    name: 'a stale timestamp (305 s old: clear of the 300 s limit even on a slow machine)',
    error: SKEW,
    send: (url) => query(url, { signing: { timestamp: now() - 305 } }),
  },
  {
    name: 'a future timestamp (305 s ahead: clear of the 300 s limit even on a slow machine)',
    error: SKEW,
    send: (url) => query(url, { signing: { timestamp: now() + 305 } }),
  },
  {
    name: 'a tampered body',
    error: INVALID,
    send: (url) => query(url, { signing: { body: JSON.stringify({ sql: 'select 2 as one' }) } }),
  },
  {
    name: 'a tampered path',
    error: INVALID,
    send: (url) =>
      driverRequest(url, 'GET', `${TABLES}/users`, { signing: { target: `${TABLES}/companies` } }),
  },
  {
    name: 'a tampered query',
    error: INVALID,
    send: (url) =>
      driverRequest(url, 'GET', `${TABLES}?connection=b`, {
        signing: { target: `${TABLES}?connection=a` },
      }),
  },
  {
    name: 'a wrong secret',
    error: INVALID,
    send: (url) => query(url, { signing: { secret: 'another-secret-of-32-characters-or-more' } }),
  },
  {
    name: 'another method',
    error: INVALID,
    send: (url) => driverRequest(url, 'GET', TABLES, { signing: { method: 'POST' } }),
  },
  {
    name: 'no signature headers',
    error: MISSING,
    send: (url) => httpRequest(url, 'POST', QUERY, { body: { sql: 'select 1 as one' } }),
  },
  {
    name: 'a nonce shorter than 16 characters',
    error: 'X-Svc-Nonce must be 16 to 128 visible ASCII characters.',
    send: (url) => query(url, { signing: { nonce: 'short-nonce' } }),
  },
];

describe('driver: signed requests', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer(driverEnv(), { anonymous: true })));
  after(() => server.close());

  it('answers a correctly signed POST and GET', async () => {
    assertJson(await driverQuery(server.url, 'select 1 as one'), 200, ONE);
    const tables = await driverRequest(server.url, 'GET', TABLES);
    assertJson(tables, 200);
    assert.ok(tables.body.tables.some((t: { name: string }) => t.name === 'companies'));
  });

  it('signs the target exactly as sent: the query as encoded, and a trailing slash', async () => {
    assertJson(await driverRequest(server.url, 'GET', `${TABLES}?connection=&x=%41+b`), 200);
    assertJson(await driverRequest(server.url, 'GET', `${TABLES}/`), 200);
    // A target decoded before signing is another target.
    assertDriver401(
      await driverRequest(server.url, 'GET', `${TABLES}?x=%41`, {
        signing: { target: `${TABLES}?x=A` },
      }),
      INVALID,
    );
  });

  it('accepts a timestamp 290 s away either way, and a charset on the JSON type', async () => {
    assertJson(
      await driverRequest(server.url, 'GET', TABLES, { signing: { timestamp: now() - 290 } }),
      200,
    );
    assertJson(
      await driverRequest(server.url, 'GET', TABLES, { signing: { timestamp: now() + 290 } }),
      200,
    );
    const body = JSON.stringify({ sql: 'select 1 as one' });
    const headers = {
      ...signedHeaders('POST', QUERY, body),
      'content-type': 'application/json; charset=utf-8',
    };
    assertJson(await httpRequest(server.url, 'POST', QUERY, { raw: body, headers }), 200, ONE);
  });

  for (const refusal of REFUSALS) {
    it(`refuses ${refusal.name} with 401 {error: "${refusal.error}"}`, async () => {
      assertDriver401(await refusal.send(server.url), refusal.error);
    });
  }
});

describe('driver: refusals count toward the per-IP limit', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer(driverEnv(), { anonymous: true })));
  after(() => server.close());

  it('answers 429 with Retry-After: 600 once every kind of refusal, twice each, made 20 failures', async () => {
    assert.equal(REFUSALS.length * 2, 20);
    // Had any kind not counted, fewer than 20 failures would leave the IP unblocked.
    for (const refusal of [...REFUSALS, ...REFUSALS])
      assertDriver401(await refusal.send(server.url), refusal.error);
    assert429(await driverQuery(server.url, 'select 1 as one'));
    assert429(await driverRequest(server.url, 'GET', TABLES));
  });
});
