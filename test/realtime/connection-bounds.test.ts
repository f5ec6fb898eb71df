// What the embedded Pusher server holds at most (issue 31, finding 1): WebSockets per client
// address (REALTIME_MAX_CONNECTIONS_PER_ADDRESS, the address as TRUST_PROXY says) and in total
// (REALTIME_MAX_CONNECTIONS), refused past either with a JSON answer before the handshake while
// /health and the API keep answering; and a connection holding no private channel closed after
// REALTIME_AUTH_TIMEOUT_MS.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { channelAuth } from '../../src/realtime/pusher-signatures.js';
import { assertJson } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { dataOf, RawSocket, REALTIME_ENV } from './realtime-clients.js';

const credentials = { key: 'svc-key', secret: REALTIME_ENV.PUSHER_APP_SECRET };

function wsUrl(server: TestServer): string {
  return `${server.url.replace('http://', 'ws://')}/app/svc-key?protocol=7&client=js&version=8.6.0`;
}

interface Refusal {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
}

/** An upgrade the server answers with HTTP instead of a WebSocket: its status, headers and body. */
function refusedUpgrade(url: string, headers: Record<string, string>): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => {
      socket.close();
      reject(new Error('the upgrade was accepted'));
    });
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: JSON.parse(text),
        }),
      );
    });
  });
}

const from = (address: string) => ({ 'x-forwarded-for': address });

async function assertServiceAnswers(server: TestServer): Promise<void> {
  assertJson(await server.get('/health'), 200);
  assertJson(await server.get('/api/groups'), 200);
}

async function waitForCount(server: TestServer, count: number): Promise<void> {
  for (let i = 0; i < 500 && server.service.realtime?.connectionCount !== count; i++)
    await new Promise((r) => setTimeout(r, 10));
  assert.equal(server.service.realtime?.connectionCount, count);
}

