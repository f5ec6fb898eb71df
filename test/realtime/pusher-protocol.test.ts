// The embedded Pusher-protocol server (version 7) frame by frame, over a raw WebSocket on the
// service's own port: the handshake, ping and pong, subscribe and unsubscribe, the private
// channel signature, the protocol error codes, the message size limit, idle connections and a
// clean shutdown (STYLE.md example 14: errors reported inside the protocol).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { channelAuth } from '../../src/realtime/pusher-signatures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { dataOf, RawSocket, REALTIME_ENV } from './realtime-clients.js';

const SECRET = REALTIME_ENV.PUSHER_APP_SECRET;
const credentials = { key: 'svc-key', secret: SECRET };

function wsUrl(
  server: TestServer,
  path = '/app/svc-key?protocol=7&client=js&version=8.6.0',
): string {
  return server.url.replace('http://', 'ws://') + path;
}

/** Connects and takes the handshake; returns the socket and its id. */
async function connect(server: TestServer): Promise<{ socket: RawSocket; socketId: string }> {
  const socket = await RawSocket.open(wsUrl(server));
  const established = await socket.next('pusher:connection_established');
  return { socket, socketId: String(dataOf(established).socket_id) };
}

/** Publishes through the service (the embedded broadcaster) to one channel. */
function publish(server: TestServer, channel: string, event: string, data: unknown): number {
  const realtime = server.service.realtime;
  assert.ok(realtime);
  return realtime.broadcast(channel, event, JSON.stringify(data));
}

