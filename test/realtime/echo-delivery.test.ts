// SPEC.md 6 end to end with the real clients (DESIGN.md 3.5): pusher-js and laravel-echo, run in
// Node, log in through POST /app/login, authorise `private-notifications.{id}` through
// POST /broadcasting/auth-notifications with the session cookie and CSRF header, and receive
// `SvcNotificationReceived` with every payload field when a notification is sent. Another
// user's channel is refused; with REALTIME_NOTIFICATIONS off nothing is broadcast and the auth
// route does not exist.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NotificationEventPayload } from '../../src/notifications/notification-event.js';
import { assertJson, freshTimestamp } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import {
  echoClient,
  login,
  type Pusher,
  pusherClient,
  RawSocket,
  REALTIME_ENV,
  type Session,
  seedLoginUser,
  sessionRequest,
  waitFor,
} from './realtime-clients.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('real-time notifications with pusher-js and laravel-echo', () => {
  let server: TestServer;
  let alice: Session;
  let bob: Session;
  const clients: Array<{ disconnect(): void }> = [];

  before(async () => {
    server = await startTestServer(REALTIME_ENV);
    const { db } = server.service.database;
    await seedLoginUser(db, 'alice');
    await seedLoginUser(db, 'bob');
    alice = await login(server.url, 'alice');
    bob = await login(server.url, 'bob');
  });
  after(async () => {
    for (const client of clients) client.disconnect();
    await server.close();
  });

  it('delivers SvcNotificationReceived through laravel-echo with every payload field', async () => {
    const echo = echoClient(server.url, alice);
    clients.push(echo);
    const channel = echo.private(`notifications.${alice.userId}`);
    await waitFor<void>('the subscription', (resolve, reject) => {
      channel.subscribed(() => resolve());
      channel.error((error: unknown) => reject(error));
    });
    const received = waitFor<NotificationEventPayload>('the event', (resolve) => {
      channel.listen('.SvcNotificationReceived', (payload: NotificationEventPayload) =>
        resolve(payload),
      );
    });
    const since = new Date();
    const sent = await server.post('/api/notifications', {
      to: alice.userId,
      title: 'Import finished',
      message: 'Customers: 120 rows imported.',
      icon: 'check',
      level: 'success',
      action: { kind: 'navigate', url: '/import-templates/1', label: 'Open' },
    });
    assertJson(sent, 201);
    const payload = await received;
    assert.deepStrictEqual(payload, {
      id: sent.body.data[0].id,
      title: 'Import finished',
      message: 'Customers: 120 rows imported.',
      icon: 'check',
      level: 'success',
      action: { kind: 'navigate', url: '/import-templates/1', label: 'Open' },
      created_at: sent.body.data[0].created_at,
      unread_count: 1,
    });
    freshTimestamp(payload.created_at, since);
  });

  it('recomputes unread_count for the recipient at send time', async () => {
    const pusher = pusherClient(server.url, alice);
    clients.push(pusher);
    const channel = pusher.subscribe(`private-notifications.${alice.userId}`);
    await waitFor<void>('the subscription', (resolve, reject) => {
      channel.bind('pusher:subscription_succeeded', () => resolve());
      channel.bind('pusher:subscription_error', (error: unknown) => reject(error));
    });
    const counts: number[] = [];
    const two = waitFor<void>('two events', (resolve) => {
      channel.bind('SvcNotificationReceived', (payload: NotificationEventPayload) => {
        counts.push(payload.unread_count);
        if (counts.length === 2) resolve();
      });
    });
    // Alice has 1 unread from the previous test; this one makes 2, then reading all and one more makes 1.
    assertJson(
      await server.post('/api/notifications', {
        to: [alice.userId],
        title: 'Second',
        message: 'two',
      }),
      201,
    );
    assertJson(
      await sessionRequest(server.url, alice, 'POST', '/app/notifications/mark-all-read'),
      200,
    );
    assertJson(
      await server.post('/api/notifications', {
        to: alice.userId,
        title: 'Third',
        message: 'three',
      }),
      201,
    );
    await two;
    assert.deepStrictEqual(counts, [2, 1]);
  });

  it('sends one event per recipient, each to its own channel', async () => {
    const forAlice = pusherClient(server.url, alice);
    const forBob = pusherClient(server.url, bob);
    clients.push(forAlice, forBob);
    const receive = (pusher: Pusher, session: Session) => {
      const channel = pusher.subscribe(`private-notifications.${session.userId}`);
      const subscribed = waitFor<void>('the subscription', (resolve) =>
        channel.bind('pusher:subscription_succeeded', () => resolve()),
      );
      const event = waitFor<NotificationEventPayload>('the event', (resolve) =>
        channel.bind('SvcNotificationReceived', resolve),
      );
      return { subscribed, event };
    };
    const a = receive(forAlice, alice);
    const b = receive(forBob, bob);
    await Promise.all([a.subscribed, b.subscribed]);
    const sent = await server.post('/api/notifications', {
      to: [alice.userId, bob.userId],
      title: 'Both',
      message: 'to both',
    });
    assertJson(sent, 201);
    const [toAlice, toBob] = await Promise.all([a.event, b.event]);
    assert.equal(toAlice.id, sent.body.data[0].id);
    assert.equal(toBob.id, sent.body.data[1].id);
    assert.equal(toBob.unread_count, 1);
    assert.match(toBob.created_at, ISO);
  });

  it('refuses another user’s channel: the auth endpoint answers 403 and Echo’s error callback sees it', async () => {
    const echo = echoClient(server.url, bob);
    clients.push(echo);
    const error = await waitFor<{ status: number }>('the subscription error', (resolve) => {
      echo.private(`notifications.${alice.userId}`).error((e: { status: number }) => resolve(e));
    });
    assert.equal(error.status, 403);
  });

  it('refuses a subscription signed for another socket with a channel-scoped subscription_error 401', async () => {
    // Bob's client presents Alice's valid auth for a different socket: the server checks the signature.
    const pusher = pusherClient(server.url, bob);
    clients.push(pusher);
    const forged = await sessionRequest(
      server.url,
      alice,
      'POST',
      '/broadcasting/auth-notifications',
      {
        socket_id: '1.1',
        channel_name: `private-notifications.${alice.userId}`,
      },
    );
    assertJson(forged, 200);
    const rejected = new (pusher.constructor as typeof Pusher)('svc-key', {
      cluster: 'mt1',
      wsHost: '127.0.0.1',
      wsPort: Number(new URL(server.url).port),
      forceTLS: false,
      enabledTransports: ['ws'],
      channelAuthorization: {
        endpoint: 'unused',
        transport: 'ajax',
        customHandler: (_params, callback) => callback(null, { auth: forged.body.auth as string }),
      },
    });
    clients.push(rejected);
    const error = await waitFor<{ type: string; status: number; error: string }>(
      'the subscription error',
      (resolve) => {
        rejected
          .subscribe(`private-notifications.${alice.userId}`)
          .bind('pusher:subscription_error', resolve);
      },
    );
    assert.equal(error.status, 401);
    assert.equal(error.type, 'AuthError');
  });
});

describe('real-time notifications switched off (the default)', () => {
  let server: TestServer;
  let alice: Session;
  before(async () => {
    server = await startTestServer();
    await seedLoginUser(server.service.database.db, 'alice');
    alice = await login(server.url, 'alice');
  });
  after(() => server.close());

  it('has no auth route and no embedded server, and sending still stores', async () => {
    const auth = await sessionRequest(
      server.url,
      alice,
      'POST',
      '/broadcasting/auth-notifications',
      { socket_id: '1.1', channel_name: `private-notifications.${alice.userId}` },
    );
    assertJson(auth, 404, { error: 'Not found' });
    assert.equal(server.service.realtime, null);
    await assert.rejects(
      RawSocket.open(`${server.url.replace('http', 'ws')}/app/svc-key?protocol=7`),
      'no WebSocket upgrade',
    );
    const sent = await server.post('/api/notifications', {
      to: alice.userId,
      title: 'Stored',
      message: 'no push',
    });
    assertJson(sent, 201);
    const list = await sessionRequest(server.url, alice, 'GET', '/app/notifications');
    assert.equal(list.body.meta.unread_count, 1);
  });
});
