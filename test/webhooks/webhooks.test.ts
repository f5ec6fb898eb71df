// Issue 34, DESIGN.md 3.10: webhook endpoints as the admin-only resource /api/webhooks, and the
// deliveries of the change log to them: signed per Standard Webhooks (verified with the
// `standardwebhooks` package as a receiver would), retried until the receiver is back, in seq
// order, dead after the retry window and replayed; a private target refused without
// WEBHOOKS_ALLOW_PRIVATE. Through the real server and a real local receiver, on every engine.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { bearer, seedIdentity } from '../helpers/bearer.js';
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

interface Delivery {
  id: number;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
}

async function createEndpoint(server: TestServer, url: string, events: string[] = ['*']) {
  const reply = await server.post('/api/webhooks', { url, events, description: 'test' });
  assertJson(reply, 201);
  return reply.body as { id: number; secret: string };
}

async function deliveries(server: TestServer, id: number, query = ''): Promise<Delivery[]> {
  const reply = await server.get(`/api/webhooks/${id}/deliveries${query}`);
  assertJson(reply, 200);
  return reply.body.data as Delivery[];
}

/** Polls the deliveries of `id` until `done` holds of them. */
async function until(server: TestServer, id: number, done: (list: Delivery[]) => boolean) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const list = await deliveries(server, id);
    if (done(list)) return list;
    if (Date.now() > deadline) throw new Error(`Deliveries never settled: ${JSON.stringify(list)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function createTemplates(server: TestServer, titles: string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const title of titles) {
    const reply = await server.post('/api/import-templates', templatePayload({ title }));
    assertJson(reply, 201);
    ids.push(reply.body.id as number);
  }
  return ids;
}

const bodyOf = (text: string) =>
  JSON.parse(text) as {
    type: string;
    timestamp: string;
    data: { seq: number; id: number; resource: string; action: string };
  };

describe('webhooks (issue 34, DESIGN.md 3.10)', () => {
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

  it('a create answers the whsec_ secret once: show, list and update never answer it; rotation answers a new one', async () => {
    const created = await createEndpoint(server, 'https://example.com/hook', [
      'import-templates.*',
    ]);
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const shown = await server.get(`/api/webhooks/${created.id}`);
    assertJson(shown, 200);
    assert.equal('secret' in shown.body, false);
    assert.deepEqual(shown.body.events, ['import-templates.*']);
    const listed = await server.get('/api/webhooks');
    assert.equal(listed.text.includes('whsec_'), false);
    const updated = await server.patch(`/api/webhooks/${created.id}`, { active: 'N' });
    assertJson(updated, 200);
    assert.equal(updated.text.includes('whsec_'), false);
    const rotated = await server.post(`/api/webhooks/${created.id}/rotate-secret`);
    assertJson(rotated, 200);
    assert.match(rotated.body.data.secret, /^whsec_/);
    assert.notEqual(rotated.body.data.secret, created.secret);
    assertJson(await server.delete(`/api/webhooks/${created.id}`), 200);
  });

  it('an unknown resource or action among the events, or a URL that is not http(s), is a 422 that stores nothing', async () => {
    const before = (await server.get('/api/webhooks')).body.meta.total;
    for (const body of [
      { url: 'https://example.com/a', events: ['nothing.created'] },
      { url: 'https://example.com/a', events: ['import-templates.renamed'] },
      { url: 'https://example.com/a', events: [] },
      { url: 'ftp://example.com/a', events: ['*'] },
      { url: 'not a url', events: ['*'] },
    ]) {
      const reply = await server.post('/api/webhooks', body);
      assertJson(reply, 422);
    }
    assert.equal((await server.get('/api/webhooks')).body.meta.total, before);
  });

  it('a delivery is signed per Standard Webhooks: the standardwebhooks package verifies it, and its body is {type, timestamp, data: the change}', async () => {
    const endpoint = await createEndpoint(server, receiver.url, ['import-templates.created']);
    const start = receiver.received.length;
    const [id] = await createTemplates(server, ['Signed']);
    const [got] = (await receiver.waitFor(start + 1)).slice(start);
    assert.ok(got);
    const verified = new Webhook(endpoint.secret).verify(got.body, got.headers) as ReturnType<
      typeof bodyOf
    >;
    assert.equal(verified.type, 'import-templates.created');
    assert.equal(verified.data.id, id);
    assert.equal(verified.data.action, 'created');
    assert.match(got.headers['webhook-id'] ?? '', /^msg_\d+$/);
    const feed = await server.get(`/api/import-templates/changes?after=${verified.data.seq - 1}`);
    assert.deepEqual(feed.body.data[0], verified.data);
    // A wrong secret does not verify.
    assert.throws(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got.body, got.headers),
    );
    const [delivery] = await until(server, endpoint.id, (list) => list[0]?.status === 'succeeded');
    assert.equal(delivery?.attempts, 1);
    assert.equal(delivery?.last_status, 200);
    assert.equal(typeof delivery?.last_duration_ms, 'number');
    assertJson(await server.delete(`/api/webhooks/${endpoint.id}`), 200);
  });

  it('a receiver down for a while gets every change once it is back, each once, in seq order', async () => {
    const endpoint = await createEndpoint(server, receiver.url, ['import-templates.*']);
    await receiver.down();
    await createTemplates(server, ['Down 1', 'Down 2', 'Down 3', 'Down 4']);
    await until(
      server,
      endpoint.id,
      (list) => list.length === 4 && list.some((d) => d.attempts >= 2),
    );
    const start = receiver.received.length;
    await receiver.up();
    await until(server, endpoint.id, (list) => list.every((d) => d.status === 'succeeded'));
    const got = receiver.received.slice(start).map((r) => bodyOf(r.body));
    assert.deepEqual(
      got.map((b) => b.data.resource),
      ['import-templates', 'import-templates', 'import-templates', 'import-templates'],
    );
    const seqs = got.map((b) => b.data.seq);
    assert.deepEqual(
      seqs,
      [...seqs].sort((a, b) => a - b),
    );
    assert.equal(new Set(seqs).size, 4);
    assertJson(await server.delete(`/api/webhooks/${endpoint.id}`), 200);
  });

  it("without TENANT_ISOLATION an endpoint receives every company's changes: only isolation keeps it to its creator's company", async () => {
    // A receiver of its own: the endpoints of the tests above still deliver to theirs.
    const own = new WebhookReceiver();
    await own.up();
    try {
      const other = await seedIdentity(server, 'other-co', {
        abilities: ['import-templates.read', 'import-templates.write'],
      });
      await createEndpoint(server, own.url, ['import-templates.created']);
      const [ours] = await createTemplates(server, ['Ours']);
      const theirs = await server.post(
        '/api/import-templates',
        templatePayload({ title: 'Theirs' }),
        { headers: bearer(other.token) },
      );
      assertJson(theirs, 201);
      await own.waitFor(2);
      assert.deepEqual(
        own.received.map((r) => bodyOf(r.body).data.id),
        [ours, theirs.body.id],
      );
    } finally {
      await own.down();
    }
  });
});

describe('webhooks: dead deliveries and replay (issue 34)', () => {
  let server: TestServer;
  const receiver = new WebhookReceiver();

  before(async () => {
    await receiver.up();
    server = await startTestServer({ ...FAST_RETRIES, WEBHOOKS_RETRY_FOR_SECONDS: '1' });
  });
  after(async () => {
    await server?.close();
    await receiver.down();
  });

  it('a receiver answering 500 past the retry window ends in dead deliveries, listed with their attempts, that replay once it is fixed', async () => {
    receiver.status = 500;
    const endpoint = await createEndpoint(server, receiver.url, ['import-templates.created']);
    await createTemplates(server, ['Dead 1', 'Dead 2']);
    const dead = await until(
      server,
      endpoint.id,
      (list) => list.length === 2 && list.every((d) => d.status === 'dead'),
    );
    for (const delivery of dead) {
      assert.ok(delivery.attempts >= 2, `attempts ${delivery.attempts}`);
      assert.equal(delivery.last_status, 500);
      assert.equal(delivery.next_attempt_at, null);
    }
    receiver.status = 200;
    const start = receiver.received.length;
    const [first, second] = dead;
    const one = await server.post(`/api/webhooks/${endpoint.id}/deliveries/${first?.id}/replay`);
    assertJson(one, 202);
    await until(
      server,
      endpoint.id,
      (list) => list.find((d) => d.id === first?.id)?.status === 'succeeded',
    );
    assert.equal((await deliveries(server, endpoint.id, '?status=dead')).length, 1);
    const all = await server.post(`/api/webhooks/${endpoint.id}/deliveries/replay-dead`);
    assertJson(all, 202);
    assert.equal(all.body.replayed, 1);
    await until(server, endpoint.id, (list) => list.every((d) => d.status === 'succeeded'));
    assert.equal(receiver.received.length - start, 2);
    assert.ok(second);
  });
});

describe('webhooks: private targets (issue 34)', () => {
  let server: TestServer;
  const receiver = new WebhookReceiver();

  before(async () => {
    await receiver.up();
    server = await startTestServer({
      WEBHOOKS_WORKER: 'true',
      WEBHOOKS_POLL_MS: '100',
      WEBHOOKS_RETRY_BASE_MS: '50',
    });
  });
  after(async () => {
    await server?.close();
    await receiver.down();
  });

  it('a target on 127.0.0.1 is refused without WEBHOOKS_ALLOW_PRIVATE: nothing is sent, the delivery says why', async () => {
    const endpoint = await createEndpoint(server, receiver.url, ['import-templates.created']);
    await createTemplates(server, ['Private']);
    const [delivery] = await until(server, endpoint.id, (list) => (list[0]?.attempts ?? 0) >= 2);
    assert.equal(delivery?.status, 'pending');
    assert.equal(delivery?.last_status, null);
    assert.match(delivery?.last_error ?? '', /127\.0\.0\.1 is not public/);
    assert.equal(receiver.received.length, 0);
  });
});

describe('webhooks: the delivery log is kept WEBHOOKS_DELIVERY_RETENTION_DAYS (issue 34)', () => {
  let server: TestServer;
  const receiver = new WebhookReceiver();
  let now = Date.now();

  before(async () => {
    await receiver.up();
    server = await startTestServer(
      { ...FAST_RETRIES, WEBHOOKS_DELIVERY_RETENTION_DAYS: '30' },
      { clock: () => now },
    );
  });
  after(async () => {
    await server?.close();
    await receiver.down();
  });

  it('a succeeded delivery is deleted once it is older than the retention; a newer one stays', async () => {
    const endpoint = await createEndpoint(server, receiver.url, ['import-templates.created']);
    await createTemplates(server, ['Kept a while']);
    const [old] = await until(server, endpoint.id, (list) => list[0]?.status === 'succeeded');
    now += 29 * 24 * 60 * 60 * 1000;
    await createTemplates(server, ['Newer']);
    await until(
      server,
      endpoint.id,
      (list) => list.length === 2 && list.every((d) => d.status === 'succeeded'),
    );
    now += 2 * 24 * 60 * 60 * 1000;
    const kept = await until(server, endpoint.id, (list) => list.length === 1);
    assert.notEqual(kept[0]?.id, old?.id);
  });
});

describe('webhooks with TENANT_ISOLATION=true (issue 34)', () => {
  let server: TestServer;
  const mine = new WebhookReceiver();
  const theirs = new WebhookReceiver();

  before(async () => {
    await mine.up();
    await theirs.up();
    server = await startTestServer({ ...FAST_RETRIES, TENANT_ISOLATION: 'true' });
  });
  after(async () => {
    await server?.close();
    await mine.down();
    await theirs.down();
  });

  it("an endpoint receives only its creator's company's changes, and another company's admin neither sees nor replays it", async () => {
    const other = await seedIdentity(server, 'other-co', {
      admin: 'Y',
      abilities: ['import-templates.write', 'webhooks.read', 'webhooks.write'],
    });
    const otherAuth = bearer(other.token);
    const ours = await createEndpoint(server, mine.url, ['import-templates.created']);
    const made = await server.post(
      '/api/webhooks',
      { url: theirs.url, events: ['import-templates.created'] },
      { headers: otherAuth },
    );
    assertJson(made, 201);
    const [ourTemplate] = await createTemplates(server, ['Ours']);
    const theirTemplate = await server.post(
      '/api/import-templates',
      templatePayload({ title: 'Theirs' }),
      {
        headers: otherAuth,
      },
    );
    assertJson(theirTemplate, 201);
    await mine.waitFor(1);
    await theirs.waitFor(1);
    // Time for a stray delivery to show.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(
      mine.received.map((r) => bodyOf(r.body).data.id),
      [ourTemplate],
    );
    assert.deepEqual(
      theirs.received.map((r) => bodyOf(r.body).data.id),
      [theirTemplate.body.id],
    );
    assertJson(
      await server.get(`/api/webhooks/${ours.id}/deliveries`, { headers: otherAuth }),
      404,
    );
    assertJson(
      await server.post(`/api/webhooks/${ours.id}/rotate-secret`, {}, { headers: otherAuth }),
      404,
    );
  });
});
