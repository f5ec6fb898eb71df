// The driver is off by default (issue 6): nothing under /_mad/rest-driver/ exists, whatever the
// method, the path or the signature; and on, the service refuses to start without a secret of
// at least 32 characters or on a database the driver cannot open a connection of its own to.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { assertJson } from '../helpers/http.js';
import { DRIVER, DRIVER_SECRET, driverEnv, driverRequest } from '../helpers/rest-driver-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const NOT_FOUND = { error: 'Not found' };
const PATHS = [
  DRIVER,
  `${DRIVER}/`,
  `${DRIVER}/query`,
  `${DRIVER}/tables`,
  `${DRIVER}/tables/companies`,
  `${DRIVER}/tables?connection=x`,
  `${DRIVER}/no/such/route`,
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

describe('driver: disabled by default', () => {
  let server: TestServer;
  // The secret alone does not turn it on.
  before(
    async () =>
      (server = await startTestServer({ REST_DRIVER_SECRET: DRIVER_SECRET }, { anonymous: true })),
  );
  after(() => server.close());

  it('answers the JSON 404 {error: "Not found"} for every path and method, signed or not', async () => {
    for (const path of PATHS) {
      for (const method of METHODS) {
        const body = method === 'GET' || method === 'OPTIONS' ? undefined : { sql: 'select 1' };
        assertJson(await driverRequest(server.url, method, path, { body }), 404, NOT_FOUND);
        assertJson(
          await server.request(method, path, body === undefined ? {} : { body }),
          404,
          NOT_FOUND,
        );
      }
      assert.equal((await server.request('HEAD', path)).status, 404);
    }
  });

  it('stays off with REST_DRIVER_ENABLED=false', () => {
    assert.equal(loadConfig(driverEnv({ REST_DRIVER_ENABLED: 'false' })).restDriver.enabled, false);
  });
});

describe('driver: configuration', () => {
  it('refuses to start with REST_DRIVER_SECRET missing or shorter than 32 characters', async () => {
    const message =
      /REST_DRIVER_ENABLED=true needs REST_DRIVER_SECRET of at least 32 characters \(got 31\)/;
    assert.throws(
      () => loadConfig(driverEnv({ REST_DRIVER_SECRET: 'x'.repeat(31) })),
      (e: unknown) => e instanceof ConfigError && message.test(e.message),
    );
    assert.throws(() => loadConfig({ REST_DRIVER_ENABLED: 'true' }), ConfigError);
    await assert.rejects(startTestServer(driverEnv({ REST_DRIVER_SECRET: 'short' })), ConfigError);
    assert.equal(
      loadConfig(driverEnv({ REST_DRIVER_SECRET: 'x'.repeat(32) })).restDriver.secret.length,
      32,
    );
  });

  it('defaults to read-only, 10000 rows, 16 MiB answers and a 30 s statement timeout', () => {
    assert.deepStrictEqual(loadConfig(driverEnv()).restDriver, {
      enabled: true,
      secret: DRIVER_SECRET,
      allowWrite: false,
      maxRows: 10_000,
      timeoutMs: 30_000,
      maxAnswerMb: 16,
    });
    assert.throws(
      () => loadConfig(driverEnv({ REST_DRIVER_MAX_ROWS: '0' })),
      /REST_DRIVER_MAX_ROWS must be an integer/,
    );
    assert.throws(
      () => loadConfig(driverEnv({ REST_DRIVER_ALLOW_WRITE: 'maybe' })),
      /REST_DRIVER_ALLOW_WRITE must be true or false/,
    );
  });

  it('refuses to start on an in-memory SQLite database, which no second connection can see', async () => {
    await assert.rejects(
      startTestServer(driverEnv({ DATABASE_URL: 'sqlite::memory:' })),
      (e: unknown) =>
        e instanceof ConfigError &&
        /the driver cannot use DATABASE_URL: an in-memory SQLite database/.test(e.message),
    );
  });
});
