// DESIGN.md 3.12: with DATABASE_READ_URL, reads outside a transaction go to a read replica; a
// caller who wrote reads its own writes (no read answers older data than its last acknowledged
// write); a replica that lags past DB_REPLICA_MAX_LAG_MS, or fails, is skipped. Against a real
// streaming replica of TEST_POSTGRES_URL's server (.ci/replica.sh), whose replay the tests pause
// with pg_wal_replay_pause() to make it lag. A second server on the same database, without the
// replica, writes as someone else would: what the first one then answers shows which server it
// read.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import {
  createTestDatabase,
  type TestDatabase,
  testEngine,
  testPoolerUrl,
} from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const replicaServer = process.env.TEST_POSTGRES_REPLICA_URL;

/** `url`'s database on the replica. */
function onReplica(url: string): string {
  const replica = new URL(String(replicaServer));
  replica.pathname = new URL(url).pathname;
  return replica.toString();
}

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds (the replica replays within milliseconds when not paused). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    if (await check().catch(() => false)) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting until ${what}`);
}

const replay = (action: 'pause' | 'resume') =>
  query(String(replicaServer), `select pg_wal_replay_${action}()`);

const total = async (server: TestServer): Promise<number> => {
  const reply = await server.get(`${PATH}?sort=title`);
  assertJson(reply, 200);
  return reply.body.meta.total;
};

describe('reads from a read replica (DATABASE_READ_URL)', {
  skip:
    testEngine !== 'postgres' || testPoolerUrl
      ? 'runs in the PostgreSQL pass'
      : !replicaServer
        ? 'TEST_POSTGRES_REPLICA_URL is not set (.ci/replica.sh makes a streaming replica)'
        : false,
}, () => {
  let database: TestDatabase;
  let replicaUrl: string;
  /** Another instance on the same database, without the replica: someone else's writes. */
  let other: TestServer;
  const servers: TestServer[] = [];

  /** A server reading from `readUrl` that may lag `maxLagMs`. */
  async function serverReading(readUrl: string, maxLagMs: number): Promise<TestServer> {
    const server = await startTestServer({
      DATABASE_URL: String(database.url),
      DATABASE_READ_URL: readUrl,
      DB_REPLICA_MAX_LAG_MS: String(maxLagMs),
    });
    servers.push(server);
    return server;
  }

  /** Until the replica holds `count` templates and the server has seen it replay them. */
  async function replayed(count: number): Promise<void> {
    await until('the replica has replayed', async () => {
      const [row] = await query<{ n: string }>(
        replicaUrl,
        'select count(*) as n from import_templates',
      );
      return Number(row?.n) === count;
    });
    // The server reads the positions every 100 ms.
    await sleep(400);
  }

  before(async () => {
    database = await createTestDatabase();
    replicaUrl = onReplica(String(database.url));
    other = await startTestServer({ DATABASE_URL: String(database.url) });
    await until('the replica has the database', async () => {
      await query(replicaUrl, 'select 1 from import_templates limit 1');
      return true;
    });
  });
  after(async () => {
    await replay('resume');
    for (const server of servers) await server.close();
    await other?.close();
    await database?.drop();
  });

  it('a caller reads its own write at once through a replica whose replay is paused', async () => {
    const server = await serverReading(replicaUrl, 60_000);
    assertJson(await other.post(PATH, templatePayload({ title: 'before' })), 201);
    await replayed(1);
    await replay('pause');
    try {
      // Someone else's write is not on the paused replica: this caller, who wrote nothing, is
      // answered from the replica.
      assertJson(await other.post(PATH, templatePayload({ title: 'elsewhere' })), 201);
      assert.equal(await total(server), 1);
      // Its own write it reads at once, and every later read too (the primary answers).
      const created = await server.post(PATH, templatePayload({ title: 'mine' }));
      assertJson(created, 201);
      assertJson(await server.get(`${PATH}/${created.body.id}`), 200);
      assert.equal(await total(server), 3);
      await sleep(500);
      assert.equal(await total(server), 3);
      const updated = await server.patch(`${PATH}/${created.body.id}`, { title: 'mine, renamed' });
      assertJson(updated, 200);
      const shown = await server.get(`${PATH}/${created.body.id}`);
      assertJson(shown, 200);
      assert.equal(shown.body.data?.title ?? shown.body.title, 'mine, renamed');
    } finally {
      await replay('resume');
    }
    // Once the replica has replayed the write, the caller reads from it again.
    await replayed(3);
    await replay('pause');
    try {
      assertJson(await other.post(PATH, templatePayload({ title: 'elsewhere again' })), 201);
      assert.equal(await total(server), 3);
    } finally {
      await replay('resume');
    }
  });

  it('skips a replica that lags past DB_REPLICA_MAX_LAG_MS', async () => {
    await replayed(4);
    const server = await serverReading(replicaUrl, 300);
    await sleep(400);
    await replay('pause');
    try {
      assertJson(await other.post(PATH, templatePayload({ title: 'while it lags' })), 201);
      // Within the allowed lag the replica still answers; past it, the primary does.
      await sleep(800);
      assert.equal(await total(server), 5);
    } finally {
      await replay('resume');
    }
  });

  it('skips a replica that fails (nothing listens there) or is not a standby, and answers from the primary', async () => {
    const closed = new URL(replicaUrl);
    closed.port = '1';
    const down = await serverReading(closed.toString(), 60_000);
    const notStandby = await serverReading(String(database.url), 60_000);
    await sleep(300);
    for (const server of [down, notStandby]) {
      const created = await server.post(PATH, templatePayload({ title: 'written' }));
      assertJson(created, 201);
      assertJson(await server.get(`${PATH}/${created.body.id}`), 200);
      assert.ok((await total(server)) >= 6);
    }
  });
});
