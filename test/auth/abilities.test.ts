// SPEC.md 5.1.4-5 and 7: `svc.api:<a>,<b>` requires ALL listed abilities; a valid token lacking
// one is refused 403 `{error: "Missing ability: <name>"}` (DESIGN.md 3.5); with no parameter any
// valid token passes. The AND rule runs on a fixture app whose routes declare two abilities,
// behind the service's real `svc.api` guard over the test server's database.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { importTemplates } from '../../src/app/resources/import-templates.js';
import { FailureLimiter } from '../../src/auth/failure-limiter.js';
import { apiGuard } from '../../src/auth/guards.js';
import { SessionAuth } from '../../src/auth/session/session-auth.js';
import { databaseSessionStore } from '../../src/auth/session/session-store.js';
import { databaseFailureStore } from '../../src/auth/stores/database-failure-store.js';
import { loadConfig } from '../../src/config/config.js';
import type { Database } from '../../src/database/database.js';
import type { ResourceRoute } from '../../src/engine/routes.js';
import { buildApp } from '../../src/http/build-app.js';
import { MiddlewareRegistry } from '../../src/kernel/middleware.js';
import { assertBearer401, bearer, issue } from '../helpers/bearer.js';
import { assertJson, httpRequest, type Reply } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const FIXTURE_ABILITIES = ['fixture.one', 'fixture.two'];
const EMPTY_LIST = { data: [], meta: { total: 0, per_page: 15, current_page: 1, last_page: 1 } };

/** An app serving `routes` behind the service's `svc.api` guard (as service.ts wires it). */
async function guardedApp(
  database: Database,
  dataDir: string,
  routes: ResourceRoute[],
): Promise<FastifyInstance> {
  const dataFor = () => database;
  const bearerOptions = {
    system: database,
    dataFor,
    limiter: new FailureLimiter(databaseFailureStore(database)),
    tenantIsolation: false,
    clock: Date.now,
  };
  const sessions = new SessionAuth({
    store: databaseSessionStore(database),
    dataFor,
    idleMinutes: 120,
    tenantIsolation: false,
    clock: Date.now,
  });
  const middleware = new MiddlewareRegistry().define('svc.api', apiGuard(bearerOptions, sessions));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  return buildApp({
    config,
    database,
    resources: routes,
    middleware,
    cookieSecret: 'fixture-cookie-secret-of-enough-length',
    logger: false,
  });
}

function assertMissing(reply: Reply, ability: string): void {
  assertJson(reply, 403, { error: `Missing ability: ${ability}` });
  assert.equal(reply.headers.get('www-authenticate'), null);
}

describe('abilities on a fixture route (AND of the listed abilities)', () => {
  let server: TestServer;
  let app: FastifyInstance;
  let url: string;
  const get = (target: string, token?: string) =>
    httpRequest(url, 'GET', target, token ? { headers: bearer(token) } : {});
  const tokenWith = async (abilities: string[]) =>
    (await issue(server, { abilities, grantable: FIXTURE_ABILITIES })).token;

  before(async () => {
    server = await startTestServer({}, { anonymous: true });
    const routes: ResourceRoute[] = [
      {
        path: '/api/both',
        resource: importTemplates,
        only: ['list'],
        middleware: { read: ['svc.api:fixture.one,fixture.two'] },
      },
      {
        path: '/api/any',
        resource: importTemplates,
        only: ['list'],
        middleware: { read: ['svc.api'] },
      },
    ];
    app = await guardedApp(server.service.database, server.dataDir, routes);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  after(async () => {
    await app.close();
    await server.close();
  });

  it('passes a token holding every ability the route lists', async () => {
    assertJson(
      await get('/api/both', await tokenWith(['fixture.one', 'fixture.two'])),
      200,
      EMPTY_LIST,
    );
  });

  it('returns 403 naming the first missing ability when the token holds only some of them', async () => {
    assertMissing(await get('/api/both', await tokenWith(['fixture.one'])), 'fixture.two');
    assertMissing(await get('/api/both', await tokenWith(['fixture.two'])), 'fixture.one');
  });

  it('returns 403 when the token holds none of the listed abilities', async () => {
    assertMissing(await get('/api/both', await tokenWith([])), 'fixture.one');
  });

  it('passes any valid token, even one without abilities, when the middleware has no parameter', async () => {
    assertJson(await get('/api/any', await tokenWith([])), 200, EMPTY_LIST);
  });

  it('still requires a valid token when the middleware has no parameter', async () => {
    assertBearer401(await get('/api/any'), 'Unauthenticated.');
  });

  it('refuses at boot a route that declares a malformed ability name', async () => {
    const routes: ResourceRoute[] = [
      {
        path: '/api/bad',
        resource: importTemplates,
        only: ['list'],
        middleware: { read: ['svc.api:Fixture.Read'] },
      },
    ];
    await assert.rejects(
      guardedApp(server.service.database, server.dataDir, routes),
      /Invalid ability name "Fixture\.Read"/,
    );
  });
});

describe('abilities on the service’s routes', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({}, { anonymous: true });
  });
  after(() => server.close());

  it('returns 403 Missing ability on every write for a token holding only the read ability', async () => {
    const { token } = await issue(server, { abilities: ['import-templates.read'] });
    const headers = bearer(token);
    assertJson(await server.get('/api/import-templates', { headers }), 200, EMPTY_LIST);
    assertMissing(
      await server.post('/api/import-templates', { title: 'x' }, { headers }),
      'import-templates.write',
    );
    assertMissing(
      await server.put('/api/import-templates/1', { title: 'x' }, { headers }),
      'import-templates.write',
    );
    assertMissing(
      await server.patch('/api/import-templates/1', { title: 'x' }, { headers }),
      'import-templates.write',
    );
    assertMissing(
      await server.delete('/api/import-templates/1', { headers }),
      'import-templates.write',
    );
  });

  it('returns 403 Missing ability on reads for a token holding only the write ability', async () => {
    const { token } = await issue(server, { abilities: ['import-templates.write'] });
    assertMissing(
      await server.get('/api/import-templates', { headers: bearer(token) }),
      'import-templates.read',
    );
    assertMissing(
      await server.get('/api/import-templates/1', { headers: bearer(token) }),
      'import-templates.read',
    );
  });

  it('does not let one resource’s ability open another resource', async () => {
    const { token } = await issue(server, {
      abilities: ['import-templates.read', 'import-templates.write'],
    });
    assertMissing(
      await server.get('/api/import-template-logs', { headers: bearer(token) }),
      'import-template-logs.read',
    );
    assertMissing(await server.get('/api/users', { headers: bearer(token) }), 'users.read');
  });

  it('answers the missing ability before the resource’s own checks (no 404 for an unknown id)', async () => {
    const { token } = await issue(server, { abilities: [] });
    assertMissing(
      await server.get('/api/import-templates/999', { headers: bearer(token) }),
      'import-templates.read',
    );
  });
});
