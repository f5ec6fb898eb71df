// REDIS_URL and REDIS_PREFIX (DESIGN.md 3.2, docs/configuration.md "Configuration"): read once at boot, refused
// with a message that never repeats the URL (it may hold a password), and a start that cannot
// reach Redis fails at once, saying so, without the password either. Needs no Redis.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { startService } from '../../src/service.js';

describe('Redis configuration', () => {
  it('keeps state local without REDIS_URL', () => {
    assert.equal(loadConfig({}).redis, null);
    assert.equal(loadConfig({ REDIS_PREFIX: 'other:' }).redis, null);
  });

  it('reads REDIS_URL (redis:// or rediss://) with the default prefix svc:, or REDIS_PREFIX', () => {
    assert.deepStrictEqual(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).redis, {
      url: 'redis://127.0.0.1:6379',
      prefix: 'svc:',
    });
    assert.equal(
      loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_PREFIX: '' }).redis?.prefix,
      'svc:',
    );
    assert.deepStrictEqual(
      loadConfig({ REDIS_URL: 'rediss://:pw@cache.internal:6380/2', REDIS_PREFIX: 'eu-1:' }).redis,
      {
        url: 'rediss://:pw@cache.internal:6380/2',
        prefix: 'eu-1:',
      },
    );
  });

  for (const [env, message] of [
    [
      { REDIS_URL: 'http://user:hunter2@cache.internal' },
      'REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379',
    ],
    [
      { REDIS_URL: 'cache.internal:6379' },
      'REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379',
    ],
    [
      { REDIS_URL: 'redis://127.0.0.1', REDIS_PREFIX: 'with space' },
      'REDIS_PREFIX must be 1 to 100 visible ASCII characters (no spaces), got "with space"',
    ],
  ] as const) {
    it(`refuses ${JSON.stringify(env)}, never repeating the URL`, () => {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && error.message === message,
      );
    });
  }

  it('fails the start at once when Redis cannot be reached, naming REDIS_URL but not its password', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
    try {
      // Port 1 on loopback: nothing listens there, the connection is refused at once.
      const config = loadConfig({
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        REDIS_URL: 'redis://:hunter2@127.0.0.1:1',
      });
      await assert.rejects(startService(config, { logger: false }), (error: unknown) => {
        assert.ok(error instanceof Error);
        assert.match(error.message, /^Cannot connect to REDIS_URL: /);
        assert.equal(error.message.includes('hunter2'), false, error.message);
        return true;
      });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
