// Issue 34, DESIGN.md 3.10, with real `svc serve` processes: a kill -9 while a delivery is under
// way loses nothing (its claim runs out and it is attempted again after the restart, under the
// same webhook-id), and two instances over one PostgreSQL or MariaDB database deliver each change
// once (claimed, not broadcast).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { bearer } from '../helpers/bearer.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, testEngine } from '../helpers/engines.js';
import { httpRequest, type Reply } from '../helpers/http.js';
import { ServeProcess } from '../helpers/serve-process.js';
import { ADMIN_PASSWORD } from '../helpers/test-server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const DELIVERING = {
  WEBHOOKS_ALLOW_PRIVATE: 'true',
  WEBHOOKS_POLL_MS: '100',
  WEBHOOKS_RETRY_BASE_MS: '50',
  WEBHOOKS_RETRY_MAX_MS: '200',
};

interface Setup {
  storage: Record<string, string>;
  send: (url: string, method: string, target: string, body?: unknown) => Promise<Reply>;
  drop: () => Promise<void>;
}

/** A fresh database and DATA_DIR, and a token of the admin for webhooks and templates. */
async function setUp(dataDir: string): Promise<Setup> {
  const database = await createTestDatabase(testEngine);
  const storage: Record<string, string> = {
    DATA_DIR: dataDir,
    ADMIN_PASSWORD,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
  };
  const env: NodeJS.ProcessEnv = { ...process.env, ...storage, LOG_LEVEL: 'silent' };
  if (!database.url) delete env.DATABASE_URL;
  const issued = await runCli(env, [
    'token:create',
    'admin',
    'Main',
    '--name=webhooks',
    '--abilities=import-templates.write,webhooks.read,webhooks.write',
  ]);
  assert.equal(issued.code, 0, issued.stderr);
  const auth = bearer(issued.stdout.trim());
  return {
    storage,
    send: (url, method, target, body) =>
      httpRequest(url, method, target, { headers: auth, ...(body === undefined ? {} : { body }) }),
    drop: () => database.drop(),
  };
}

const template = (title: string) => ({ title, database_name: 'erp', mapping_json: '{}' });
const dataOf = (body: string) => JSON.parse(body).data as { seq: number; id: number };

async function eventually(what: string, done: () => boolean, ms = 40_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('webhooks across processes (issue 34)', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-webhooks-'));
  const servers: ServeProcess[] = [];
  const receiver = new WebhookReceiver();
  let drop = async () => {};

  after(async () => {
    for (const server of servers) if (!server.child.signalCode) await server.dispose();
    await receiver.down();
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('kill -9 while a delivery is under way loses nothing: after the restart every change arrives, in seq order, the cut one again under its webhook-id', async () => {
    const setup = await setUp(dataDir);
    drop = setup.drop;
    await receiver.up();
    receiver.hold = true;
    const first = await ServeProcess.start([], { ...setup.storage, ...DELIVERING });
    servers.push(first);
    const hook = await setup.send(first.url, 'POST', '/api/webhooks', {
      url: receiver.url,
      events: ['import-templates.created'],
    });
    assert.equal(hook.status, 201, hook.text);
    const ids: number[] = [];
    for (let n = 0; n < 5; n++) {
      const created = await setup.send(
        first.url,
        'POST',
        '/api/import-templates',
        template(`kill ${n}`),
      );
      assert.equal(created.status, 201, created.text);
      ids.push(created.body.id as number);
    }
    // The first delivery is under way (the receiver holds it): the process dies meanwhile.
    await receiver.waitFor(1);
    first.signal('SIGKILL');
    await first.exited;
    const cut = receiver.received[0];
    assert.ok(cut);
    receiver.hold = false;
    await receiver.down();
    await receiver.up();

    const second = await ServeProcess.start([], { ...setup.storage, ...DELIVERING });
    servers.push(second);
    await eventually('every template delivered', () => {
      const delivered = new Set(receiver.received.map((r) => dataOf(r.body).id));
      return ids.every((id) => delivered.has(id));
    });
    const after = receiver.received.slice(1);
    const seqs = after.map((r) => dataOf(r.body).seq);
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
      'in seq order',
    );
    assert.deepEqual(
      after.map((r) => dataOf(r.body).id),
      ids,
      'each template once after the restart',
    );
    assert.equal(after[0]?.headers['webhook-id'], cut.headers['webhook-id']);
    const list = await setup.send(second.url, 'GET', `/api/webhooks/${hook.body.id}/deliveries`);
    const cutDelivery = (list.body.data as Array<{ attempts: number; status: string }>).at(-1);
    assert.equal(cutDelivery?.status, 'succeeded');
    assert.equal(cutDelivery?.attempts, 2);
  });
});

describe('webhooks with two instances over one database (issue 34)', {
  skip: testEngine === 'sqlite' ? 'SQLite is served by one process' : false,
}, () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-webhooks-two-'));
  const servers: ServeProcess[] = [];
  const receiver = new WebhookReceiver();
  let drop = async () => {};

  after(async () => {
    for (const server of servers) if (!server.child.signalCode) await server.dispose();
    await receiver.down();
    await drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('two instances deliver each change once, each endpoint in seq order', async () => {
    const setup = await setUp(dataDir);
    drop = setup.drop;
    await receiver.up();
    const a = await ServeProcess.start([], { ...setup.storage, ...DELIVERING });
    const b = await ServeProcess.start([], { ...setup.storage, ...DELIVERING });
    servers.push(a, b);
    const hooks: number[] = [];
    for (let n = 0; n < 3; n++) {
      const hook = await setup.send(a.url, 'POST', '/api/webhooks', {
        url: `${receiver.url}?endpoint=${n}`,
        events: ['import-templates.*'],
      });
      assert.equal(hook.status, 201, hook.text);
      hooks.push(hook.body.id as number);
    }
    const WRITES = 40;
    await Promise.all(
      Array.from({ length: WRITES }, (_, n) =>
        setup
          .send(n % 2 ? a.url : b.url, 'POST', '/api/import-templates', template(`two ${n}`))
          .then((reply) => assert.equal(reply.status, 201, reply.text)),
      ),
    );
    await eventually('every delivery', () => receiver.received.length >= WRITES * hooks.length);
    // Time for a duplicate to show.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(receiver.received.length, WRITES * hooks.length);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    assert.equal(new Set(ids).size, ids.length, 'a webhook-id twice');
    for (let n = 0; n < hooks.length; n++) {
      const seqs = receiver.received
        .filter((r) => r.url.endsWith(`?endpoint=${n}`))
        .map((r) => dataOf(r.body).seq);
      assert.equal(seqs.length, WRITES, `endpoint ${n}`);
      assert.deepEqual(
        seqs,
        [...seqs].sort((x, y) => x - y),
        `endpoint ${n} in seq order`,
      );
    }
  });
});
