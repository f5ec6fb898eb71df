// What `svc serve` says when it starts (issue 20): one summary of what runs where, JSON logs
// when stdout is not a terminal and readable ones with LOG_FORMAT=pretty, the generated admin
// password on a line of its own (never inside a log record), and a word when ADMIN_PASSWORD no
// longer applies.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { cliWorkingDir } from '../helpers/cli.js';
import { sqlitePassOnly } from '../helpers/engines.js';
import { ServeProcess } from '../helpers/serve-process.js';

const skip = sqlitePassOnly(
  'every `svc serve` here runs on a SQLite file in DATA_DIR whatever the engine: run in the SQLite pass only',
);

const VERSION = (await import('../../package.json', { with: { type: 'json' } })).default.version;

describe('svc serve start-up', { skip, concurrency: true }, () => {
  const started: ServeProcess[] = [];
  after(() => Promise.all(started.map((s) => s.dispose())));
  const keep = (serve: ServeProcess) => {
    started.push(serve);
    return serve;
  };

  it('logs one JSON summary record when stdout is not a terminal: version, database, data dir, addresses, real time, driver, workers, Redis', async () => {
    const serve = keep(await ServeProcess.start([], { REALTIME_NOTIFICATIONS: 'true' }));
    const [summary, ...more] = serve.logged(`svc ${VERSION} started`);
    assert.equal(more.length, 0);
    const port = new URL(serve.url).port;
    const origin = `http://127.0.0.1:${port}`;
    assert.deepStrictEqual(
      { ...summary, time: typeof summary?.time, hostname: typeof summary?.hostname },
      {
        level: 30,
        time: 'number',
        pid: serve.pid,
        hostname: 'string',
        version: VERSION,
        engine: 'SQLite',
        database: `sqlite:${serve.dataDir}/svc.sqlite`,
        dataDir: serve.dataDir,
        listening: origin,
        admin: `${origin}/admin/`,
        docs: `${origin}/docs`,
        realtime: `on, WebSocket ws://127.0.0.1:${port}/app/svc-key`,
        driver: 'off',
        workers: 1,
        redis: 'off (state kept in this process)',
        settings: `environment only, no .env in ${cliWorkingDir()}`,
        msg: `svc ${VERSION} started`,
      },
    );
    for (const line of serve.stdout.trim().split('\n')) JSON.parse(line);
  });

  it('prints the generated admin password on a line of its own on stderr, in no log record, and it signs in', async () => {
    const serve = keep(await ServeProcess.start([], {}, { unset: ['ADMIN_PASSWORD'] }));
    await serve.waitForOutput(
      /generated password \(shown only this once\): \S+\nChange it with: .*\n/,
    );
    const password = /generated password \(shown only this once\): (\S+)\n/.exec(serve.stderr)?.[1];
    assert.ok(password, serve.stderr);
    assert.match(serve.stderr, /Change it with: npx svc user:password admin/);
    assert.ok(!serve.stdout.includes(password), 'the password is in a log record');
    assert.equal(
      serve.logged(
        'First start: created company Default, unit Main and user "admin" with a generated password, shown once on its own line.',
      ).length,
      1,
    );
    const login = await fetch(`${serve.url}/app/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'admin', password }),
    });
    assert.equal(login.status, 200);
  });

  it('logs that ADMIN_PASSWORD is ignored on a database that already has users, and how to change a password', async () => {
    const first = keep(await ServeProcess.start());
    first.signal('SIGTERM');
    await first.exited;
    const again = keep(
      await ServeProcess.start([], { DATA_DIR: first.dataDir, ADMIN_PASSWORD: 'another-one-1' }),
    );
    const [warning] = again.lines.filter((l) => l.msg.startsWith('ADMIN_PASSWORD is ignored'));
    assert.equal(warning?.level, 40);
    assert.equal(
      warning?.msg,
      'ADMIN_PASSWORD is ignored: the database already has users. Change a password with `npx svc user:password <login>`.',
    );
  });

  it('LOG_FORMAT=pretty writes readable lines and the summary as a block', async () => {
    const serve = keep(ServeProcess.launch([], { LOG_FORMAT: 'pretty' }));
    await serve.waitForOutput(/Settings {8}environment only/);
    assert.equal(serve.lines.length, 0, 'no JSON record');
    assert.match(serve.stdout, /INFO.*: Server listening at http:\/\/127\.0\.0\.1:\d+/);
    assert.match(
      serve.stdout,
      new RegExp(`svc ${VERSION} is running\\n  Database {8}SQLite sqlite:`),
    );
    assert.match(serve.stdout, /\n {2}Admin {11}http:\/\/127\.0\.0\.1:\d+\/admin\/\n/);
    assert.match(serve.stdout, /\n {2}Real time {7}off \(REALTIME_NOTIFICATIONS=false\)\n/);
  });

  it('refuses an unknown LOG_FORMAT with a clear message', async () => {
    const serve = keep(ServeProcess.launch([], { LOG_FORMAT: 'xml' }));
    const exit = await serve.exited;
    assert.equal(exit.code, 2);
    assert.match(serve.stderr, /LOG_FORMAT must be auto, pretty or json, got "xml"/);
  });
});
