// Graceful shutdown of `svc serve` (a real process): on SIGTERM or SIGINT it stops accepting
// connections, lets requests in flight finish, sends WebSocket clients a close frame with 4200
// (Pusher: reconnect at once), closes the database and exits 0; a request still open after
// SHUTDOWN_TIMEOUT_MS is cut and the exit code is 1.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, describe, it } from 'node:test';
import { sqlitePassOnly } from '../helpers/engines.js';
import { type Reply, readReply } from '../helpers/http.js';
import { ServeProcess } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD } from '../helpers/test-server.js';
import { APP_KEY, RawSocket, REALTIME_ENV } from '../realtime/realtime-clients.js';

const skip = sqlitePassOnly(
  'every `svc serve` here runs on a SQLite file in DATA_DIR whatever the engine: run in the SQLite pass only',
);

const LOGIN = JSON.stringify({ login: 'admin', password: ADMIN_PASSWORD });

/**
 * A POST /app/login whose body is held back: `Expect: 100-continue` makes the server answer
 * "100 Continue" once it has parsed the headers, so `inFlight` resolves when the request is
 * being handled. `finish()` sends the body; `reply` settles with the answer or the cut.
 */
function heldLogin(url: string) {
  const request = http.request(new URL('/app/login', url), {
    method: 'POST',
    agent: false,
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(LOGIN)),
      expect: '100-continue',
    },
  });
  const inFlight = new Promise<void>((resolve) => request.once('continue', resolve));
  const reply = new Promise<Reply>((resolve, reject) => {
    request.once('response', (response) => readReply(response).then(resolve, reject));
    request.once('error', reject);
  });
  request.flushHeaders();
  return { inFlight, reply, finish: () => request.end(LOGIN) };
}

describe('graceful shutdown of svc serve', { skip, concurrency: true }, () => {
  const started: ServeProcess[] = [];
  const serve = async (env: Record<string, string> = {}) => {
    const process = await ServeProcess.start([], env);
    started.push(process);
    return process;
  };
  after(() => Promise.all(started.map((p) => p.dispose())));

  it('SIGTERM lets a request in flight finish with 200, then the process exits 0', async () => {
    const server = await serve();
    const login = heldLogin(server.url);
    await login.inFlight;
    server.signal('SIGTERM');
    await server.waitFor('the shutdown to start', (line) => line.msg.startsWith('shutting down'));
    login.finish();
    const reply = await login.reply;
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.body.user.login, 'admin');
    assert.deepStrictEqual(await server.exited, { code: 0, signal: null });
    assert.ok(
      server.lines.some((line) => line.msg.startsWith('stopped:')),
      'logs the end of the shutdown',
    );
  });

  it('SIGTERM sends every WebSocket client a close frame with code 4200 (Pusher: reconnect at once), then the process exits 0', async () => {
    const server = await serve({ ...REALTIME_ENV });
    const wsUrl = `${server.url.replace(/^http/, 'ws')}/app/${APP_KEY}?protocol=7`;
    const sockets = await Promise.all([RawSocket.open(wsUrl), RawSocket.open(wsUrl)]);
    for (const socket of sockets) await socket.next('pusher:connection_established');
    server.signal('SIGTERM');
    for (const socket of sockets) {
      assert.deepStrictEqual(await socket.next('pusher:error', 10_000), {
        event: 'pusher:error',
        data: { code: 4200, message: 'The server is shutting down; reconnect shortly.' },
      });
      assert.equal((await socket.closed).code, 4200);
    }
    assert.deepStrictEqual(await server.exited, { code: 0, signal: null });
    assert.equal(
      (await server.waitFor('the shutdown line', (line) => line.msg.startsWith('shutting down')))
        .websocketClients,
      2,
    );
  });

  it('SIGINT shuts down the same way and the process exits 0', async () => {
    const server = await serve();
    server.signal('SIGINT');
    assert.deepStrictEqual(await server.exited, { code: 0, signal: null });
    assert.equal(
      (await server.waitFor('the shutdown line', (line) => line.msg.startsWith('shutting down')))
        .signal,
      'SIGINT',
    );
  });

  it('a request still open after SHUTDOWN_TIMEOUT_MS has its connection cut and the process exits 1', async () => {
    const server = await serve({ SHUTDOWN_TIMEOUT_MS: '300' });
    const login = heldLogin(server.url);
    await login.inFlight;
    server.signal('SIGTERM');
    // The body never comes: the request cannot finish.
    await assert.rejects(login.reply, /socket hang up|ECONNRESET/);
    assert.deepStrictEqual(await server.exited, { code: 1, signal: null });
    assert.ok(
      server.lines.some((line) => line.msg.startsWith('shutdown timeout')),
      'logs the cut',
    );
  });
});
