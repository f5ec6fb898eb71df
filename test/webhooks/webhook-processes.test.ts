// Issue 34, DESIGN.md 3.10, with real `svc serve` processes: a kill -9 while a delivery is under
// way loses nothing (its claim runs out and it is attempted again after the restart, under the
// same webhook-id), and two instances over one PostgreSQL or MariaDB database deliver each change
// once (claimed, not broadcast).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { testEngine } from '../helpers/engines.js';
import { ServeProcess } from '../helpers/serve-process.js';
import { type ServedDatabase, servedDatabase } from '../helpers/served-database.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const DELIVERING = {
  WEBHOOKS_ALLOW_PRIVATE: 'true',
  WEBHOOKS_POLL_MS: '100',
  WEBHOOKS_RETRY_BASE_MS: '50',
  WEBHOOKS_RETRY_MAX_MS: '200',
};

/**
 * What each suite below stands on: delivering `svc serve` processes over one fresh database, and
 * a receiver; the suite's after() ends them, drops the database and removes the DATA_DIR.
 */
function processes(prefix: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const servers: ServeProcess[] = [];
  const receiver = new WebhookReceiver();
  let served: ServedDatabase | null = null;

  after(async () => {
    for (const server of servers) if (!server.child.signalCode) await server.dispose();
    await receiver.down();
    await served?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  return {
    receiver,
    /** The database, a token of the admin for webhooks and templates, the receiver listening. */
    async setUp(): Promise<ServedDatabase> {
      served = await servedDatabase(dataDir, {
        name: 'webhooks',
        abilities: ['import-templates.write', 'webhooks.read', 'webhooks.write'],
      });
      await receiver.up();
      return served;
    },
    /** `svc serve` over that database, delivering. */
    async start(): Promise<ServeProcess> {
      const server = await ServeProcess.start([], { ...served?.storage, ...DELIVERING });
      servers.push(server);
      return server;
    },
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
  const { receiver, setUp, start } = processes('svc-webhooks-');

  it('kill -9 while a delivery is under way loses nothing: after the restart every change arrives, in seq order, the cut one again under its webhook-id', async () => {
    const setup = await setUp();
    receiver.hold = true;
    const first = await start();
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

    const second = await start();
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
  const { receiver, setUp, start } = processes('svc-webhooks-two-');

  it('two instances deliver each change once, each endpoint in seq order', async () => {
    const setup = await setUp();
    const a = await start();
    const b = await start();
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
