// GET /health (the process is up) and GET /ready (the database answers, every migration has run):
// JSON, no credentials, outside the API's authentication and failure counting (docs/production.md "Running
// in production").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const READY = { status: 'ok', checks: { database: 'ok', migrations: 'ok' } };

describe('health and readiness probes', () => {
  let server: TestServer;
  let token = '';
  before(async () => {
    server = await startTestServer();
    token = server.defaultHeaders.authorization ?? '';
    server.defaultHeaders = {};
  });
  after(() => server.close());

  it('GET /health answers 200 {"status":"ok"} without credentials and without a database statement', async () => {
    const before = server.statements();
    const reply = await server.get('/health');
    assertJson(reply, 200, { status: 'ok' });
    assert.equal(reply.headers.get('cache-control'), 'no-store');
    assert.equal(server.statements(), before);
  });

  it('HEAD /health answers 200 with no body', async () => {
    const reply = await server.request('HEAD', '/health');
    assert.equal(reply.status, 200);
    assert.equal(reply.text, '');
  });

  it('GET /ready answers 200 with every check ok when the database answers and every migration has run', async () => {
    const reply = await server.get('/ready');
    assertJson(reply, 200, READY);
    assert.equal(reply.headers.get('cache-control'), 'no-store');
  });

  it('GET /ready runs one statement for the database and one per migration set', async () => {
    const before = server.statements();
    assertJson(await server.get('/ready'), 200, READY);
    assert.equal(server.statements() - before, 1 + 2);
  });

  it('GET /ready answers 503 naming the migrations when a known migration has not run, and 200 again once it has', async () => {
    const { db } = server.service.database;
    const row = await db
      .selectFrom('svc_migrations_data')
      .selectAll()
      .where('name', '=', '0002-covering-indexes')
      .executeTakeFirstOrThrow();
    await db
      .deleteFrom('svc_migrations_data')
      .where('name', '=', '0002-covering-indexes')
      .execute();
    try {
      assertJson(await server.get('/ready'), 503, {
        status: 'unavailable',
        checks: { database: 'ok', migrations: 'pending' },
      });
      assertJson(await server.get('/health'), 200, { status: 'ok' });
    } finally {
      await db.insertInto('svc_migrations_data').values(row).execute();
    }
    assertJson(await server.get('/ready'), 200, READY);
  });

  it('GET /health and GET /ready ignore credentials: a malformed bearer token neither fails them nor counts toward the per-IP failure limit', async () => {
    // 20 counted failures would block this IP (429) on the API.
    for (let i = 0; i < 25; i++) {
      const headers = { authorization: 'Bearer not-a-token' };
      assertJson(await server.get(i % 2 === 0 ? '/health' : '/ready', { headers }), 200);
    }
    assertJson(await server.get('/api/groups', { headers: { authorization: token } }), 200);
  });

  it('a route next to the probes keeps the JSON 404: GET /healthz and POST /health', async () => {
    assertJson(await server.get('/healthz'), 404, { error: 'Not found' });
    assertJson(await server.post('/health', {}), 404, { error: 'Not found' });
  });
});

describe('readiness without a database', () => {
  it('GET /ready answers 503 with the database unavailable once it is closed, while GET /health still answers 200', async () => {
    const server = await startTestServer({}, { anonymous: true });
    try {
      await server.service.database.close();
      assertJson(await server.get('/ready'), 503, {
        status: 'unavailable',
        checks: { database: 'unavailable', migrations: 'unknown' },
      });
      assertJson(await server.get('/health'), 200, { status: 'ok' });
    } finally {
      await server.close();
    }
  });
});
