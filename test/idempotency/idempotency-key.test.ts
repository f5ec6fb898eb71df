// Idempotent creates (issue 21 item 4, docs/api.md "Idempotent creates"), on every engine
// through the real server: a retry replays the stored answer, another body is a 422, a key still
// held is a 409, concurrent creates with one key make one record, failures free the key, keys
// belong to their caller and expire.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { grantableAbilities } from '../../src/app/routes.js';
import { createToken } from '../../src/auth/tokens/token-service.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';

describe('idempotent creates: Idempotency-Key on POST', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ DB_POOL_SIZE: '8', IDEMPOTENCY_KEY_TTL_SECONDS: '2' });
  });
  after(() => server.close());

  const keyed = (key: string, body: unknown, headers: Record<string, string> = {}) =>
    server.post(PATH, body, { headers: { 'idempotency-key': key, ...headers } });
  const stored = async (title: string) =>
    (
      await server.service.database.db
        .selectFrom('import_templates')
        .select('id')
        .where('title', '=', title)
        .execute()
    ).length;
  const keyRow = (key: string) =>
    server.service.database.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('idempotency_key', '=', key)
      .execute();

  it('a retry with the same key and body replays the stored answer (same status and body, Idempotent-Replayed: true) and creates nothing', async () => {
    const body = templatePayload({ title: 'Once' });
    const first = await keyed('retry-1', body);
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    // Key order aside, the same body.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const retry = await keyed('retry-1', reordered);
    assert.equal(retry.status, 201);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(retry.text, first.text);
    assert.equal(retry.headers.get('etag'), first.headers.get('etag'));
    assert.equal(await stored('Once'), 1);
  });

  it('the same key with another body is a 422 under Idempotency-Key and creates nothing', async () => {
    assert.equal((await keyed('other-body', templatePayload({ title: 'First body' }))).status, 201);
    const reply = await keyed('other-body', templatePayload({ title: 'Second body' }));
    assert.equal(reply.status, 422, reply.text);
    assert.deepEqual(reply.body, {
      message: 'This Idempotency-Key was already used with another request body.',
      errors: {
        'Idempotency-Key': ['This Idempotency-Key was already used with another request body.'],
      },
    });
    assert.equal(await stored('Second body'), 0);
  });

  it('a key of more than 255 characters (or empty, or not printable ASCII) is a 422 and creates nothing; 255 is accepted', async () => {
    const message = 'The Idempotency-Key header must have 1 to 255 characters, printable ASCII.';
    for (const key of ['k'.repeat(256), '', 'tab\there']) {
      const reply = await keyed(key, templatePayload({ title: 'Bad key' }));
      assert.equal(reply.status, 422, `${JSON.stringify(key)}: ${reply.text}`);
      assert.deepEqual(reply.body, { message, errors: { 'Idempotency-Key': [message] } });
    }
    assert.equal(await stored('Bad key'), 0);
    const longest = await keyed('k'.repeat(255), templatePayload({ title: 'Long key' }));
    assert.equal(longest.status, 201, longest.text);
  });

  it('a create that fails validation stores no key: a corrected retry with the same key creates', async () => {
    const invalid = await keyed('corrected', templatePayload({ title: '' }));
    assert.equal(invalid.status, 422);
    assert.deepEqual(await keyRow('corrected'), []);
    const corrected = await keyed('corrected', templatePayload({ title: 'Corrected' }));
    assert.equal(corrected.status, 201, corrected.text);
    assert.equal(corrected.headers.get('idempotent-replayed'), null);
    assert.equal(await stored('Corrected'), 1);
  });

  it('a retry while the first request still holds the key is a 409 with Retry-After; a claim older than 60 s is taken over', async () => {
    const body = templatePayload({ title: 'Held' });
    const { db } = server.service.database;
    // The claim a running first request holds (its instance may be another one).
    const first = await keyed('held', body);
    assert.equal(first.status, 201);
    await db
      .updateTable('idempotency_keys')
      .set({ claim: 'someone-else', claimed_at: Date.now(), status: null, answer: null })
      .where('idempotency_key', '=', 'held')
      .execute();
    const running = await keyed('held', body);
    assert.equal(running.status, 409, running.text);
    assert.deepEqual(running.body, {
      message: 'A request with this Idempotency-Key is still being processed. Retry shortly.',
    });
    assert.equal(running.headers.get('retry-after'), '1');
    await db
      .updateTable('idempotency_keys')
      .set({ claimed_at: Date.now() - 61_000 })
      .where('idempotency_key', '=', 'held')
      .execute();
    const takenOver = await keyed('held', body);
    assert.equal(takenOver.status, 201, takenOver.text);
    assert.equal(takenOver.headers.get('idempotent-replayed'), null);
  });

  it('concurrent creates with one key make exactly one record: one 201, the others 409 or its replay', async () => {
    for (let round = 0; round < 3; round += 1) {
      const title = `Concurrent ${round}`;
      const body = templatePayload({ title });
      const replies = await Promise.all(
        Array.from({ length: 4 }, () => keyed(`concurrent-${round}`, body)),
      );
      const fresh = replies.filter(
        (r) => r.status === 201 && r.headers.get('idempotent-replayed') === null,
      );
      assert.equal(fresh.length, 1, replies.map((r) => `${r.status} ${r.text}`).join('\n'));
      for (const reply of replies) {
        if (reply === fresh[0]) continue;
        if (reply.status === 201) {
          assert.equal(reply.headers.get('idempotent-replayed'), 'true');
          assert.equal(reply.text, fresh[0]?.text);
        } else assert.equal(reply.status, 409, reply.text);
      }
      assert.equal(await stored(title), 1);
    }
  });

  it('keys belong to their caller: another token with the same key and body creates its own record', async () => {
    const body = templatePayload({ title: 'Per caller' });
    assert.equal((await keyed('shared-key', body)).status, 201);
    const { token } = await createToken(server.service.database, grantableAbilities(), {
      userId: 1,
      unitId: 1,
      name: 'second token',
      abilities: grantableAbilities(),
      expiresAt: null,
    });
    const other = await keyed('shared-key', body, { authorization: `Bearer ${token}` });
    assert.equal(other.status, 201, other.text);
    assert.equal(other.headers.get('idempotent-replayed'), null);
    assert.equal(await stored('Per caller'), 2);
  });

  it('a key expires after IDEMPOTENCY_KEY_TTL_SECONDS: the same key creates again', async () => {
    const body = templatePayload({ title: 'Expiring' });
    assert.equal((await keyed('expiring', body)).status, 201);
    assert.equal((await keyed('expiring', body)).headers.get('idempotent-replayed'), 'true');
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const again = await keyed('expiring', body);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), null);
    assert.equal(await stored('Expiring'), 2);
    assert.equal((await keyRow('expiring')).length, 1);
  });

  it('a keyed create costs three statements more than an unkeyed one (read, claim, store the answer); a replay reads the key alone', async () => {
    // The first keyed create of the process also deletes the expired keys (once a minute).
    await keyed('warm-up', templatePayload({ title: 'Warm-up' }));
    const cost = async (send: () => Promise<{ status: number }>) => {
      const { value: reply, statements } = await server.counted(send);
      assert.equal(reply.status, 201);
      return statements;
    };
    const plain = await cost(() => server.post(PATH, templatePayload({ title: 'Plain cost' })));
    const body = templatePayload({ title: 'Keyed cost' });
    const first = await cost(() => keyed('cost', body));
    const replay = await cost(() => keyed('cost', body));
    // A replay: the token check and the key's read, nothing else.
    assert.deepEqual({ extra: first - plain, replay }, { extra: 3, replay: 2 });
  });

  it('without the header two identical creates make two records, as before', async () => {
    const body = templatePayload({ title: 'Unkeyed' });
    const replies = [await server.post(PATH, body), await server.post(PATH, body)];
    for (const reply of replies) {
      assert.equal(reply.status, 201);
      assert.equal(reply.headers.get('idempotent-replayed'), null);
    }
    assert.equal(await stored('Unkeyed'), 2);
  });
});