describe('embedded Pusher server: connection bounds', () => {
  let server: TestServer;
  const sockets: RawSocket[] = [];
  const open = async (headers: Record<string, string>) => {
    const socket = await RawSocket.open(wsUrl(server), headers);
    sockets.push(socket);
    await socket.next('pusher:connection_established');
    return socket;
  };

  before(async () => {
    server = await startTestServer({
      ...REALTIME_ENV,
      TRUST_PROXY: 'loopback',
      REALTIME_MAX_CONNECTIONS_PER_ADDRESS: '3',
      REALTIME_MAX_CONNECTIONS: '5',
    });
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await waitForCount(server, 0);
  });
  after(() => server.close());

  it('refuses a WebSocket past REALTIME_MAX_CONNECTIONS_PER_ADDRESS with a 429 JSON answer while /health and the API answer', async () => {
    for (let i = 0; i < 3; i++) await open(from('203.0.113.1'));
    for (let i = 0; i < 3; i++) {
      const refusal = await refusedUpgrade(wsUrl(server), from('203.0.113.1'));
      assert.equal(refusal.status, 429);
      assert.equal(refusal.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(refusal.headers['x-content-type-options'], 'nosniff');
      assert.equal(refusal.headers['retry-after'], '60');
      assert.deepStrictEqual(refusal.body, {
        error: 'This address already holds 3 WebSocket connections.',
      });
    }
    await assertServiceAnswers(server);
    assert.equal(server.service.realtime?.connectionCount, 3);
    // Another address is not refused, and a closed socket gives its place back.
    await open(from('203.0.113.2'));
    const first = sockets[0];
    assert.ok(first);
    first.close();
    await first.closed;
    await waitForCount(server, 3);
    await open(from('203.0.113.1'));
  });

  it('refuses a WebSocket past REALTIME_MAX_CONNECTIONS with a 503 JSON answer while /health and the API answer', async () => {
    for (let i = 0; i < 5; i++) await open(from(`198.51.100.${i + 1}`));
    const refusal = await refusedUpgrade(wsUrl(server), from('198.51.100.99'));
    assert.equal(refusal.status, 503);
    assert.equal(refusal.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(refusal.headers['x-content-type-options'], 'nosniff');
    assert.deepStrictEqual(refusal.body, {
      error: 'The server already holds 5 WebSocket connections. Try again later.',
    });
    await assertServiceAnswers(server);
  });

  it('counts an untrusted peer by its own address, whatever X-Forwarded-For it sends', async () => {
    const direct = await startTestServer({
      ...REALTIME_ENV,
      REALTIME_MAX_CONNECTIONS_PER_ADDRESS: '2',
    });
    const own: RawSocket[] = [];
    try {
      for (const address of ['192.0.2.1', '192.0.2.2']) {
        const socket = await RawSocket.open(wsUrl(direct), from(address));
        own.push(socket);
        await socket.next('pusher:connection_established');
      }
      const refusal = await refusedUpgrade(wsUrl(direct), from('192.0.2.3'));
      assert.equal(refusal.status, 429);
    } finally {
      for (const socket of own) socket.close();
      await direct.close();
    }
  });
});

describe('embedded Pusher server: connections without a private channel', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ ...REALTIME_ENV, REALTIME_AUTH_TIMEOUT_MS: '300' });
  });
  after(() => server.close());

  const connect = async () => {
    const socket = await RawSocket.open(wsUrl(server));
    const established = await socket.next('pusher:connection_established');
    return { socket, socketId: String(dataOf(established).socket_id) };
  };
  const subscribePrivate = async (socket: RawSocket, socketId: string, channel: string) => {
    socket.send({
      event: 'pusher:subscribe',
      data: { channel, auth: channelAuth(credentials, socketId, channel) },
    });
    await socket.next('pusher_internal:subscription_succeeded');
  };
  const closedFor4009 = async (socket: RawSocket) => {
    assert.deepStrictEqual(await socket.next('pusher:error', 2000), {
      event: 'pusher:error',
      data: { code: 4009, message: 'No private channel subscribed within 300 ms.' },
    });
    assert.equal((await socket.closed).code, 4009);
  };

  it('closes a connection that subscribes to no private channel after REALTIME_AUTH_TIMEOUT_MS with 4009', async () => {
    // Before the upgrade is asked for: the server's timer cannot start earlier.
    const started = Date.now();
    const { socket } = await connect();
    socket.send({ event: 'pusher:subscribe', data: { channel: 'announcements' } });
    await socket.next('pusher_internal:subscription_succeeded');
    // Answering pings does not keep it.
    socket.send({ event: 'pusher:ping', data: {} });
    await socket.next('pusher:pong');
    await closedFor4009(socket);
    // 299: Date.now() counts whole milliseconds.
    assert.ok(Date.now() - started >= 299, 'not before the timeout');
  });

  it('keeps a connection that subscribed to a private channel in time', async () => {
    const { socket, socketId } = await connect();
    await subscribePrivate(socket, socketId, 'private-notifications.1');
    // A timeout has passed by the server's own timers: a connection opened after this one's
    // subscription, with no private channel, has been closed.
    await closedFor4009((await connect()).socket);
    socket.send({ event: 'pusher:ping', data: {} });
    assert.equal((await socket.next('pusher:pong')).event, 'pusher:pong');
    assert.deepStrictEqual(socket.pending(), []);
    socket.close();
  });

  it('closes a connection REALTIME_AUTH_TIMEOUT_MS after it left its last private channel', async () => {
    const { socket, socketId } = await connect();
    await subscribePrivate(socket, socketId, 'private-notifications.1');
    await subscribePrivate(socket, socketId, 'private-notifications.2');
    socket.send({ event: 'pusher:unsubscribe', data: { channel: 'private-notifications.1' } });
    // Its pong says the unsubscribe was handled; then a timeout passes (as above).
    socket.send({ event: 'pusher:ping', data: {} });
    await socket.next('pusher:pong');
    await closedFor4009((await connect()).socket);
    socket.send({ event: 'pusher:ping', data: {} });
    assert.equal(
      (await socket.next('pusher:pong')).event,
      'pusher:pong',
      'one private channel left',
    );
    socket.send({ event: 'pusher:unsubscribe', data: { channel: 'private-notifications.2' } });
    await closedFor4009(socket);
  });
});
