// The Pusher HTTP events API of the embedded server (DESIGN.md 3.5): the `pusher` server SDK
// publishes through POST /apps/{id}/events and /batch_events, and subscribers receive; requests
// that are not signed by the app's credentials, stale, or tampered with are refused with 401,
// malformed events with 400, oversized data with 413; with real time off the API is absent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PusherServer from 'pusher';
import { signedQuery } from '../../src/realtime/pusher-signatures.js';
import { assertJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { dataOf, RawSocket, REALTIME_ENV } from './realtime-clients.js';

const credentials = { appId: 'svc', key: 'svc-key', secret: REALTIME_ENV.PUSHER_APP_SECRET };

function sdk(
  server: TestServer,
  overrides: Partial<{ appId: string; key: string; secret: string }> = {},
): PusherServer {
  return new PusherServer({
    ...credentials,
    ...overrides,
    host: '127.0.0.1',
    port: new URL(server.url).port,
    useTLS: false,
  });
}

async function subscriber(
  server: TestServer,
  channel: string,
): Promise<{ socket: RawSocket; socketId: string }> {
  const socket = await RawSocket.open(`${server.url.replace('http', 'ws')}/app/svc-key?protocol=7`);
  const socketId = String(dataOf(await socket.next('pusher:connection_established')).socket_id);
  socket.send({ event: 'pusher:subscribe', data: { channel } });
  await socket.next('pusher_internal:subscription_succeeded');
  return { socket, socketId };
}

/** A raw signed POST, for the cases the SDK would not send. */
function post(
  server: TestServer,
  path: string,
  body: string,
  query = signedQuery(credentials, 'POST', path, body, Math.floor(Date.now() / 1000)),
) {
  return server.request('POST', `${path}?${query}`, {
    raw: body,
    headers: { 'content-type': 'application/json' },
  });
}

describe('Pusher HTTP events API of the embedded server', () => {
  let server: TestServer;
  const sockets: RawSocket[] = [];
  before(async () => {
    server = await startTestServer(REALTIME_ENV, { anonymous: true });
  });
  after(async () => {
    for (const socket of sockets) socket.close();
    await server.close();
  });

  it('accepts trigger from the pusher SDK and delivers the event to the channel’s subscribers', async () => {
    const a = await subscriber(server, 'orders');
    const b = await subscriber(server, 'orders');
    sockets.push(a.socket, b.socket);
    const response = await sdk(server).trigger('orders', 'order-created', { id: 7 });
    assert.equal(response.status, 200);
    assert.deepStrictEqual(await response.json(), {});
    for (const { socket } of [a, b])
      assert.deepStrictEqual(await socket.next('order-created'), {
        event: 'order-created',
        channel: 'orders',
        data: '{"id":7}',
      });
  });

  it('publishes to several channels at once and leaves out the socket_id given', async () => {
    const a = await subscriber(server, 'one');
    const b = await subscriber(server, 'two');
    const c = await subscriber(server, 'two');
    sockets.push(a.socket, b.socket, c.socket);
    await sdk(server).trigger(['one', 'two'], 'tick', 'plain text', { socket_id: c.socketId });
    assert.deepStrictEqual(await a.socket.next('tick'), {
      event: 'tick',
      channel: 'one',
      data: 'plain text',
    });
    assert.deepStrictEqual(await b.socket.next('tick'), {
      event: 'tick',
      channel: 'two',
      data: 'plain text',
    });
    c.socket.send({ event: 'pusher:ping', data: {} });
    await c.socket.next('pusher:pong');
    assert.deepStrictEqual(c.socket.pending(), [], 'the excluded socket got nothing');
  });

  it('accepts triggerBatch', async () => {
    const a = await subscriber(server, 'batch-a');
    const b = await subscriber(server, 'batch-b');
    sockets.push(a.socket, b.socket);
    const response = await sdk(server).triggerBatch([
      { channel: 'batch-a', name: 'first', data: { n: 1 } },
      { channel: 'batch-b', name: 'second', data: { n: 2 } },
    ]);
    assert.equal(response.status, 200);
    assert.equal(dataOf(await a.socket.next('first')).n, 1);
    assert.equal(dataOf(await b.socket.next('second')).n, 2);
  });

  for (const [label, overrides, status, error] of [
    ['another secret', { secret: 'not the secret' }, 401, 'Invalid auth_signature.'],
    ['another key', { key: 'other-key' }, 401, 'Unknown auth_key.'],
    ['another app id', { appId: 'other' }, 404, 'Unknown app id "other".'],
  ] as const) {
    it(`refuses an SDK signed with ${label} (${status})`, async () => {
      await assert.rejects(
        sdk(server, overrides).trigger('orders', 'x', {}),
        (failure: { status: number; body: string }) => {
          assert.equal(failure.status, status);
          assert.deepStrictEqual(JSON.parse(failure.body), { error });
          return true;
        },
      );
    });
  }

  it('refuses a stale auth_timestamp, a tampered body and a missing signature with 401', async () => {
    const path = '/apps/svc/events';
    const body = JSON.stringify({ name: 'e', channel: 'c', data: '{}' });
    const stale = signedQuery(credentials, 'POST', path, body, Math.floor(Date.now() / 1000) - 601);
    assertJson(await post(server, path, body, stale), 401, {
      error: 'The auth_timestamp is more than 600 seconds away from the server time.',
    });
    const signed = signedQuery(credentials, 'POST', path, body, Math.floor(Date.now() / 1000));
    assertJson(await post(server, path, body.replace('"e"', '"f"'), signed), 401, {
      error: 'The body_md5 does not match the body.',
    });
    assertJson(await post(server, path, body, 'auth_key=svc-key'), 401, {
      error: 'Missing auth_key, auth_timestamp or auth_signature.',
    });
  });

  for (const [label, event, status, error] of [
    [
      'no channel',
      { name: 'e', data: '{}' },
      400,
      'The event needs "channels" (1 to 100 names) or "channel".',
    ],
    [
      'an invalid channel name',
      { name: 'e', channels: ['bad name'], data: '{}' },
      400,
      'The event: invalid channel name "bad name".',
    ],
    [
      '101 channels',
      { name: 'e', channels: Array.from({ length: 101 }, (_, i) => `c${i}`), data: '{}' },
      400,
      'The event needs "channels" (1 to 100 names) or "channel".',
    ],
    [
      'no name',
      { channel: 'c', data: '{}' },
      400,
      'The event needs "name", a string of 1 to 200 characters.',
    ],
    [
      'data that is not a string',
      { name: 'e', channel: 'c', data: { a: 1 } },
      400,
      'The event needs "data", a string (JSON-encode objects).',
    ],
    [
      'a malformed socket_id',
      { name: 'e', channel: 'c', data: '{}', socket_id: 'abc' },
      400,
      'The event: socket_id must look like 1234.5678.',
    ],
    [
      'data above 10240 bytes',
      { name: 'e', channel: 'c', data: 'x'.repeat(10_241) },
      413,
      'The event data must not be larger than 10240 bytes.',
    ],
  ] as const) {
    it(`refuses an event with ${label} (${status})`, async () => {
      assertJson(await post(server, '/apps/svc/events', JSON.stringify(event)), status, { error });
    });
  }

  it('refuses a signed body that is not JSON with 400, and a batch of more than 10 events', async () => {
    assertJson(await post(server, '/apps/svc/events', 'not json'), 400, {
      error: 'The body is not valid JSON.',
    });
    const batch = Array.from({ length: 11 }, () => ({ name: 'e', channel: 'c', data: '{}' }));
    assertJson(await post(server, '/apps/svc/batch_events', JSON.stringify({ batch })), 400, {
      error: '"batch" must be an array of 1 to 10 events.',
    });
  });

  it('delivers no event of a batch with one invalid event', async () => {
    const { socket } = await subscriber(server, 'all-or-nothing');
    sockets.push(socket);
    const batch = [
      { name: 'ok', channel: 'all-or-nothing', data: '{}' },
      { name: 'bad', channel: 'bad name', data: '{}' },
    ];
    assertJson(await post(server, '/apps/svc/batch_events', JSON.stringify({ batch })), 400, {
      error: 'Event 1: invalid channel name "bad name".',
    });
    socket.send({ event: 'pusher:ping', data: {} });
    await socket.next('pusher:pong');
    assert.deepStrictEqual(socket.pending(), []);
  });
});

describe('Pusher HTTP events API with real time off', () => {
  it('does not exist', async () => {
    const server = await startTestServer({}, { anonymous: true });
    try {
      const body = JSON.stringify({ name: 'e', channel: 'c', data: '{}' });
      assertJson(await post(server, '/apps/svc/events', body), 404, { error: 'Not found' });
    } finally {
      await server.close();
    }
  });
});
