// Issue 8, deliverable 5: while the database cannot be reached every route answers 503 JSON
// quickly, and the service recovers by itself when the database comes back. A TCP proxy of the
// test's own stands between svc and the database server; the test cuts and restores it, so the
// machine's database is never stopped.
import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { createTestDatabase, type TestDatabase, testEngine } from '../helpers/engines.js';
import { JSON_TYPE, type Reply } from '../helpers/http.js';
import { openServerConnection, type ServerConnection } from '../helpers/server-connection.js';
import { SessionClient } from '../helpers/session-client.js';
import { proxyDatabase, type TcpProxy } from '../helpers/tcp-proxy.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const UNAVAILABLE = { message: 'The database is unavailable. Try again shortly.' };
/** Refused connections fail at once: far below the connect timeout (2 s by default). */
const REFUSED_BOUND_MS = 1_000;
const CONNECT_TIMEOUT_MS = 500;
/** Fewer connections than concurrent requests: most requests wait for a connection, not for a connect. */
const POOL_SIZE = 2;
/** A server that never answers costs the connect timeout, plus a margin for a loaded machine. */
const STALLED_BOUND_MS = CONNECT_TIMEOUT_MS + 1_000;

const skip =
  testEngine === 'sqlite'
    ? 'needs a database server to cut off: runs on PostgreSQL and MariaDB/MySQL (set TEST_POSTGRES_URL / TEST_MYSQL_URL); SQLite is a file inside the process'
    : false;

const template = (title: string) => ({
  title,
  database_name: 'erp',
  mapping_json: '{"columns":[]}',
  groups: [],
  users: [{ user_id: 1 }],
});

interface Timed {
  readonly route: string;
  readonly reply: Reply;
  readonly ms: number;
}

function assert503(answer: Timed, bound: number): void {
  const { reply, route, ms } = answer;
  assert.equal(
    reply.status,
    503,
    `${route}: status ${reply.status}, body ${reply.text.slice(0, 300)}`,
  );
  assert.equal(reply.headers.get('content-type'), JSON_TYPE, route);
  assert.equal(reply.headers.get('retry-after'), '5', route);
  assert.deepStrictEqual(reply.body, UNAVAILABLE, route);
  assert.ok(ms < bound, `${route}: answered in ${ms} ms, bound ${bound} ms`);
}

function report(t: TestContext, label: string, answers: readonly Timed[]): void {
  const ms = answers.map((a) => a.ms);
  t.diagnostic(
    `${label}: ${answers.length} answers in ${Math.min(...ms)}..${Math.max(...ms)} ms (${answers.map((a) => `${a.route} ${a.ms}`).join(', ')})`,
  );
}

