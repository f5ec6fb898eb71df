// Two instances of svc on two ports over ONE database and ONE Redis (issue 8, deliverable 3;
// docs/several-instances.md "Several instances"): what one instance does is seen by the other. A session made on A
// works on B, CSRF included; failed authentications on A count toward the per-IP limit on B; a
// notification sent through A (the send API, or `svc notify` through A's Pusher HTTP events API)
// reaches a pusher-js client connected to B, and every client gets it once; a driver nonce used
// on A is refused on B. Each test starts its own pair on a fresh REDIS_PREFIX.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import type { NotificationEventPayload } from '../../src/notifications/notification-event.js';
import { assert429, assertBearer401, bearer } from '../helpers/bearer.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { RedisProbe, redisEnv, redisSuite } from '../helpers/redis.js';
import {
  assertDriver401,
  DRIVER,
  driverEnv,
  driverRequest,
} from '../helpers/rest-driver-client.js';
import { templatePayload } from '../helpers/seed.js';
import { SessionClient, signedIn } from '../helpers/session-client.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/test-server.js';
import {
  login,
  type Pusher,
  pusherClient,
  REALTIME_ENV,
  type Session,
  seedLoginUser,
  waitFor,
} from '../realtime/realtime-clients.js';
import { follow, resourceClient, until } from '../realtime/resource-clients.js';

// The one database both instances use: a PostgreSQL (or MariaDB) database in those engines'
// passes of test/run.mjs, one SQLite file in the SQLite pass.
const SHARED_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-two-instances-'));
const sharedDatabase = await createTestDatabase();
const DATABASE_URL = sharedDatabase.url ?? `sqlite:${path.join(SHARED_DIR, 'svc.sqlite')}`;

// What every instance of one deployment shares (DESIGN.md 3.6): the secrets, set, not generated.
const DEPLOYMENT = {
  DATABASE_URL,
  APP_SECRET: 'two-instances-app-secret',
  ...REALTIME_ENV,
  ...driverEnv(),
};

const LIST = '/api/import-templates';
let logins = 0;

/** The same browser session (cookies and CSRF token) sent to another instance. */
function sameBrowserOn(client: SessionClient, url: string): SessionClient {
  const other = new SessionClient(url);
  for (const [name, value] of client.cookies) other.cookies.set(name, value);
  other.csrfToken = client.csrfToken;
  return other;
}

/** Subscribes a pusher-js client to a user's channel; collects the notification events it gets. */
async function listen(pusher: Pusher, userId: number): Promise<NotificationEventPayload[]> {
  const received: NotificationEventPayload[] = [];
  const channel = pusher.subscribe(`private-notifications.${userId}`);
  channel.bind('SvcNotificationReceived', (payload: NotificationEventPayload) =>
    received.push(payload),
  );
  await waitFor<void>('the subscription', (resolve, reject) => {
    channel.bind('pusher:subscription_succeeded', () => resolve());
    channel.bind('pusher:subscription_error', reject);
  });
  return received;
}

