// Every transition of SPEC.md 3 for notification records, through the helper endpoints of
// SPEC.md 4.6 and DESIGN.md 3.5, on a real server in session mode:
//   (none) -> unread   send
//   unread -> read     POST /app/notifications/{id}/read (the reader posts it when it opens one;
//                      GET /app/notifications/{id} changes nothing)
//   unread -> read     POST /app/notifications/mark-all-read (all of the caller's)
//   read   -> unread   POST /app/notifications/{id}/unread
// plus the list (newest first, paginated, meta.unread_count), and the owner rule: another user's
// id behaves as a missing one (404) and is left untouched.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { readCasts } from '../../src/model/casts.js';
import { assertJson, freshTimestamp, type Reply } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import {
  login,
  type Session,
  seedLoginUser,
  sessionRequest,
} from '../realtime/realtime-clients.js';

const NOT_FOUND = { error: 'Resource not found' };

describe('notification states and the helper endpoints', () => {
  let server: TestServer;
  let alice: Session;
  let bob: Session;
  const as = (
    session: Session | null,
    method: string,
    path: string,
    headers: Record<string, string> = {},
  ): Promise<Reply> => sessionRequest(server.url, session, method, path, undefined, headers);
  const send = async (to: number, title = 'Note') => {
    const [record] = await server.service.notifications.send({
      to,
      title,
      message: `${title} message`,
    });
    assert.ok(record);
    return record;
  };
  const readAtOf = async (id: number) =>
    readCasts.datetime(
      (
        await server.service.database.db
          .selectFrom('notifications')
          .select('read_at')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).read_at,
    );

  before(async () => {
    server = await startTestServer({}, { anonymous: true });
    await seedLoginUser(server.service.database.db, 'alice');
    await seedLoginUser(server.service.database.db, 'bob');
    alice = await login(server.url, 'alice');
    bob = await login(server.url, 'bob');
  });
  beforeEach(async () => {
    await server.service.database.db.deleteFrom('notifications').execute();
  });
  after(() => server.close());

  it('(none) -> unread: a sent notification is listed unread and counted', async () => {
    const record = await send(alice.userId);
    const list = await as(alice, 'GET', '/app/notifications');
    assertJson(list, 200, {
      data: [record],
      meta: { total: 1, per_page: 15, current_page: 1, last_page: 1, unread_count: 1 },
    });
    assert.equal(record.read_at, null);
  });

  it('unread -> read through POST /app/notifications/{id}/read; reading again keeps the first read time', async () => {
    const record = await send(alice.userId);
    await send(alice.userId, 'Other');
    const since = new Date();
    const reply = await as(alice, 'POST', `/app/notifications/${record.id}/read`);
    assertJson(reply, 200);
    const readAt = freshTimestamp(reply.body.data.read_at, since);
    assert.deepStrictEqual(reply.body, {
      data: { ...record, read_at: readAt },
      meta: { unread_count: 1 },
    });
    const again = await as(alice, 'POST', `/app/notifications/${record.id}/read`);
    assertJson(again, 200, { data: { ...record, read_at: readAt }, meta: { unread_count: 1 } });
  });

  it('GET /app/notifications/{id} returns it and leaves it unread: a GET never writes', async () => {
    const record = await send(alice.userId);
    const reply = await as(alice, 'GET', `/app/notifications/${record.id}`);
    assertJson(reply, 200, { data: record, meta: { unread_count: 1 } });
    assert.equal(await readAtOf(record.id), null);
  });

  it('marking read is a session write: POST /app/notifications/{id}/read without the CSRF token is a 419 and leaves it unread', async () => {
    const record = await send(alice.userId);
    const reply = await as(null, 'POST', `/app/notifications/${record.id}/read`, {
      cookie: alice.cookie,
    });
    assertJson(reply, 419, { message: 'CSRF token mismatch.' });
    assert.equal(await readAtOf(record.id), null);
  });

  it('unread -> read for all of the caller’s notifications through mark-all-read, no one else’s', async () => {
    const mine = [
      await send(alice.userId, 'a'),
      await send(alice.userId, 'b'),
      await send(alice.userId, 'c'),
    ];
    await as(alice, 'POST', `/app/notifications/${mine[0]?.id}/read`);
    const bobs = await send(bob.userId);
    const reply = await as(alice, 'POST', '/app/notifications/mark-all-read');
    assertJson(reply, 200, { marked: 2, meta: { unread_count: 0 } });
    for (const record of mine) assert.notEqual(await readAtOf(record.id), null);
    assert.equal(await readAtOf(bobs.id), null, 'Bob’s stays unread');
    assertJson(await as(alice, 'POST', '/app/notifications/mark-all-read'), 200, {
      marked: 0,
      meta: { unread_count: 0 },
    });
  });

  it('read -> unread through POST /app/notifications/{id}/unread', async () => {
    const record = await send(alice.userId);
    await as(alice, 'POST', `/app/notifications/${record.id}/read`);
    const reply = await as(alice, 'POST', `/app/notifications/${record.id}/unread`);
    assertJson(reply, 200, { data: { ...record, read_at: null }, meta: { unread_count: 1 } });
    assert.equal(await readAtOf(record.id), null);
    assertJson(await as(alice, 'POST', `/app/notifications/${record.id}/unread`), 200, {
      data: { ...record, read_at: null },
      meta: { unread_count: 1 },
    });
  });

  it('answers 404 for another user’s notification on every endpoint and leaves it as it was', async () => {
    const bobs = await send(bob.userId);
    for (const [method, path] of [
      ['GET', `/app/notifications/${bobs.id}`],
      ['POST', `/app/notifications/${bobs.id}/read`],
    ] as const) {
      assertJson(await as(alice, method, path), 404, NOT_FOUND);
    }
    assert.equal(await readAtOf(bobs.id), null);
    await as(bob, 'POST', `/app/notifications/${bobs.id}/read`);
    const readAt = await readAtOf(bobs.id);
    assertJson(await as(alice, 'POST', `/app/notifications/${bobs.id}/unread`), 404, NOT_FOUND);
    assert.equal(await readAtOf(bobs.id), readAt);
    const list = await as(alice, 'GET', '/app/notifications');
    assertJson(list, 200, {
      data: [],
      meta: { total: 0, per_page: 15, current_page: 1, last_page: 1, unread_count: 0 },
    });
  });

  for (const id of ['999999', 'abc', '1.5', '-1', '0x10']) {
    it(`answers 404 for id ${id}`, async () => {
      assertJson(await as(alice, 'GET', `/app/notifications/${id}`), 404, NOT_FOUND);
      assertJson(await as(alice, 'POST', `/app/notifications/${id}/read`), 404, NOT_FOUND);
      assertJson(await as(alice, 'POST', `/app/notifications/${id}/unread`), 404, NOT_FOUND);
    });
  }

  it('lists newest first, paginated like a resource list', async () => {
    const records = [];
    for (let i = 1; i <= 5; i++) records.push(await send(alice.userId, `n${i}`));
    await as(alice, 'POST', `/app/notifications/${records[0]?.id}/read`);
    const page = await as(alice, 'GET', '/app/notifications?per_page=2&page=2');
    assertJson(page, 200);
    assert.deepStrictEqual(
      page.body.data.map((r: { data: { title: string } }) => r.data.title),
      ['n3', 'n2'],
    );
    assert.deepStrictEqual(page.body.meta, {
      total: 5,
      per_page: 2,
      current_page: 2,
      last_page: 3,
      unread_count: 4,
    });
    const beyond = await as(alice, 'GET', '/app/notifications?per_page=2&page=9');
    assertJson(beyond, 200, {
      data: [],
      meta: { total: 5, per_page: 2, current_page: 9, last_page: 3, unread_count: 4 },
    });
    const capped = await as(alice, 'GET', '/app/notifications?per_page=500');
    assert.equal(capped.body.meta.per_page, 200);
  });

  it('answers 401 without a session, also to a bearer token, on every endpoint', async () => {
    const record = await send(alice.userId);
    for (const [method, path] of [
      ['GET', '/app/notifications'],
      ['GET', `/app/notifications/${record.id}`],
      ['POST', `/app/notifications/${record.id}/read`],
      ['POST', `/app/notifications/${record.id}/unread`],
      ['POST', '/app/notifications/mark-all-read'],
    ] as const) {
      assertJson(await as(null, method, path), 401, { message: 'Unauthenticated.' });
      assertJson(await as(null, method, path, { authorization: 'Bearer svc_api_x' }), 401, {
        message: 'Unauthenticated.',
      });
    }
    assert.equal(await readAtOf(record.id), null);
  });

  it('answers 419 to the writes without the CSRF header', async () => {
    const record = await send(alice.userId);
    for (const path of [
      `/app/notifications/${record.id}/read`,
      `/app/notifications/${record.id}/unread`,
      '/app/notifications/mark-all-read',
    ]) {
      assertJson(await as(null, 'POST', path, { cookie: alice.cookie }), 419, {
        message: 'CSRF token mismatch.',
      });
    }
    assert.equal(await readAtOf(record.id), null);
  });
});
