// DESIGN.md 3.12: DATABASE_URL may point at PgBouncer in transaction mode, which lends a server
// connection per transaction. svc then keeps nothing on a session: no named prepared statement,
// no startup parameter PgBouncer refuses; its statement timeout and time zone still hold on
// whichever server connection a statement gets, and none of it stays there for another client.
// Runs in test/run.mjs's pass through PgBouncer (TEST_POSTGRES_POOLER_URL); the other suites
// of that pass show every behaviour through it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createTestDatabase, type TestDatabase, testPoolerUrl } from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const TIMEOUT_MS = 4321;

/** The URL of `url`'s database on the PostgreSQL server itself (not through the pooler). */
function directUrl(url: string): string {
  const direct = new URL(String(process.env.TEST_POSTGRES_URL));
  direct.pathname = new URL(url).pathname;
  return direct.toString();
}

/** Runs `text` on a plain connection of its own to `url` (no startup parameter of svc's). */
async function plain<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

describe('behind PgBouncer in transaction mode', {
  skip: testPoolerUrl ? false : 'runs in the pass through PgBouncer (TEST_POSTGRES_POOLER_URL)',
}, () => {
  let database: TestDatabase;
  let server: TestServer;

  before(async () => {
    database = await createTestDatabase();
    // A server default that is not svc's: what svc relies on must come from svc on every
    // server connection the pooler opens.
    await plain(
      directUrl(String(database.url)),
      `alter database "${new URL(String(database.url)).pathname.slice(1)}" set timezone = 'Asia/Tokyo'`,
    );
    server = await startTestServer({
      DATABASE_URL: String(database.url),
      DB_POOLER: 'transaction',
      DB_POOL_SIZE: '4',
      DB_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS),
    });
  });
  after(async () => {
    await server?.close();
    await database?.drop();
  });

  it('answers reads and writes at once from many connections: no named statement meets a server connection that lacks it', async () => {
    const writes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => server.post(PATH, templatePayload({ title: `t${i}` }))),
    );
    for (const reply of writes) assertJson(reply, 201);
    const reads = await Promise.all(
      writes.flatMap((w) => [server.get(`${PATH}/${w.body.id}`), server.get(`${PATH}?sort=title`)]),
    );
    for (const reply of reads) assertJson(reply, 200);
    assert.equal(reads[1]?.body.meta.total, 12);
  });

  it('keeps the statement timeout and UTC on every statement, in and outside a transaction', async () => {
    const { db } = server.service.database;
    const settings = sql<{ timeout: string; zone: string }>`
      select current_setting('statement_timeout') as timeout, current_setting('TimeZone') as zone`;
    const outside = await Promise.all(Array.from({ length: 8 }, () => settings.execute(db)));
    for (const { rows } of outside)
      assert.deepEqual(rows, [{ timeout: `${TIMEOUT_MS}ms`, zone: 'UTC' }]);
    const inside = await db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      return (await settings.execute(trx)).rows;
    });
    assert.deepEqual(inside, [{ timeout: `${TIMEOUT_MS}ms`, zone: 'UTC' }]);
  });

  it('leaves no setting on the server connections for the pooler’s other clients', async () => {
    for (let i = 0; i < 6; i += 1) assertJson(await server.get(`${PATH}?sort=title`), 200);
    const rows = await plain<{ timeout: string }>(
      String(database.url),
      `select current_setting('statement_timeout') as timeout`,
    );
    assert.deepEqual(rows, [{ timeout: '0' }]);
  });

  it('detects the pooler without DB_POOLER (it refuses the statement_timeout startup parameter) and runs as with it', async () => {
    const logged: string[] = [];
    const detected = await startTestServer(
      { DATABASE_URL: String(database.url), DB_POOLER: '' },
      {
        logger: {
          level: 'warn',
          stream: { write: (line: string) => void logged.push(JSON.parse(line).msg) },
        },
      },
    );
    try {
      assert.equal(detected.service.database.behindPooler?.(), true);
      assert.ok(
        logged.some((line) => /refused a startup parameter.*DB_POOLER=transaction/.test(line)),
        logged.join('\n'),
      );
      assertJson(await detected.get(`${PATH}?sort=title`), 200);
      assertJson(await detected.post(PATH, templatePayload({ title: 'detected' })), 201);
    } finally {
      await detected.close();
    }
  });
});