/** Waits until every list holds an event, then a while longer for any duplicate to arrive. */
async function settle(lists: ReadonlyArray<readonly unknown[]>, quietMs = 400): Promise<void> {
  const deadline = Date.now() + 5000;
  while (lists.some((list) => list.length === 0)) {
    assert.ok(Date.now() < deadline, 'an event did not arrive within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await new Promise((resolve) => setTimeout(resolve, quietMs));
}

describe('two instances sharing one database and one Redis', redisSuite, () => {
  let a: TestServer;
  let b: TestServer;
  let probe: RedisProbe;
  const clients: Pusher[] = [];

  beforeEach(async () => {
    const env = { ...DEPLOYMENT, ...redisEnv() };
    probe = new RedisProbe(env.REDIS_PREFIX);
    // One after the other: the second finds the schema migrated and the first admin made.
    a = await startTestServer(env);
    b = await startTestServer(env);
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await Promise.all([a.close(), b.close()]);
    await probe.clear();
  });
  after(async () => {
    await sharedDatabase.drop();
    fs.rmSync(SHARED_DIR, { recursive: true, force: true });
  });

  /** A user of unit Main who can log in, new for each test (the database outlives the pairs). */
  async function newUser(): Promise<string> {
    const name = `user${++logins}`;
    await seedLoginUser(a.service.database.db, name);
    return name;
  }

  it('accepts on B a session made by logging in on A, with its CSRF token, and a logout on B ends it on A', async () => {
    const onA = await signedIn(a.url);
    const onB = sameBrowserOn(onA, b.url);
    const state = await onB.get('/app/session');
    assertJson(state, 200);
    assert.equal(state.body.user.login, 'admin');
    assert.deepStrictEqual(state.body.unit, { id: 1, name: 'Main' });
    assertJson(await onB.post(LIST, templatePayload({ title: 'Written on B' })), 201);
    assertJson(await onB.post(LIST, templatePayload(), { csrf: false }), 419, {
      message: 'CSRF token mismatch.',
    });
    assertJson(await onB.post('/app/logout'), 200, { message: 'Logged out.' });
    assertJson(await onA.get('/app/session'), 401, { message: 'Unauthenticated.' });
  });

  it('counts failed authentications on A toward the limit on B: after 20 on A the next request on B is a 429', async () => {
    for (let i = 0; i < 19; i++)
      assertBearer401(await a.get(LIST, { headers: bearer('svc_api_short') }), 'Invalid token.');
    assertJson(await b.get(LIST), 200);
    assertBearer401(await a.get(LIST, { headers: bearer('svc_api_short') }), 'Invalid token.');
    assert429(await b.get(LIST));
    assert429(await b.post('/app/login', { login: 'admin', password: ADMIN_PASSWORD }));
    assert429(await a.get(LIST));
  });

  it('delivers a notification sent through A to a pusher-js client connected to B, and once to each client', async () => {
    const name = await newUser();
    const session: Session = await login(b.url, name);
    const onB = pusherClient(b.url, session);
    const alsoOnB = pusherClient(b.url, session);
    const onA = pusherClient(a.url, session);
    clients.push(onB, alsoOnB, onA);
    const lists = await Promise.all([
      listen(onB, session.userId),
      listen(alsoOnB, session.userId),
      listen(onA, session.userId),
    ]);
    const sent = await a.post('/api/notifications', {
      to: session.userId,
      title: 'From A',
      message: 'to every instance',
    });
    assertJson(sent, 201);
    await settle(lists);
    for (const received of lists) {
      assert.deepStrictEqual(
        received.map((event) => [event.id, event.title, event.unread_count]),
        [[sent.body.data[0].id, 'From A', 1]],
      );
    }
  });

  it('delivers `svc notify` published to A’s Pusher HTTP events API to a pusher-js client connected to B, once', async () => {
    const name = await newUser();
    const session = await login(b.url, name);
    const onB = pusherClient(b.url, session);
    const onA = pusherClient(a.url, session);
    clients.push(onB, onA);
    const lists = await Promise.all([listen(onB, session.userId), listen(onA, session.userId)]);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ...DEPLOYMENT,
      ...redisEnv(probe.prefix),
      ADMIN_PASSWORD,
      LOG_LEVEL: 'silent',
      DATA_DIR: a.dataDir,
      HOST: '127.0.0.1',
      PORT: new URL(a.url).port,
    };
    const run = await runCli(env, ['notify', name, '--title=From the CLI', '--message=through A']);
    assert.equal(run.code, 0, run.stderr);
    const [record] = JSON.parse(run.stdout) as Array<{ id: number }>;
    await settle(lists);
    for (const received of lists)
      assert.deepStrictEqual(
        received.map((event) => [event.id, event.title]),
        [[record?.id, 'From the CLI']],
      );
  });

  it('delivers a resource change committed on A to resource-channel subscribers on A and B, once each, in seq order', async () => {
    const session = await login(b.url, 'admin', ADMIN_PASSWORD);
    const onB = resourceClient(b.url, session);
    const onA = resourceClient(a.url, session);
    clients.push(onB, onA);
    const lists = await Promise.all([
      follow(onB, 'import-templates'),
      follow(onA, 'import-templates'),
    ]);
    const first = await a.post(LIST, templatePayload({ title: 'Live on A' }));
    assertJson(first, 201);
    const second = await a.patch(`${LIST}/${first.body.id}`, { title: 'Changed on A' });
    assertJson(second, 200);
    await until('both changes on both instances', () => lists.every((list) => list.length >= 2));
    // Any duplicate (a Redis hint and a catch-up read of the same change) would arrive meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    for (const received of lists)
      assert.deepStrictEqual(
        received.map((change) => [change.id, change.action]),
        [
          [first.body.id, 'created'],
          [first.body.id, 'updated'],
        ],
      );
  });

  it('accepts a driver nonce once across instances: the same signed request replayed to B is a 401', async () => {
    const signing = {
      nonce: `two-instances-nonce-${Date.now()}`,
      timestamp: Math.floor(Date.now() / 1000),
    };
    const send = (url: string) =>
      driverRequest(url, 'POST', `${DRIVER}/query`, { body: { sql: 'select 1 as one' }, signing });
    assertJson(await send(a.url), 200);
    assertDriver401(await send(b.url), 'The nonce was already used.');
    assertDriver401(await send(a.url), 'The nonce was already used.');
  });
});
