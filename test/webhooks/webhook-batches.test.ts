// Issue 34, DESIGN.md 3.10: deliveries are claimed in runs of an endpoint's oldest pending ones
// (delivery-store.ts BATCH) and still go out one at a time in seq order: a backlog longer than a
// claim arrives in order, each once, and a failure inside a claimed run holds the ones after it
// until its retry. The signing secret is stored sealed with the app's key, and a target named
// by a host name is checked on the address it resolves to. Through the real server, a real
// local receiver, on every engine.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { openSecret, sealingKeyOf, sealStoredSecrets } from '../../src/webhooks/webhook-secret.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const FAST_RETRIES = {
  WEBHOOKS_WORKER: 'true',
  WEBHOOKS_ALLOW_PRIVATE: 'true',
  WEBHOOKS_RETRY_BASE_MS: '50',
  WEBHOOKS_RETRY_MAX_MS: '200',
  WEBHOOKS_POLL_MS: '100',
};

async function createEndpoint(server: TestServer, url: string, events: string[] = ['*']) {
  const reply = await server.post('/api/webhooks', { url, events });
  assertJson(reply, 201);
  return reply.body as { id: number; secret: string };
}

interface Delivery {
  status: string;
  attempts: number;
  last_error: string | null;
}

async function until(server: TestServer, id: number, done: (list: Delivery[]) => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const reply = await server.get(`/api/webhooks/${id}/deliveries?limit=500`);
    assertJson(reply, 200);
    const list = reply.body.data as Delivery[];
    if (done(list)) return list;
    if (Date.now() > deadline) throw new Error(`Deliveries never settled: ${JSON.stringify(list)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function createTemplates(server: TestServer, count: number, prefix: string) {
  for (let i = 0; i < count; i++)
    assertJson(
      await server.post('/api/import-templates', templatePayload({ title: `${prefix} ${i}` })),
      201,
    );
}

const seqOf = (body: string) => (JSON.parse(body) as { data: { seq: number } }).data.seq;

describe('webhooks: claimed runs, sealed secrets (issue 34)', () => {
  let server: TestServer;
  const receiver = new WebhookReceiver();

  before(async () => {
    await receiver.up();
    server = await startTestServer(FAST_RETRIES);
  });
  after(async () => {
    await server?.close();
    await receiver.down();
  });

  it('a backlog longer than a claim arrives in seq order, each once; a failure inside a claimed run holds the ones after it until its retry', async () => {
    const endpoint = await createEndpoint(server, receiver.url, ['import-templates.created']);
    await receiver.down();
    await createTemplates(server, 60, 'Backlog');
    await until(server, endpoint.id, (list) => list.length === 60);
    const start = receiver.received.length;
    // The 3rd request of the first claimed run fails once.
    receiver.nextStatuses.push(200, 200, 500);
    await receiver.up();
    const settled = await until(server, endpoint.id, (list) =>
      list.every((d) => d.status === 'succeeded'),
    );
    const seqs = receiver.received.slice(start).map((r) => seqOf(r.body));
    assert.equal(seqs.length, 61, 'the failed one is sent twice, every other once');
    assert.equal(seqs[2], seqs[3], 'the failed one is sent again before any later one');
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
    );
    assert.equal(new Set(seqs).size, 60);
    // Newest first: the oldest was attempted while the receiver was down, the 3rd oldest failed
    // once, every other went at its first attempt.
    assert.ok((settled[59]?.attempts ?? 0) >= 2);
    assert.deepEqual(
      settled.slice(0, 59).map((d) => d.attempts),
      settled.slice(0, 59).map((_, i) => (i === 57 ? 2 : 1)),
    );
    assertJson(await server.delete(`/api/webhooks/${endpoint.id}`), 200);
  });

  it('stores the signing secret sealed with the app key, never as answered; one stored in plaintext before is sealed and still signs', async () => {
    const endpoint = await createEndpoint(server, receiver.url, ['import-templates.created']);
    const { db } = server.service.database;
    const stored = async () =>
      String(
        (
          await db.selectFrom('webhooks').select('secret').where('id', '=', endpoint.id).execute()
        )[0]?.secret,
      );
    const sealed = await stored();
    assert.match(sealed, /^v1\./);
    assert.equal(sealed.includes(endpoint.secret.slice('whsec_'.length)), false);
    const key = sealingKeyOf(server.service.database);
    assert.equal(openSecret(sealed, key, endpoint.id), endpoint.secret);
    // Bound to its endpoint: another endpoint's id does not open it.
    assert.throws(() => openSecret(sealed, key, endpoint.id + 1), /does not decrypt/);
    const rotated = await server.post(`/api/webhooks/${endpoint.id}/rotate-secret`);
    assertJson(rotated, 200);
    assert.equal(openSecret(await stored(), key, endpoint.id), rotated.body.data.secret);

    // As an earlier version stored it: in plaintext.
    const plain = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    await db.updateTable('webhooks').set({ secret: plain }).where('id', '=', endpoint.id).execute();
    let start = receiver.received.length;
    await createTemplates(server, 1, 'Plain');
    let [got] = (await receiver.waitFor(start + 1)).slice(start);
    assert.ok(got);
    new Webhook(plain).verify(got.body, got.headers);
    assert.equal(await sealStoredSecrets(server.service.database, key), 1);
    assert.match(await stored(), /^v1\./);
    start = receiver.received.length;
    await createTemplates(server, 1, 'Sealed again');
    [got] = (await receiver.waitFor(start + 1)).slice(start);
    assert.ok(got);
    new Webhook(plain).verify(got.body, got.headers);
    assertJson(await server.delete(`/api/webhooks/${endpoint.id}`), 200);
  });
});

describe('webhooks: a target named by a host name (issue 34)', () => {
  let server: TestServer;
  const receiver = new WebhookReceiver();

  before(async () => {
    await receiver.up();
    server = await startTestServer({ ...FAST_RETRIES, WEBHOOKS_ALLOW_PRIVATE: 'false' });
  });
  after(async () => {
    await server?.close();
    await receiver.down();
  });

  it('is checked on the address the name resolves to at the attempt: localhost is refused without WEBHOOKS_ALLOW_PRIVATE', async () => {
    const url = receiver.url.replace('127.0.0.1', 'localhost');
    const endpoint = await createEndpoint(server, url, ['import-templates.created']);
    await createTemplates(server, 1, 'Named');
    const [delivery] = await until(server, endpoint.id, (list) => (list[0]?.attempts ?? 0) >= 2);
    assert.equal(delivery?.status, 'pending');
    assert.match(delivery?.last_error ?? '', /The address (127\.0\.0\.1|::1) is not public/);
    assert.equal(receiver.received.length, 0);
  });
});