describe('embedded Pusher server: protocol', () => {
  let server: TestServer;
  const sockets: RawSocket[] = [];
  const open = async () => {
    const connection = await connect(server);
    sockets.push(connection.socket);
    return connection;
  };

  before(async () => {
    server = await startTestServer(REALTIME_ENV);
  });
  after(async () => {
    for (const socket of sockets) socket.close();
    await server.close();
  });

  it('opens with pusher:connection_established carrying socket_id and activity_timeout', async () => {
    const socket = await RawSocket.open(wsUrl(server));
    sockets.push(socket);
    const frame = await socket.next();
    assert.equal(frame.event, 'pusher:connection_established');
    assert.equal(typeof frame.data, 'string', 'data is JSON text, as pusher-js expects');
    const data = dataOf(frame);
    assert.deepStrictEqual(Object.keys(data).sort(), ['activity_timeout', 'socket_id']);
    assert.match(String(data.socket_id), /^\d+\.\d+$/);
    assert.equal(data.activity_timeout, 120);
  });

  it('gives every connection its own socket id', async () => {
    const ids = await Promise.all([open(), open(), open()]).then((all) =>
      all.map((c) => c.socketId),
    );
    assert.equal(new Set(ids).size, 3);
  });

  it('answers pusher:ping with pusher:pong', async () => {
    const { socket } = await open();
    socket.send({ event: 'pusher:ping', data: {} });
    assert.deepStrictEqual(await socket.next(), { event: 'pusher:pong', data: {} });
  });

  it('subscribes to a public channel, delivers its events, and stops after unsubscribe', async () => {
    const { socket } = await open();
    socket.send({ event: 'pusher:subscribe', data: { channel: 'announcements' } });
    assert.deepStrictEqual(await socket.next(), {
      event: 'pusher_internal:subscription_succeeded',
      channel: 'announcements',
      data: '{}',
    });
    assert.equal(publish(server, 'announcements', 'news', { a: 1 }), 1);
    assert.deepStrictEqual(await socket.next(), {
      event: 'news',
      channel: 'announcements',
      data: '{"a":1}',
    });
    socket.send({ event: 'pusher:unsubscribe', data: { channel: 'announcements' } });
    socket.send({ event: 'pusher:ping', data: {} });
    await socket.next('pusher:pong'); // the unsubscribe was handled before the ping
    assert.equal(publish(server, 'announcements', 'news', { a: 2 }), 0);
  });

  it('accepts a subscribe whose data is JSON text, as some clients send it', async () => {
    const { socket } = await open();
    socket.send({ event: 'pusher:subscribe', data: JSON.stringify({ channel: 'text-data' }) });
    assert.equal((await socket.next()).event, 'pusher_internal:subscription_succeeded');
  });

  it('subscribes to a private channel with a valid signature for this socket', async () => {
    const { socket, socketId } = await open();
    const channel = 'private-notifications.1';
    socket.send({
      event: 'pusher:subscribe',
      data: { channel, auth: channelAuth(credentials, socketId, channel) },
    });
    assert.deepStrictEqual(await socket.next(), {
      event: 'pusher_internal:subscription_succeeded',
      channel,
      data: '{}',
    });
    assert.equal(publish(server, channel, 'SvcNotificationReceived', { id: 1 }), 1);
    assert.deepStrictEqual(await socket.next(), {
      event: 'SvcNotificationReceived',
      channel,
      data: '{"id":1}',
    });
  });

  for (const [index, [label, auth]] of (
    [
      ['no auth', undefined],
      [
        'a signature for another socket',
        channelAuth(credentials, '1.2', 'private-notifications.901'),
      ],
      ['a signature for another channel', null],
      ['a signature made with another secret', 'x'],
      ['a signature with another key', 'y'],
    ] as const
  ).entries()) {
    it(`refuses a private channel with ${label}: channel-scoped pusher:subscription_error, status 401`, async () => {
      const { socket, socketId } = await open();
      const channel = `private-notifications.${900 + index}`;
      const value =
        auth === null
          ? channelAuth(credentials, socketId, 'private-notifications.2')
          : auth === 'x'
            ? channelAuth({ key: 'svc-key', secret: 'other' }, socketId, channel)
            : auth === 'y'
              ? channelAuth({ key: 'other-key', secret: SECRET }, socketId, channel)
              : auth;
      socket.send({
        event: 'pusher:subscribe',
        data: { channel, ...(value === undefined ? {} : { auth: value }) },
      });
      const frame = await socket.next();
      assert.equal(frame.event, 'pusher:subscription_error');
      assert.equal(frame.channel, channel);
      assert.deepStrictEqual(dataOf(frame), {
        type: 'AuthError',
        error: `Invalid signature: the auth does not match socket ${socketId} and channel ${channel}.`,
        status: 401,
      });
      assert.equal(publish(server, channel, 'SvcNotificationReceived', {}), 0, 'not subscribed');
    });
  }

  it('refuses invalid channel names, presence and encrypted channels with a subscription_error 400', async () => {
    const { socket } = await open();
    for (const [channel, type] of [
      ['bad channel!', 'InvalidChannel'],
      ['x'.repeat(201), 'InvalidChannel'],
      ['presence-room', 'UnsupportedChannel'],
      ['private-encrypted-room', 'UnsupportedChannel'],
    ] as const) {
      socket.send({ event: 'pusher:subscribe', data: { channel, auth: 'svc-key:00' } });
      const frame = await socket.next();
      assert.equal(frame.event, 'pusher:subscription_error');
      assert.equal(frame.channel, channel.slice(0, 200));
      assert.equal(dataOf(frame).type, type);
      assert.equal(dataOf(frame).status, 400);
    }
  });

  it('limits a connection to 100 channels', async () => {
    const { socket } = await open();
    for (let i = 0; i < 100; i++)
      socket.send({ event: 'pusher:subscribe', data: { channel: `c${i}` } });
    for (let i = 0; i < 100; i++)
      assert.equal((await socket.next()).event, 'pusher_internal:subscription_succeeded');
    socket.send({ event: 'pusher:subscribe', data: { channel: 'one-too-many' } });
    const frame = await socket.next();
    assert.equal(frame.event, 'pusher:subscription_error');
    assert.deepStrictEqual(dataOf(frame), {
      type: 'LimitReached',
      error: 'A connection may subscribe to at most 100 channels.',
      status: 429,
    });
  });

  for (const [label, message, error] of [
    ['text that is not JSON', 'not json', 'The message is not valid JSON.'],
    [
      'JSON without an event',
      '{"data":{}}',
      'The message must be a JSON object with an "event" string.',
    ],
    [
      'an unknown pusher event',
      '{"event":"pusher:dance","data":{}}',
      'Unknown event "pusher:dance".',
    ],
    [
      'a subscribe without a channel',
      '{"event":"pusher:subscribe","data":{}}',
      'pusher:subscribe needs data.channel, a string.',
    ],
  ] as const) {
    it(`answers ${label} with pusher:error 4300 and keeps the connection`, async () => {
      const { socket } = await open();
      socket.send(message);
      assert.deepStrictEqual(await socket.next(), {
        event: 'pusher:error',
        data: { code: 4300, message: error },
      });
      socket.send({ event: 'pusher:ping', data: {} });
      assert.equal((await socket.next()).event, 'pusher:pong');
    });
  }

  it('rejects client events with pusher:error 4301', async () => {
    const { socket } = await open();
    socket.send({ event: 'client-typing', channel: 'private-notifications.1', data: {} });
    assert.deepStrictEqual(await socket.next(), {
      event: 'pusher:error',
      data: { code: 4301, message: 'Client events are not enabled on this server.' },
    });
  });

  it('answers a message above 10240 bytes with pusher:error 4300 and keeps the connection', async () => {
    const { socket } = await open();
    socket.send({ event: 'pusher:ping', data: { padding: 'x'.repeat(10_300) } });
    assert.deepStrictEqual(await socket.next(), {
      event: 'pusher:error',
      data: { code: 4300, message: 'The message is larger than 10240 bytes.' },
    });
    socket.send({ event: 'pusher:ping', data: { padding: 'x'.repeat(10_000) } });
    assert.equal(
      (await socket.next()).event,
      'pusher:pong',
      'a message just under the limit is handled',
    );
  });

  it('closes the connection with 1009 on a frame far above the limit', async () => {
    const { socket } = await open();
    socket.send('x'.repeat(50_000));
    assert.equal((await socket.closed).code, 1009);
  });

  it('answers binary frames with pusher:error 4300', async () => {
    const { socket } = await open();
    socket.socket.send(Buffer.from('{"event":"pusher:ping"}'), { binary: true });
    assert.equal((dataOf(await socket.next()) as { code: number }).code, 4300);
  });

  for (const [label, path, code, message] of [
    ['an unknown app key', '/app/other-key?protocol=7', 4001, 'App key other-key does not exist.'],
    ['no protocol version', '/app/svc-key', 4008, 'No protocol version supplied.'],
    [
      'a malformed protocol version',
      '/app/svc-key?protocol=seven',
      4006,
      'Invalid version string format.',
    ],
    [
      'an unsupported protocol version',
      '/app/svc-key?protocol=6',
      4007,
      'Unsupported protocol version 6; this server speaks 7.',
    ],
  ] as const) {
    it(`refuses ${label} with pusher:error ${code} and closes with ${code}`, async () => {
      const socket = await RawSocket.open(wsUrl(server, path));
      assert.deepStrictEqual(await socket.next(), {
        event: 'pusher:error',
        data: { code, message },
      });
      assert.deepStrictEqual(await socket.closed, { code, reason: message });
    });
  }

  it('refuses WebSocket upgrades on other paths with 404', async () => {
    await assert.rejects(RawSocket.open(wsUrl(server, '/ws')), /Unexpected server response: 404/);
    await assert.rejects(
      RawSocket.open(wsUrl(server, '/app/svc-key/extra?protocol=7')),
      /Unexpected server response: 404/,
    );
  });

  it('survives a malformed key (400) and a long multi-byte key (4001, reason cut to 123 bytes)', async () => {
    await assert.rejects(
      RawSocket.open(wsUrl(server, '/app/%E0%A4%A?protocol=7')),
      /Unexpected server response: 400/,
    );
    const key = 'é'.repeat(100);
    const socket = await RawSocket.open(
      wsUrl(server, `/app/${encodeURIComponent(key)}?protocol=7`),
    );
    assert.deepStrictEqual(await socket.next(), {
      event: 'pusher:error',
      data: { code: 4001, message: `App key ${key} does not exist.` },
    });
    const closed = await socket.closed;
    assert.equal(closed.code, 4001);
    assert.ok(Buffer.byteLength(closed.reason) <= 123 && closed.reason.startsWith('App key éé'));
    const { socket: after } = await open();
    after.send({ event: 'pusher:ping', data: {} });
    assert.equal((await after.next()).event, 'pusher:pong', 'the server still serves');
  });

  it('forgets a closed connection’s subscriptions', async () => {
    const { socket } = await open();
    socket.send({ event: 'pusher:subscribe', data: { channel: 'leaving' } });
    await socket.next('pusher_internal:subscription_succeeded');
    const before = server.service.realtime?.connectionCount ?? 0;
    socket.close();
    await socket.closed;
    for (let i = 0; i < 50 && (server.service.realtime?.connectionCount ?? 0) >= before; i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(server.service.realtime?.connectionCount, before - 1);
    assert.equal(publish(server, 'leaving', 'e', {}), 0);
  });
});

describe('embedded Pusher server: idle connections and shutdown', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ ...REALTIME_ENV, REALTIME_ACTIVITY_TIMEOUT: '1' });
  });
  after(() => server.close());

  it('pings a silent client after activity_timeout and closes it with 4201 when no pong comes', async () => {
    const { socket } = await connect(server);
    const started = Date.now();
    assert.deepStrictEqual(await socket.next('pusher:ping', 2000), {
      event: 'pusher:ping',
      data: {},
    });
    assert.ok(Date.now() - started >= 900, 'not before activity_timeout');
    assert.deepStrictEqual(await socket.next('pusher:error', 2000), {
      event: 'pusher:error',
      data: { code: 4201, message: 'Pong reply not received in time.' },
    });
    assert.equal((await socket.closed).code, 4201);
  });

  it('keeps a client that answers the ping', async () => {
    const { socket } = await connect(server);
    for (let i = 0; i < 2; i++) {
      await socket.next('pusher:ping', 2000);
      socket.send({ event: 'pusher:pong', data: {} });
    }
    socket.send({ event: 'pusher:ping', data: {} });
    assert.equal((await socket.next('pusher:pong')).event, 'pusher:pong');
    socket.close();
  });

  it('keeps a client that pings on its own before the timeout', async () => {
    const { socket } = await connect(server);
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 500));
      socket.send({ event: 'pusher:ping', data: {} });
      await socket.next('pusher:pong');
    }
    assert.deepStrictEqual(socket.pending(), [], 'no server ping while the client is active');
    socket.close();
  });

  it('says goodbye with pusher:error 4200 and closes every connection when the service closes', async () => {
    const local = await startTestServer(REALTIME_ENV);
    const { socket } = await connect(local);
    const started = Date.now();
    await local.close();
    assert.ok(Date.now() - started < 1500, 'close does not hang on open sockets');
    assert.deepStrictEqual(await socket.next('pusher:error'), {
      event: 'pusher:error',
      data: { code: 4200, message: 'The server is shutting down; reconnect shortly.' },
    });
    assert.equal((await socket.closed).code, 4200);
  });
});
