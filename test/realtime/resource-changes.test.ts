// DESIGN.md 3.9 "Real time": each committed change is broadcast as SvcResourceChanged on
// `private-resource.<resource>` to the subscribers whose scope includes it. POST
// /broadcasting/auth (session, CSRF) signs the channel, with the subscriber's scope as channel
// data, for a user whose resource authorization allows `list`; pusher-js subscribes with it as
// a browser does. Writes of another process (the CLI) arrive too: the log is the source.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Change } from '../../src/engine/changes/change.js';
import { CATCH_UP_MS } from '../../src/live/change-relay.js';
import { bearer, issue, linkUnit, seedCompany, seedUnit } from '../helpers/bearer.js';
import { runCli } from '../helpers/cli.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/test-server.js';
import {
  login,
  type Pusher,
  REALTIME_ENV,
  type Session,
  seedLoginUser,
  sessionRequest,
  waitFor,
} from './realtime-clients.js';
import { follow, resourceClient, until } from './resource-clients.js';

describe('resource changes on real time (DESIGN.md 3.9)', () => {
  let server: TestServer;
  let alice: Session;
  let bob: Session;
  let otherUnit: number;
  const clients: Pusher[] = [];

  before(async () => {
    server = await startTestServer(REALTIME_ENV);
    const { db } = server.service.database;
    await seedLoginUser(db, 'alice');
    const bobId = await seedLoginUser(db, 'bob');
    // Bob works in another unit (his lowest link is the session's unit).
    await db.deleteFrom('user_units').where('user_id', '=', bobId).execute();
    otherUnit = await seedUnit(db, 'Elsewhere', await seedCompany(db, 'Other company'));
    await linkUnit(db, bobId, otherUnit);
    // The admin's tokens write in either unit.
    await linkUnit(db, 1, otherUnit);
    alice = await login(server.url, 'alice');
    bob = await login(server.url, 'bob');
  });
  after(async () => {
    for (const client of clients) client.disconnect();
    await server.close();
  });

  it('POST /broadcasting/auth signs a resource channel with the scope as channel data', async () => {
    const reply = await sessionRequest(server.url, alice, 'POST', '/broadcasting/auth', {
      socket_id: '123.456',
      channel_name: 'private-resource.import-template-logs',
    });
    assertJson(reply, 200);
    assert.match(reply.body.auth, /^svc-key:[0-9a-f]{64}$/);
    assert.deepStrictEqual(JSON.parse(reply.body.channel_data), { db: '', unit: 1, company: null });
  });

  it('POST /broadcasting/auth refuses a resource the user may not list, and other channels', async () => {
    for (const channel_name of [
      'private-resource.users', // admin only
      'private-resource.no-such-resource',
      `private-notifications.${alice.userId}`,
      'private-anything',
    ]) {
      const reply = await sessionRequest(server.url, alice, 'POST', '/broadcasting/auth', {
        socket_id: '123.456',
        channel_name,
      });
      assertJson(reply, 403);
      assert.deepStrictEqual(reply.body, { message: 'This action is unauthorized.' }, channel_name);
    }
    const missing = await sessionRequest(server.url, alice, 'POST', '/broadcasting/auth', {});
    assertJson(missing, 422);
    assert.deepStrictEqual(Object.keys(missing.body.errors).sort(), ['channel_name', 'socket_id']);
    const anonymous = await sessionRequest(server.url, null, 'POST', '/broadcasting/auth', {
      socket_id: '1.2',
      channel_name: 'private-resource.import-templates',
    });
    assert.equal(anonymous.status, 401);
    const noCsrf = await sessionRequest(
      server.url,
      { ...alice, csrf: 'wrong' },
      'POST',
      '/broadcasting/auth',
      { socket_id: '1.2', channel_name: 'private-resource.import-templates' },
    );
    assert.equal(noCsrf.status, 419);
  });

  it('the embedded server refuses a subscription whose channel data was not signed with it', async () => {
    const client = resourceClient(server.url, alice);
    clients.push(client);
    await waitFor<void>('connected', (resolve) => client.connection.bind('connected', resolve));
    const channel = 'private-resource.import-template-logs';
    const signed = await sessionRequest(server.url, alice, 'POST', '/broadcasting/auth', {
      socket_id: client.connection.socket_id,
      channel_name: channel,
    });
    assertJson(signed, 200);
    // The signature of Alice's scope (unit 1), sent with a wider one (every unit).
    const widened = JSON.stringify({ db: '', unit: null, company: null });
    const answer = await waitFor<{ event: string; data: unknown }>('the answer', (resolve) => {
      client.connection.bind('message', (message: { event: string; data: unknown }) => {
        if (/subscription_(error|succeeded)$/.test(message.event)) resolve(message);
      });
      client.send_event('pusher:subscribe', {
        channel,
        auth: signed.body.auth,
        channel_data: widened,
      });
    });
    assert.equal(answer.event, 'pusher:subscription_error');
    assert.equal((answer.data as { status: number }).status, 401);
  });

  it('a write through the API reaches a subscriber as the change GET .../changes answers', async () => {
    const client = resourceClient(server.url, alice);
    clients.push(client);
    const received = await follow(client, 'import-templates');
    const created = await server.post('/api/import-templates', templatePayload({ code: 'RT1' }));
    assertJson(created, 201);
    await until('the created change', () => received.length >= 1);
    const feed = await server.get('/api/import-templates/changes?after=0&limit=1000');
    assertJson(feed, 200);
    const stored = feed.body.data.find((c: Change) => c.id === created.body.id);
    assert.deepStrictEqual(received[0], stored);
    assert.equal(received[0]?.action, 'created');
    const updated = await server.patch(`/api/import-templates/${created.body.id}`, {
      title: 'Renamed live',
    });
    assertJson(updated, 200);
    await until('the updated change', () => received.length >= 2);
    assert.equal(received[1]?.action, 'updated');
    const fields = received[1]?.changes.fields as Record<string, unknown>;
    assert.equal(fields.title, 'Renamed live');
    assert.deepStrictEqual(Object.keys(fields).sort(), ['title', 'updated_at']);
    assert.ok((received[1]?.seq ?? 0) > (received[0]?.seq ?? 0));
  });

  it('a change is delivered only to subscribers whose unit it is of', async () => {
    const aliceClient = resourceClient(server.url, alice);
    const bobClient = resourceClient(server.url, bob);
    clients.push(aliceClient, bobClient);
    const toAlice = await follow(aliceClient, 'import-template-logs');
    const toBob = await follow(bobClient, 'import-template-logs');
    const template = await server.post('/api/import-templates', templatePayload({ code: 'RT2' }));
    assertJson(template, 201);
    const { token } = await issue(server, { unitId: otherUnit });
    const log = (message: string, headers = {}) =>
      server.post(
        '/api/import-template-logs',
        { template_id: template.body.id, status: 'queued', message },
        { headers },
      );
    const inOther = await log('other unit', bearer(token));
    assertJson(inOther, 201);
    const inMain = await log('main unit');
    assertJson(inMain, 201);
    const laterInOther = await log('other unit again', bearer(token));
    assertJson(laterInOther, 201);
    // The writes were answered in order, so their seqs follow one another and each socket is
    // told in seq order: by the time a subscriber has a later change, an earlier one wrongly
    // delivered to it would be there too.
    const ids = (changes: readonly Change[]) => changes.map((c) => c.id);
    await until(
      'the last delivery to each',
      () => ids(toAlice).includes(inMain.body.id) && ids(toBob).includes(laterInOther.body.id),
    );
    assert.deepStrictEqual(ids(toAlice), [inMain.body.id]);
    assert.deepStrictEqual(ids(toBob), [inOther.body.id, laterInOther.body.id]);
  });

  it('a write of another process (the CLI) reaches subscribers from the log', async () => {
    const admin = await login(server.url, 'admin', ADMIN_PASSWORD);
    const client = resourceClient(server.url, admin);
    clients.push(client);
    const received = await follow(client, 'users');
    const cli = await runCli({ ...process.env, ...server.storageEnv, LOG_LEVEL: 'silent' }, [
      'user:create',
      'made-by-cli',
      '--name=Made by CLI',
      '--password=a-long-password',
    ]);
    assert.equal(cli.code, 0, cli.stderr);
    // No commit of this process announces it: the relay's catch-up read finds it in the log.
    await until('the CLI change', () => received.length >= 1, CATCH_UP_MS * 3);
    const [change] = received;
    assert.ok(change);
    const fields = change.changes.fields as Record<string, unknown>;
    assert.equal(change.action, 'created');
    assert.equal(fields.login, 'made-by-cli');
    assert.deepStrictEqual(change.actor, { user_id: null, token_id: null, via: 'cli' });
    assert.equal('password_hash' in fields, false);
  });
});