describe('database outage', { skip }, () => {
  const engine = testEngine as 'postgres' | 'mysql';
  let database: TestDatabase;
  let proxy: TcpProxy;
  let server: TestServer;
  let session: SessionClient;
  let admin: ServerConnection;

  /** Every kind of route that reads the database: resources, token lookup, login, sessions, notifications. */
  const routes: Record<string, { ok: number; send: () => Promise<Reply> }> = {
    'GET /api/import-templates (bearer)': {
      ok: 200,
      send: () => server.get('/api/import-templates'),
    },
    'POST /api/import-templates (bearer)': {
      ok: 201,
      send: () => server.post('/api/import-templates', template('bearer')),
    },
    'POST /api/import-templates (session, CSRF)': {
      ok: 201,
      send: () => session.post('/api/import-templates', template('session')),
    },
    'POST /app/login': { ok: 200, send: () => new SessionClient(server.url).login() },
    'GET /app/session': { ok: 200, send: () => session.get('/app/session') },
    'GET /app/notifications': { ok: 200, send: () => session.get('/app/notifications') },
    'POST /api/notifications (bearer)': {
      ok: 201,
      send: () => server.post('/api/notifications', { to: [1], title: 'Hi', message: 'm' }),
    },
  };

  async function timed(route: string, send: () => Promise<Reply>): Promise<Timed> {
    const started = performance.now();
    const reply = await send();
    return { route, reply, ms: Math.round(performance.now() - started) };
  }

  const everyRoute = () =>
    Promise.all(Object.entries(routes).map(([route, { send }]) => timed(route, send)));

  async function assertServing(): Promise<void> {
    for (const [route, { ok, send }] of Object.entries(routes)) {
      const reply = await send();
      assert.equal(
        reply.status,
        ok,
        `${route}: status ${reply.status}, body ${reply.text.slice(0, 300)}`,
      );
    }
  }

  before(async () => {
    database = await createTestDatabase(engine);
    const proxied = await proxyDatabase(database.url as string);
    proxy = proxied.proxy;
    server = await startTestServer({
      DATABASE_URL: proxied.url,
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DB_POOL_SIZE: String(POOL_SIZE),
    });
    session = await new SessionClient(server.url).signIn();
    admin = await openServerConnection(engine, database.url as string);
  });

  after(async () => {
    await proxy?.restore();
    await admin?.close();
    await server?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('answers 503 JSON with Retry-After on every route, well under the connect timeout, while connections are refused', async (t) => {
    await assertServing();
    await proxy.cut();
    // One at a time, then all at once.
    const oneByOne: Timed[] = [];
    for (const [route, { send }] of Object.entries(routes)) oneByOne.push(await timed(route, send));
    const together = await everyRoute();
    for (const answer of [...oneByOne, ...together]) assert503(answer, REFUSED_BOUND_MS);
    report(t, 'refused, one by one', oneByOne);
    report(t, 'refused, together', together);
  });

  it('serves again once the database is back, without a restart', async () => {
    await proxy.restore();
    await assertServing();
  });

  it('answers 503 within the connect timeout when the server accepts connections but never answers, queued requests too', async (t) => {
    proxy.stall();
    // Let the pools see their idle connections end first; a request must meet the stalled server.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const answers = await everyRoute();
    for (const answer of answers) {
      assert503(answer, STALLED_BOUND_MS);
      // It did wait for the connect timeout: the 503 is the pool giving up, not a refusal.
      assert.ok(answer.ms >= CONNECT_TIMEOUT_MS - 50, `${answer.route}: ${answer.ms} ms`);
    }
    report(
      t,
      `stalled (DB_CONNECT_TIMEOUT_MS=${CONNECT_TIMEOUT_MS}, DB_POOL_SIZE=${POOL_SIZE})`,
      answers,
    );
    await proxy.restore();
    await assertServing();
  });

  it('answers 503, never 500 or a hang, to requests whose connection is reset mid-statement', async (t) => {
    // The lock holds the requests inside their statements; the cut then resets their connections.
    await admin.lock('import_templates');
    const inFlight = [
      timed('GET /api/import-templates', () => server.get('/api/import-templates')),
      timed('POST /api/import-templates', () =>
        server.post('/api/import-templates', template('reset mid-statement')),
      ),
      timed('POST /api/import-templates (session)', () =>
        session.post('/api/import-templates', template('reset mid-statement')),
      ),
    ];
    await new Promise((resolve) => setTimeout(resolve, 300));
    await proxy.cut();
    const answers = await Promise.all(inFlight);
    await admin.unlock();
    for (const answer of answers) assert503({ ...answer, ms: 0 }, 1);
    report(t, 'reset mid-statement (ms include the 300 ms wait)', answers);
    await proxy.restore();
    await assertServing();
    const [row] = await admin.query(
      "select count(*) as n from import_templates where title = 'reset mid-statement'",
    );
    assert.equal(Number(row?.n), 0, 'a write whose connection was reset left nothing behind');
  });

  it('answers 503 when the server ends the connections (shutdown, administrator kill), then serves again', async (t) => {
    await admin.lock('import_templates');
    const inFlight = timed('GET /api/import-templates', () => server.get('/api/import-templates'));
    const write = timed('POST /api/import-templates', () =>
      server.post('/api/import-templates', template('terminated')),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ended = await admin.terminateOthers();
    await admin.unlock();
    const answers = await Promise.all([inFlight, write]);
    for (const answer of answers) assert503({ ...answer, ms: 0 }, 1);
    report(t, `${ended} connections ended by the server`, answers);
    // The pool drops the ended connections (idle ones too) and opens new ones. An idle connection
    // whose end the pool has not yet noticed (a loaded machine) can still fail one request with
    // a 503; the pool discards it then, so within a moment every route serves again.
    const deadline = Date.now() + 5_000;
    while ((await server.get('/ready')).status !== 200 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await assertServing();
    const [row] = await admin.query(
      "select count(*) as n from import_templates where title = 'terminated'",
    );
    assert.equal(Number(row?.n), 0);
  });
});
