// POST /broadcasting/auth-notifications (SPEC.md 4.6, 6; DESIGN.md 3.5) and GET /app/realtime
// (DESIGN.md 3.6): session-authenticated, CSRF on the POST, form-urlencoded (pusher-js) and
// JSON bodies, socket_id checked, the caller's own channel signed and any other refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { channelAuth } from '../../src/realtime/pusher-signatures.js';
import { assertJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import {
  login,
  REALTIME_ENV,
  type Session,
  seedLoginUser,
  sessionRequest,
} from './realtime-clients.js';

const ENDPOINT = '/broadcasting/auth-notifications';
const credentials = { key: 'svc-key', secret: REALTIME_ENV.PUSHER_APP_SECRET };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('POST /broadcasting/auth-notifications', () => {
  let server: TestServer;
  let alice: Session;
  let bob: Session;
  let own: string;

  before(async () => {
    server = await startTestServer(REALTIME_ENV, { anonymous: true });
    await seedLoginUser(server.service.database.db, 'alice');
    await seedLoginUser(server.service.database.db, 'bob');
    alice = await login(server.url, 'alice');
    bob = await login(server.url, 'bob');
    own = `private-notifications.${alice.userId}`;
  });
  after(() => server.close());

  it('signs the caller’s own channel for a form-urlencoded request, as pusher-js sends it', async () => {
    const body = new URLSearchParams({ socket_id: '123.456', channel_name: own }).toString();
    const reply = await sessionRequest(server.url, alice, 'POST', ENDPOINT, body, FORM);
    assertJson(reply, 200, { auth: channelAuth(credentials, '123.456', own) });
  });

  it('signs the caller’s own channel for a JSON request', async () => {
    assertJson(
      await sessionRequest(server.url, alice, 'POST', ENDPOINT, {
        socket_id: '1.2',
        channel_name: own,
      }),
      200,
      { auth: channelAuth(credentials, '1.2', own) },
    );
  });

  for (const channel of [
    'private-notifications.1',
    'private-notifications.999',
    'private-orders',
    'notifications.1',
    `private-notifications.${'0'}1`,
  ]) {
    it(`answers 403 for ${channel}`, async () => {
      assertJson(
        await sessionRequest(server.url, alice, 'POST', ENDPOINT, {
          socket_id: '1.2',
          channel_name: channel,
        }),
        403,
        { message: 'This action is unauthorized.' },
      );
    });
  }

  it('answers 403 to Bob for Alice’s channel', async () => {
    assertJson(
      await sessionRequest(server.url, bob, 'POST', ENDPOINT, {
        socket_id: '1.2',
        channel_name: own,
      }),
      403,
      { message: 'This action is unauthorized.' },
    );
  });

  for (const socketId of ['abc', '1.2.3', '12', '1.2 ', '.5', '-1.2']) {
    it(`answers 422 for socket_id ${JSON.stringify(socketId)}`, async () => {
      assertJson(
        await sessionRequest(server.url, alice, 'POST', ENDPOINT, {
          socket_id: socketId,
          channel_name: own,
        }),
        422,
        {
          message: 'The socket id field format is invalid.',
          errors: { socket_id: ['The socket id field format is invalid.'] },
        },
      );
    });
  }

  it('answers 422 when both fields are missing', async () => {
    assertJson(await sessionRequest(server.url, alice, 'POST', ENDPOINT, {}), 422, {
      message: 'The socket id field is required. (and 1 more error)',
      errors: {
        socket_id: ['The socket id field is required.'],
        channel_name: ['The channel name field is required.'],
      },
    });
  });

  it('answers 401 without a session, before any other check', async () => {
    assertJson(
      await sessionRequest(server.url, null, 'POST', ENDPOINT, {
        socket_id: '1.2',
        channel_name: own,
      }),
      401,
      { message: 'Unauthenticated.' },
    );
  });

  it('answers 401 to a bearer token: the route is session-only', async () => {
    const reply = await sessionRequest(
      server.url,
      null,
      'POST',
      ENDPOINT,
      { socket_id: '1.2', channel_name: own },
      { authorization: 'Bearer svc_api_whatever' },
    );
    assertJson(reply, 401, { message: 'Unauthenticated.' });
  });

  it('answers 419 without the CSRF header', async () => {
    const reply = await sessionRequest(
      server.url,
      null,
      'POST',
      ENDPOINT,
      { socket_id: '1.2', channel_name: own },
      { cookie: alice.cookie },
    );
    assertJson(reply, 419, { message: 'CSRF token mismatch.' });
  });

  it('keeps form bodies off the other routes: a form-urlencoded login is a 415', async () => {
    const reply = await sessionRequest(
      server.url,
      null,
      'POST',
      '/app/login',
      'login=alice&password=x',
      FORM,
    );
    assertJson(reply, 415);
  });
});

describe('GET /app/realtime', () => {
  let on: TestServer;
  let off: TestServer;
  let external: TestServer;
  before(async () => {
    [on, off, external] = await Promise.all([
      startTestServer(REALTIME_ENV, { anonymous: true }),
      startTestServer({}, { anonymous: true }),
      startTestServer(
        {
          ...REALTIME_ENV,
          PUSHER_HOST: 'push.example.test',
          PUSHER_PORT: '6001',
          PUSHER_SCHEME: 'https',
        },
        { anonymous: true },
      ),
    ]);
    for (const server of [on, off, external])
      await seedLoginUser(server.service.database.db, 'alice');
  });
  after(() => Promise.all([on.close(), off.close(), external.close()]));

  it('tells the client to connect to this service when real time is on', async () => {
    const alice = await login(on.url, 'alice');
    assertJson(await sessionRequest(on.url, alice, 'GET', '/app/realtime'), 200, {
      enabled: true,
      key: 'svc-key',
      cluster: 'mt1',
      host: '127.0.0.1',
      port: Number(new URL(on.url).port),
      path: '/app/svc-key',
      force_tls: false,
      auth_endpoint: '/broadcasting/auth-notifications',
      channel: `private-notifications.${alice.userId}`,
      resource_auth_endpoint: '/broadcasting/auth',
    });
  });

  it('points at PUSHER_HOST when one is set', async () => {
    const alice = await login(external.url, 'alice');
    const reply = await sessionRequest(external.url, alice, 'GET', '/app/realtime');
    assertJson(reply, 200);
    assert.equal(reply.body.host, 'push.example.test');
    assert.equal(reply.body.port, 6001);
    assert.equal(reply.body.force_tls, true);
  });

  it('says enabled: false when real time is off (clients poll)', async () => {
    const alice = await login(off.url, 'alice');
    assertJson(await sessionRequest(off.url, alice, 'GET', '/app/realtime'), 200, {
      enabled: false,
      key: null,
      cluster: null,
      host: null,
      port: null,
      path: null,
      force_tls: false,
      auth_endpoint: null,
      channel: null,
      resource_auth_endpoint: null,
    });
  });

  it('answers 401 without a session', async () => {
    assertJson(await sessionRequest(on.url, null, 'GET', '/app/realtime'), 401, {
      message: 'Unauthenticated.',
    });
  });
});
