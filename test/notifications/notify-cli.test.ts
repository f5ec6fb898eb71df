// `svc notify <user>[,<user>...] --title= --message= [--level=] [--icon=] [--url=|--navigate=]`
// (DESIGN.md 3.1, 3.6): the real CLI in a child process over a running server's DATA_DIR. It
// stores through the send service and prints the records; with REALTIME_NOTIFICATIONS=true it
// publishes through the Pusher HTTP API to the local service (or PUSHER_HOST); a push that fails
// exits 1 naming where it tried (the records are stored and printed all the same).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { channelAuth } from '../../src/realtime/pusher-signatures.js';
import { type Run, runCli } from '../helpers/cli.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/test-server.js';
import { dataOf, RawSocket, REALTIME_ENV, seedLoginUser } from '../realtime/realtime-clients.js';

function svc(env: Record<string, string>, ...args: string[]): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ADMIN_PASSWORD,
    LOG_LEVEL: 'silent',
    ...env,
  };
  for (const name of [
    'DATABASE_URL',
    'APP_SECRET',
    'PUSHER_HOST',
    'PUSHER_PORT',
    'PUSHER_SCHEME',
    'REALTIME_NOTIFICATIONS',
  ])
    if (!(name in env)) delete childEnv[name];
  return runCli(childEnv, ['notify', ...args]);
}

describe('svc notify', () => {
  let server: TestServer;
  let alice: number;
  let env: Record<string, string>;
  before(async () => {
    server = await startTestServer({}, { anonymous: true });
    alice = await seedLoginUser(server.service.database.db, 'alice');
    env = server.storageEnv;
  });
  after(() => server.close());

  it('stores one unread notification per user (by login or id) and prints them as JSON', async () => {
    const run = await svc(
      env,
      'alice,1',
      '--title=Maintenance',
      '--message=Tonight at 22:00',
      '--level=warning',
      '--icon=wrench',
      '--navigate=/maintenance',
    );
    assert.equal(run.code, 0, run.stderr);
    const records = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
    assert.deepStrictEqual(
      records.map((r) => [r.user_to_id, r.user_from_id, r.type, r.data, r.action, r.read_at]),
      [alice, 1].map((to) => [
        to,
        null,
        'generic',
        { title: 'Maintenance', message: 'Tonight at 22:00', icon: 'wrench', level: 'warning' },
        { kind: 'navigate', url: '/maintenance', label: null },
        null,
      ]),
    );
    assert.match(
      run.stderr,
      /\n2 notifications stored; not pushed: REALTIME_NOTIFICATIONS is off in these settings\.\n$/,
    );
    const stored = await server.service.database.db
      .selectFrom('notifications')
      .select('id')
      .where(
        'id',
        'in',
        records.map((r) => Number(r.id)),
      )
      .execute();
    assert.equal(stored.length, 2);
  });

  it('takes --url for an external link', async () => {
    const run = await svc(
      env,
      String(alice),
      '--title=Docs',
      '--message=Read them',
      '--url=https://docs.example.test',
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepStrictEqual(JSON.parse(run.stdout)[0].action, {
      kind: 'url',
      url: 'https://docs.example.test',
      label: null,
    });
  });

  for (const [label, args, message] of [
    ['no user', ['--title=t', '--message=m'], /Usage: svc notify <user>/],
    ['no title', ['alice', '--message=m'], /--title=<value> is required/],
    ['no message', ['alice', '--title=t'], /--message=<value> is required/],
    ['an unknown user', ['alice,nobody', '--title=t', '--message=m'], /No user "nobody"/],
    [
      'both --url and --navigate',
      ['alice', '--title=t', '--message=m', '--url=https://x.test', '--navigate=/x'],
      /Give --url or --navigate, not both/,
    ],
    [
      'an unknown level',
      ['alice', '--title=t', '--message=m', '--level=critical'],
      /The selected level is invalid\.\n {2}level: The selected level is invalid\./,
    ],
    [
      'an external --navigate',
      ['alice', '--title=t', '--message=m', '--navigate=https://x.test'],
      /action\.url: The action\.url field must start with one of the following: \//,
    ],
    [
      'a --navigate a browser reads as another host (/\\host)',
      ['alice', '--title=t', '--message=m', '--navigate=/\\evil.example/x'],
      /action\.url: The action\.url field format is invalid\./,
    ],
    [
      'a --navigate a browser reads as another host (/<TAB>/host)',
      ['alice', '--title=t', '--message=m', '--navigate=/\t/evil.example'],
      /action\.url: The action\.url field format is invalid\./,
    ],
  ] as const) {
    it(`refuses ${label} with exit 2, nothing on stdout and nothing stored`, async () => {
      const before = await server.service.database.db
        .selectFrom('notifications')
        .select('id')
        .execute();
      const run = await svc(env, ...args);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, message);
      assert.equal(
        (await server.service.database.db.selectFrom('notifications').select('id').execute())
          .length,
        before.length,
      );
    });
  }
});

describe('svc notify with REALTIME_NOTIFICATIONS=true', () => {
  let server: TestServer;
  let alice: number;
  before(async () => {
    server = await startTestServer(REALTIME_ENV, { anonymous: true });
    alice = await seedLoginUser(server.service.database.db, 'alice');
  });
  after(() => server.close());

  it('publishes to the local service at HOST:PORT through the Pusher HTTP API', async () => {
    const socket = await RawSocket.open(
      `${server.url.replace('http', 'ws')}/app/svc-key?protocol=7`,
    );
    try {
      const socketId = String(dataOf(await socket.next('pusher:connection_established')).socket_id);
      const channel = `private-notifications.${alice}`;
      socket.send({
        event: 'pusher:subscribe',
        data: {
          channel,
          auth: channelAuth(
            { key: 'svc-key', secret: REALTIME_ENV.PUSHER_APP_SECRET },
            socketId,
            channel,
          ),
        },
      });
      await socket.next('pusher_internal:subscription_succeeded');
      const run = await svc(
        {
          ...REALTIME_ENV,
          ...server.storageEnv,
          HOST: '127.0.0.1',
          PORT: new URL(server.url).port,
        },
        'alice',
        '--title=Live',
        '--message=from the CLI',
      );
      assert.equal(run.code, 0, run.stderr);
      const [record] = JSON.parse(run.stdout) as Array<{ id: number; created_at: string }>;
      const frame = await socket.next('SvcNotificationReceived');
      assert.equal(frame.channel, channel);
      assert.deepStrictEqual(dataOf(frame), {
        id: record?.id,
        title: 'Live',
        message: 'from the CLI',
        icon: 'bell',
        level: 'info',
        action: null,
        created_at: record?.created_at,
        unread_count: 1,
      });
    } finally {
      socket.close();
    }
  });

  it('stores and prints the records, then exits 1 naming where it tried, when the push server is down', async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const run = await svc(
      {
        ...REALTIME_ENV,
        ...server.storageEnv,
        PUSHER_HOST: '127.0.0.1',
        PUSHER_PORT: String(port),
        PUSHER_SCHEME: 'http',
      },
      'alice',
      '--title=Lost push',
      '--message=stored',
    );
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        `svc: 1 notification stored, but the real-time push failed: Publishing to the Pusher server at http://127\\.0\\.0\\.1:${port} failed`,
      ),
    );
    const [record] = JSON.parse(run.stdout) as Array<{ id: number }>;
    const stored = await server.service.database.db
      .selectFrom('notifications')
      .select('read_at')
      .where('id', '=', record?.id ?? 0)
      .executeTakeFirst();
    assert.deepStrictEqual(stored, { read_at: null });
  });
});
