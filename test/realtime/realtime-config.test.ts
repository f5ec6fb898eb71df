// The real-time settings of DESIGN.md 3.2, read once at boot with clear refusals, and the
// generated PUSHER_APP_SECRET kept in DATA_DIR when none is set.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { channelAuth } from '../../src/realtime/pusher-signatures.js';
import { assertJson } from '../helpers/http.js';
import { startTestServer } from '../helpers/test-server.js';
import { login, seedLoginUser, sessionRequest } from './realtime-clients.js';

describe('real-time configuration', () => {
  it('defaults to off, app svc, key svc-key, no external server, activity_timeout 120, 500 sockets (50 per address), 15 s to authenticate', () => {
    assert.deepStrictEqual(loadConfig({}).realtime, {
      enabled: false,
      appId: 'svc',
      key: 'svc-key',
      secret: null,
      external: null,
      activityTimeout: 120,
      maxConnections: 500,
      maxConnectionsPerAddress: 50,
      authTimeoutMs: 15_000,
    });
  });

  it('reads PUSHER_HOST with the scheme’s default port, or PUSHER_PORT', () => {
    assert.deepStrictEqual(loadConfig({ PUSHER_HOST: 'soketi.internal' }).realtime.external, {
      host: 'soketi.internal',
      port: 443,
      scheme: 'https',
    });
    assert.deepStrictEqual(
      loadConfig({ PUSHER_HOST: '10.0.0.5', PUSHER_SCHEME: 'HTTP' }).realtime.external,
      { host: '10.0.0.5', port: 80, scheme: 'http' },
    );
    assert.deepStrictEqual(
      loadConfig({ PUSHER_HOST: '[::1]', PUSHER_PORT: '6001', PUSHER_SCHEME: 'http' }).realtime
        .external,
      { host: '[::1]', port: 6001, scheme: 'http' },
    );
  });

  it('ignores PUSHER_PORT and PUSHER_SCHEME without PUSHER_HOST (Laravel’s .env ships them), but still checks them', () => {
    assert.equal(
      loadConfig({ PUSHER_PORT: '443', PUSHER_SCHEME: 'https' }).realtime.external,
      null,
    );
    assert.throws(() => loadConfig({ PUSHER_PORT: 'x' }), ConfigError);
  });

  for (const [env, message] of [
    [
      { REALTIME_NOTIFICATIONS: 'maybe' },
      'REALTIME_NOTIFICATIONS must be true or false, got "maybe"',
    ],
    [
      { PUSHER_APP_KEY: 'key/with/slash' },
      'PUSHER_APP_KEY must be 1 to 100 characters of A-Z, a-z, 0-9, _ or -, got "key/with/slash"',
    ],
    [
      { PUSHER_APP_ID: 'a b' },
      'PUSHER_APP_ID must be 1 to 100 characters of A-Z, a-z, 0-9, _ or -, got "a b"',
    ],
    [
      { PUSHER_HOST: 'https://soketi.internal' },
      'PUSHER_HOST must be a host name or IP address without scheme, port or path (e.g. soketi.internal), got "https://soketi.internal"',
    ],
    [
      { PUSHER_HOST: 'soketi.internal:6001' },
      'PUSHER_HOST must be a host name or IP address without scheme, port or path (e.g. soketi.internal), got "soketi.internal:6001"',
    ],
    [{ PUSHER_HOST: 'h', PUSHER_SCHEME: 'ws' }, 'PUSHER_SCHEME must be http or https, got "ws"'],
    [
      { PUSHER_HOST: 'h', PUSHER_PORT: '70000' },
      'PUSHER_PORT must be an integer between 1 and 65535, got "70000"',
    ],
    [
      { REALTIME_ACTIVITY_TIMEOUT: '0' },
      'REALTIME_ACTIVITY_TIMEOUT must be an integer between 1 and 3600, got "0"',
    ],
  ] as const) {
    it(`refuses ${JSON.stringify(env)}`, () => {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && error.message === message,
      );
    });
  }

  it('generates PUSHER_APP_SECRET into DATA_DIR when unset, and signs channels with it', async () => {
    const server = await startTestServer({ REALTIME_NOTIFICATIONS: 'true' }, { anonymous: true });
    try {
      const secret = fs.readFileSync(path.join(server.dataDir, 'pusher.secret'), 'utf8').trim();
      assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
      await seedLoginUser(server.service.database.db, 'alice');
      const alice = await login(server.url, 'alice');
      const channel = `private-notifications.${alice.userId}`;
      const reply = await sessionRequest(
        server.url,
        alice,
        'POST',
        '/broadcasting/auth-notifications',
        { socket_id: '5.6', channel_name: channel },
      );
      assertJson(reply, 200, { auth: channelAuth({ key: 'svc-key', secret }, '5.6', channel) });
    } finally {
      await server.close();
    }
  });
});
