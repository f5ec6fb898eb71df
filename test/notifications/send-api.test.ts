// The send API of SPEC.md 6 (DESIGN.md 3.6): the TypeScript function and POST /api/notifications.
// One record per recipient, all in one transaction, returned as created; recipients as one id, a
// list or a user; the sender defaults to the acting user; at most one action of three kinds;
// Laravel-worded 422s, after which nothing is stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { grantableAbilities } from '../../src/app/routes.js';
import { HttpError } from '../../src/errors.js';
import { readCasts } from '../../src/model/casts.js';
import type { NotificationInput } from '../../src/notifications/notification-input.js';
import { assertBearer401, bearer, issue } from '../helpers/bearer.js';
import { assertJson, freshTimestamp } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import {
  login,
  type Session,
  seedLoginUser,
  sessionRequest,
} from '../realtime/realtime-clients.js';

describe('sending notifications: the TypeScript function', () => {
  let server: TestServer;
  let alice: number;
  let bob: number;
  const count = async () =>
    Number(
      (
        await server.service.database.db
          .selectFrom('notifications')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst()
      )?.n,
    );
  const send = (input: unknown, actingUserId: number | null = null) =>
    server.service.notifications.sendUntyped(input, { actingUserId });

  /** Asserts the call is refused with exactly these errors and that nothing was stored. */
  async function refused(input: unknown, errors: Record<string, string[]>): Promise<void> {
    const before = await count();
    await assert.rejects(send(input), (error: unknown) => {
      assert.ok(error instanceof HttpError, String(error));
      assert.equal(error.status, 422);
      assert.deepStrictEqual(error.body.errors, errors);
      return true;
    });
    assert.equal(await count(), before, 'nothing stored');
  }

  before(async () => {
    server = await startTestServer({}, { anonymous: true });
    alice = await seedLoginUser(server.service.database.db, 'alice');
    bob = await seedLoginUser(server.service.database.db, 'bob');
  });
  after(() => server.close());

  it('creates one unread record for one recipient id and returns it', async () => {
    const since = new Date();
    const input: NotificationInput = { to: alice, title: 'Hello', message: 'First one' };
    const [record, ...rest] = await server.service.notifications.send(input);
    assert.deepStrictEqual(rest, []);
    assert.ok(record);
    freshTimestamp(record.created_at, since);
    assert.deepStrictEqual(record, {
      id: record.id,
      user_to_id: alice,
      user_from_id: null,
      type: 'generic',
      data: { title: 'Hello', message: 'First one', icon: 'bell', level: 'info' },
      action: null,
      read_at: null,
      created_at: record.created_at,
    });
    const stored = await server.service.database.db
      .selectFrom('notifications')
      .selectAll()
      .where('id', '=', record.id)
      .executeTakeFirstOrThrow();
    assert.deepStrictEqual(readCasts.json(stored.data), record.data);
  });

  it('creates one record per recipient of a list, in order, a repeated id counting once', async () => {
    const records = await server.service.notifications.send({
      to: [bob, alice, bob],
      title: 'All',
      message: 'to all',
    });
    assert.deepStrictEqual(
      records.map((r) => r.user_to_id),
      [bob, alice],
    );
    assert.ok((records[0]?.id ?? 0) < (records[1]?.id ?? 0));
    assert.equal(records[0]?.created_at, records[1]?.created_at);
  });

  it('takes a user record as the recipient, and numeric strings', async () => {
    const [toUser] = await server.service.notifications.send({
      to: { id: alice },
      title: 'User',
      message: 'as a record',
    });
    assert.equal(toUser?.user_to_id, alice);
    const records = await server.service.notifications.send({
      to: [String(bob), { id: String(alice) }],
      title: 'Strings',
      message: 'ids as text',
    });
    assert.deepStrictEqual(
      records.map((r) => r.user_to_id),
      [bob, alice],
    );
  });

  it('defaults the sender to the acting user; an explicit sender wins; null means none', async () => {
    assert.equal((await send({ to: alice, title: 't', message: 'm' }, bob))[0]?.user_from_id, bob);
    assert.equal(
      (await send({ to: alice, title: 't', message: 'm', from: 1 }, bob))[0]?.user_from_id,
      1,
    );
    assert.equal(
      (await send({ to: alice, title: 't', message: 'm', from: { id: alice } }, bob))[0]
        ?.user_from_id,
      alice,
    );
    assert.equal(
      (await send({ to: alice, title: 't', message: 'm', from: null }, bob))[0]?.user_from_id,
      null,
    );
  });

  it('stores the type, icon, level and the extra data beside the display fields', async () => {
    const [record] = await server.service.notifications.send({
      to: alice,
      title: 'Import failed',
      message: '3 rows refused',
      icon: 'alert',
      level: 'danger',
      type: 'App\\Notifications\\ImportFailed',
      data: { template_id: 4, rows: [1, 2, 3] },
    });
    assert.equal(record?.type, 'App\\Notifications\\ImportFailed');
    assert.deepStrictEqual(record?.data, {
      title: 'Import failed',
      message: '3 rows refused',
      icon: 'alert',
      level: 'danger',
      template_id: 4,
      rows: [1, 2, 3],
    });
  });

  for (const [kind, action, stored] of [
    [
      'go',
      {
        kind: 'go',
        screen: 'platform.import.edit',
        method: 'edit',
        parameters: { id: 4 },
        label: 'Edit',
      },
      {
        kind: 'go',
        screen: 'platform.import.edit',
        method: 'edit',
        parameters: { id: 4 },
        label: 'Edit',
      },
    ],
    [
      'go (minimal)',
      { kind: 'go', screen: 'platform.main' },
      { kind: 'go', screen: 'platform.main', method: null, parameters: {}, label: null },
    ],
    [
      'navigate',
      { kind: 'navigate', url: '/import-templates/4', label: 'Open' },
      { kind: 'navigate', url: '/import-templates/4', label: 'Open' },
    ],
    [
      'url',
      { kind: 'url', url: 'https://docs.example.test/import', extra: 'dropped' },
      { kind: 'url', url: 'https://docs.example.test/import', label: null },
    ],
  ] as const) {
    it(`stores a ${kind} action in its normal form`, async () => {
      const [record] = await send({ to: alice, title: 't', message: 'm', action });
      assert.deepStrictEqual(record?.action, stored);
    });
  }

  it('refuses an empty input with the three required fields', async () => {
    await assert.rejects(send({}), (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.deepStrictEqual(error.body, {
        message: 'The to field is required. (and 2 more errors)',
        errors: {
          to: ['The to field is required.'],
          title: ['The title field is required.'],
          message: ['The message field is required.'],
        },
      });
      return true;
    });
  });

  const base = { title: 't', message: 'm' };
  // Inputs are made when the test runs: the users exist only after before().
  const cases: Array<[string, () => Record<string, unknown>, Record<string, string[]>]> = [
    [
      'an unknown recipient among known ones (nothing stored)',
      () => ({ ...base, to: [alice, 999_999] }),
      { 'to.1': ['The selected to.1 is invalid.'] },
    ],
    [
      'an unknown single recipient',
      () => ({ ...base, to: 999_999 }),
      { to: ['The selected to is invalid.'] },
    ],
    [
      'a recipient that is not an id',
      () => ({ ...base, to: 'alice' }),
      { to: ['The to field must be an integer.'] },
    ],
    [
      'a null in the list',
      () => ({ ...base, to: [alice, null] }),
      { 'to.1': ['The to.1 field is required.'] },
    ],
    ['an empty list', () => ({ ...base, to: [] }), { to: ['The to field is required.'] }],
    [
      'more than 1000 recipients',
      () => ({ ...base, to: Array.from({ length: 1001 }, () => alice) }),
      { to: ['The to field must not have more than 1000 items.'] },
    ],
    [
      'an unknown sender',
      () => ({ ...base, to: alice, from: 999_999 }),
      { from: ['The selected from is invalid.'] },
    ],
    [
      'a title longer than 255',
      () => ({ ...base, to: alice, title: 'x'.repeat(256) }),
      { title: ['The title field must not be greater than 255 characters.'] },
    ],
    [
      'a message longer than 2000',
      () => ({ ...base, to: alice, message: 'x'.repeat(2001) }),
      { message: ['The message field must not be greater than 2000 characters.'] },
    ],
    [
      'a non-string title',
      () => ({ ...base, to: alice, title: 5 }),
      { title: ['The title field must be a string.'] },
    ],
    [
      'an unknown level',
      () => ({ ...base, to: alice, level: 'critical' }),
      { level: ['The selected level is invalid.'] },
    ],
    [
      'a non-string icon',
      () => ({ ...base, to: alice, icon: ['x'] }),
      { icon: ['The icon field must be a string.'] },
    ],
    [
      'data that is a string',
      () => ({ ...base, to: alice, data: 'x' }),
      { data: ['The data field must be an array.'] },
    ],
    [
      'data that is a list',
      () => ({ ...base, to: alice, data: [1] }),
      { data: ['The data field must be an object.'] },
    ],
    [
      'data overriding a display field',
      () => ({ ...base, to: alice, data: { title: 'x', level: 'y' } }),
      {
        'data.title': ['The data.title field is prohibited.'],
        'data.level': ['The data.level field is prohibited.'],
      },
    ],
    [
      'an action that is not an object',
      () => ({ ...base, to: alice, action: 'go' }),
      { action: ['The action field must be an array.'] },
    ],
    [
      'an action without kind',
      () => ({ ...base, to: alice, action: { url: '/x' } }),
      { 'action.kind': ['The action.kind field is required.'] },
    ],
    [
      'an unknown action kind',
      () => ({ ...base, to: alice, action: { kind: 'open', url: '/x' } }),
      { 'action.kind': ['The selected action.kind is invalid.'] },
    ],
    [
      'a go action without screen',
      () => ({ ...base, to: alice, action: { kind: 'go' } }),
      { 'action.screen': ['The action.screen field is required.'] },
    ],
    [
      'a go action with list parameters',
      () => ({ ...base, to: alice, action: { kind: 'go', screen: 's', parameters: [1] } }),
      { 'action.parameters': ['The action.parameters field must be an object.'] },
    ],
    [
      'a navigate action without url',
      () => ({ ...base, to: alice, action: { kind: 'navigate', label: 'x' } }),
      { 'action.url': ['The action.url field is required.'] },
    ],
    [
      'a navigate action to an external URL',
      () => ({ ...base, to: alice, action: { kind: 'navigate', url: 'https://evil.test/' } }),
      { 'action.url': ['The action.url field must start with one of the following: /.'] },
    ],
    [
      'a navigate action to //host',
      () => ({ ...base, to: alice, action: { kind: 'navigate', url: '//evil.test/' } }),
      { 'action.url': ['The action.url field format is invalid.'] },
    ],
    [
      'a url action that is not a URL',
      () => ({ ...base, to: alice, action: { kind: 'url', url: 'not a url' } }),
      { 'action.url': ['The action.url field must be a valid URL.'] },
    ],
    [
      'a javascript: url action',
      () => ({ ...base, to: alice, action: { kind: 'url', url: 'javascript:alert(1)' } }),
      {
        'action.url': [
          'The action.url field must start with one of the following: http://, https://.',
        ],
      },
    ],
    [
      'a label longer than 255',
      () => ({
        ...base,
        to: alice,
        action: { kind: 'url', url: 'https://x.test', label: 'x'.repeat(256) },
      }),
      { 'action.label': ['The action.label field must not be greater than 255 characters.'] },
    ],
    [
      'a notification too large to push',
      () => ({
        ...base,
        to: alice,
        message: 'x'.repeat(2000),
        action: { kind: 'go', screen: 's', parameters: { blob: 'y'.repeat(8000) } },
      }),
      {
        notification: [
          'The notification must not be larger than 9216 bytes once encoded (title, message, icon, level and action).',
        ],
      },
    ],
  ];
  for (const [label, input, errors] of cases) {
    it(`refuses ${label}`, async () => {
      await refused(input(), errors);
    });
  }
});

