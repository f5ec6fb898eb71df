// PUSHER_HOST (DESIGN.md 3.2, 3.5): events go through the Pusher HTTP API to that server. With
// it pointing at a second instance's embedded server the event still arrives; with it pointing
// at a closed port or at a server that never answers, the notification is stored, the send
// returns within the 2 s publish timeout, and the failure is logged (SPEC.md 6 failure
// behaviour).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import type { NotificationEventPayload } from '../../src/notifications/notification-event.js';
import { type Service, startService } from '../../src/service.js';
import { assertJson } from '../helpers/http.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/test-server.js';
import {
  echoClient,
  login,
  REALTIME_ENV,
  seedLoginUser,
  sessionRequest,
  waitFor,
} from './realtime-clients.js';

interface LoggedService {
  readonly url: string;
  readonly service: Service;
  /** The JSON log lines written so far. */
  readonly logs: Array<{ level: number; msg: string; err?: { message: string } }>;
  close(): Promise<void>;
}

/** A service whose warnings are captured, publishing to PUSHER_HOST=127.0.0.1:`port` over http. */
async function serviceTowards(port: number): Promise<LoggedService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  const config = loadConfig({
    ...REALTIME_ENV,
    DATA_DIR: dataDir,
    ADMIN_PASSWORD,
    PUSHER_HOST: '127.0.0.1',
    PUSHER_PORT: String(port),
    PUSHER_SCHEME: 'http',
  });
  const logs: LoggedService['logs'] = [];
  const stream = {
    write: (line: string) => void logs.push(JSON.parse(line) as LoggedService['logs'][number]),
  };
  const service = await startService(config, { logger: { level: 'warn', stream } });
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(service.app.server.address() as AddressInfo).port}`;
  return {
    url,
    service,
    logs,
    async close() {
      await service.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function closedPort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('PUSHER_HOST pointing at a second instance’s embedded server', () => {
  let pushServer: TestServer;
  let sender: LoggedService;
  before(async () => {
    pushServer = await startTestServer(REALTIME_ENV, { anonymous: true });
    sender = await serviceTowards(Number(new URL(pushServer.url).port));
  });
  after(async () => {
    await sender.close();
    await pushServer.close();
  });

  it('delivers the event: authorised by the sending instance, received from the push server', async () => {
    await seedLoginUser(sender.service.database.db, 'alice');
    const alice = await login(sender.url, 'alice');
    const echo = echoClient(pushServer.url, alice, sender.url);
    try {
      const channel = echo.private(`notifications.${alice.userId}`);
      await waitFor<void>('the subscription', (resolve, reject) => {
        channel.subscribed(() => resolve());
        channel.error((error: unknown) => reject(error));
      });
      const received = waitFor<NotificationEventPayload>('the event', (resolve) =>
        channel.listen('.SvcNotificationReceived', resolve),
      );
      const sent = await sessionRequest(sender.url, alice, 'POST', '/api/notifications', {
        to: alice.userId,
        title: 'Relayed',
        message: 'through the HTTP API',
      });
      assertJson(sent, 201);
      const payload = await received;
      assert.equal(payload.id, sent.body.data[0].id);
      assert.equal(payload.title, 'Relayed');
      assert.equal(payload.unread_count, 1);
      assert.deepStrictEqual(
        sender.logs.filter((l) => l.level >= 40),
        [],
        'no failure logged',
      );
    } finally {
      echo.disconnect();
    }
  });
});

describe('PUSHER_HOST unreachable or silent', () => {
  let silent: http.Server;
  const held: http.ServerResponse[] = [];
  before(async () => {
    // Accepts the publish and never answers.
    silent = http.createServer((_request, response) => void held.push(response));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    for (const response of held) response.destroy();
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  const cases: Array<[string, () => Promise<number>, RegExp, number]> = [
    [
      'a closed port',
      closedPort,
      /Publishing to the Pusher server at http:\/\/127\.0\.0\.1:\d+ failed: fetch failed/,
      1000,
    ],
    [
      'a server that never answers',
      async () => (silent.address() as AddressInfo).port,
      /failed: no answer within 2000 ms/,
      3000,
    ],
  ];
  for (const [label, port, failure, bound] of cases) {
    it(`stores the notification, returns within ${bound} ms and logs the failure with ${label}`, async () => {
      const sender = await serviceTowards(await port());
      try {
        const started = Date.now();
        const records = await sender.service.notifications.send({
          to: 1,
          title: 'Stored anyway',
          message: 'push lost',
        });
        const elapsed = Date.now() - started;
        assert.ok(elapsed < bound, `send took ${elapsed} ms`);
        assert.equal(records.length, 1);
        const stored = await sender.service.database.db
          .selectFrom('notifications')
          .selectAll()
          .where('id', '=', records[0]?.id ?? 0)
          .executeTakeFirst();
        assert.equal(stored?.read_at, null);
        const warnings = sender.logs.filter((l) => l.level === 40);
        assert.equal(warnings.length, 1);
        assert.equal(
          warnings[0]?.msg,
          'Real-time push of notifications failed; the notifications are stored.',
        );
        assert.match(warnings[0]?.err?.message ?? '', failure);
      } finally {
        await sender.close();
      }
    });
  }

  it('answers POST /api/notifications with 201 when the push server is down', async () => {
    const sender = await serviceTowards(await closedPort());
    try {
      await seedLoginUser(sender.service.database.db, 'carol');
      const carol = await login(sender.url, 'carol');
      const sent = await sessionRequest(sender.url, carol, 'POST', '/api/notifications', {
        to: carol.userId,
        title: 'Still stored',
        message: 'x',
      });
      assertJson(sent, 201);
      const list = await sessionRequest(sender.url, carol, 'GET', '/app/notifications');
      assert.equal(list.body.meta.unread_count, 1);
      assert.equal(list.body.data[0].id, sent.body.data[0].id);
    } finally {
      await sender.close();
    }
  });
});