describe('POST /api/notifications', () => {
  let server: TestServer;
  let alice: Session;
  let bobId: number;
  before(async () => {
    server = await startTestServer();
    await seedLoginUser(server.service.database.db, 'alice');
    bobId = await seedLoginUser(server.service.database.db, 'bob');
    alice = await login(server.url, 'alice');
  });
  after(() => server.close());

  it('makes notifications.send grantable: it is declared on the route', () => {
    assert.ok(grantableAbilities().includes('notifications.send'));
  });

  it('answers 201 with one record per recipient, the sender being the token’s user whatever the body says', async () => {
    const since = new Date();
    const reply = await server.post('/api/notifications', {
      to: [alice.userId, bobId],
      title: 'Hi',
      message: 'both',
      from: bobId,
      level: 'warning',
    });
    assertJson(reply, 201);
    assert.equal(reply.body.data.length, 2);
    const [first, second] = reply.body.data;
    freshTimestamp(first.created_at, since);
    assert.deepStrictEqual(first, {
      id: first.id,
      user_to_id: alice.userId,
      user_from_id: 1,
      type: 'generic',
      data: { title: 'Hi', message: 'both', icon: 'bell', level: 'warning' },
      action: null,
      read_at: null,
      created_at: first.created_at,
    });
    assert.equal(second.user_to_id, bobId);
    assert.equal(second.id, first.id + 1);
  });

  it('answers 422 with the validator’s body and stores nothing', async () => {
    const reply = await server.post('/api/notifications', {
      to: [alice.userId, 424242],
      title: '',
      message: 'm',
    });
    assertJson(reply, 422, {
      message: 'The title field is required. (and 1 more error)',
      errors: {
        title: ['The title field is required.'],
        'to.1': ['The selected to.1 is invalid.'],
      },
    });
  });

  it('refuses with 422 a navigate url a browser reads as another host, and stores nothing', async () => {
    const count = async () =>
      (await server.service.database.db.selectFrom('notifications').select('id').execute()).length;
    const before = await count();
    const invalid = {
      message: 'The action.url field format is invalid.',
      errors: { 'action.url': ['The action.url field format is invalid.'] },
    };
    for (const url of [
      '//evil.example/x',
      '/\\evil.example/x',
      '/\t/evil.example/x',
      '/\n/evil.example',
      '/\\\\evil.example',
    ]) {
      const reply = await server.post('/api/notifications', {
        to: alice.userId,
        title: 't',
        message: 'm',
        action: { kind: 'navigate', url },
      });
      assertJson(reply, 422, invalid);
    }
    const backslashes = await server.post('/api/notifications', {
      to: alice.userId,
      title: 't',
      message: 'm',
      action: { kind: 'navigate', url: '\\\\evil.example' },
    });
    assertJson(backslashes, 422, {
      message: 'The action.url field must start with one of the following: /.',
      errors: { 'action.url': ['The action.url field must start with one of the following: /.'] },
    });
    assert.equal(await count(), before);
    // An in-app path with a query and a fragment, or one going up, stays on the origin.
    for (const url of ['/admin/r/users?page=2#top', '/admin/../admin/notifications'])
      assertJson(
        await server.post('/api/notifications', {
          to: alice.userId,
          title: 't',
          message: 'm',
          action: { kind: 'navigate', url },
        }),
        201,
      );
  });

  it('answers 422 to a body that is not an object', async () => {
    const reply = await server.post('/api/notifications', [1, 2]);
    assertJson(reply, 422);
    assert.deepStrictEqual(Object.keys(reply.body.errors), ['to', 'title', 'message']);
  });

  it('answers 403 to a token without notifications.send', async () => {
    const { token } = await issue(server, { abilities: ['import-templates.read'] });
    assertJson(
      await server.post(
        '/api/notifications',
        { to: alice.userId, title: 't', message: 'm' },
        { headers: bearer(token) },
      ),
      403,
      { error: 'Missing ability: notifications.send' },
    );
  });

  it('answers the bearer 401 without any credential', async () => {
    assertBearer401(
      await server.post(
        '/api/notifications',
        { to: alice.userId, title: 't', message: 'm' },
        { headers: { authorization: '' } },
      ),
      'Unauthenticated.',
    );
  });

  it('works in session mode, the sender being the session user; a write without CSRF is a 419', async () => {
    const reply = await sessionRequest(server.url, alice, 'POST', '/api/notifications', {
      to: bobId,
      title: 'From Alice',
      message: 'session mode',
    });
    assertJson(reply, 201);
    assert.equal(reply.body.data[0].user_from_id, alice.userId);
    const noCsrf = await sessionRequest(
      server.url,
      null,
      'POST',
      '/api/notifications',
      { to: bobId, title: 't', message: 'm' },
      { cookie: alice.cookie },
    );
    assertJson(noCsrf, 419, { message: 'CSRF token mismatch.' });
  });
});
