// Issue 32, DESIGN.md 3.9: every committed write of a resource's record appends exactly one
// change in its own transaction, and GET /api/<resource>/changes answers them in seq order with
// the list's abilities and scope; lists and shows carry Changes-Seq; a refused write leaves no
// change; past retention the feed answers 410. Through the real server on every engine.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { grantableAbilities } from '../../src/app/routes.js';
import type { Change } from '../../src/engine/changes/change.js';
import { onChangesCommitted } from '../../src/engine/changes/committed.js';
import { pruneChanges } from '../../src/engine/changes/retention.js';
import { bearer, issue, otherCompanyWriter, seedIdentity } from '../helpers/bearer.js';
import { runCli } from '../helpers/cli.js';
import { serverWithDetailTargets } from '../helpers/detail-targets.js';
import { assertJson, type Reply } from '../helpers/http.js';
import { Contract } from '../helpers/openapi-contract.js';
import { templatePayload } from '../helpers/seed.js';
import { signedIn } from '../helpers/session-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The changes of `path` after `after`, one page (asserted 200; `limit` the feed's default). */
async function feed(server: TestServer, after: number, path = PATH, headers = {}, limit?: number) {
  const query = limit === undefined ? '' : `&limit=${limit}`;
  const reply = await server.get(`${path}/changes?after=${after}${query}`, { headers });
  assertJson(reply, 200);
  return reply.body as { data: Change[]; meta: { after: number; next: number; has_more: boolean } };
}

/** Every change of `path` after `after`, page by page. */
async function allChanges(server: TestServer, after = 0, path = PATH): Promise<Change[]> {
  const changes: Change[] = [];
  for (let cursor = after; ; ) {
    const page = await feed(server, cursor, path);
    changes.push(...page.data);
    cursor = page.meta.next;
    if (!page.meta.has_more) return changes;
  }
}

const seqOf = (reply: Reply) => Number(reply.headers.get('changes-seq'));

/** Where the feed of `path` ends now: the `after` from which only later changes come. */
async function caughtUp(server: TestServer, path = PATH): Promise<number> {
  for (let cursor = 0; ; ) {
    const page = await feed(server, cursor, path);
    cursor = page.meta.next;
    if (!page.meta.has_more) return cursor;
  }
}

describe('the change log and GET /api/<resource>/changes (issue 32, DESIGN.md 3.9)', () => {
  let server: TestServer;
  let g1: number;
  let g2: number;
  let alice: number;
  before(async () => ({ server, g1, g2, alice } = await serverWithDetailTargets()));
  after(() => server?.close());

  it('a create, an update and a delete each append one change: every stored field on create, only the changed ones on update, {} on delete', async () => {
    const start = await caughtUp(server);
    const created = await server.post(
      PATH,
      templatePayload({ title: 'Feed', groups: [{ group_id: g1 }, { group_id: g2 }] }),
    );
    assertJson(created, 201);
    const id = created.body.id as number;
    const [kept, dropped] = created.body.groups as Array<{ id: number }>;
    const updated = await server.patch(`${PATH}/${id}`, {
      title: 'Feed 2',
      code: created.body.code,
      groups: [{ id: kept?.id, group_id: g2 }, { group_id: g1 }],
    });
    assertJson(updated, 200);
    assertJson(await server.delete(`${PATH}/${id}`), 200);

    const [c, u, d, ...rest] = await allChanges(server, start);
    assert.deepEqual(rest, []);
    assert.ok(c && u && d);
    assert.deepEqual([c.seq + 1, c.seq + 2], [u.seq, d.seq], 'seqs follow one another');
    const actor = { user_id: 1, token_id: 1, via: 'bearer' };
    const { groups, users, creator, groups_count, users_count, logs_count, ...fields } =
      created.body;
    assert.deepStrictEqual(c, {
      seq: c.seq,
      resource: 'import-templates',
      id,
      action: 'created',
      version: 1,
      at: c.at,
      actor,
      changes: { fields, groups: { created: groups, updated: [], deleted: [] } },
    });
    assert.match(c.at, ISO_UTC);
    const newRow = (updated.body.groups as Array<{ id: number }>).find((r) => r.id !== kept?.id);
    assert.deepStrictEqual(u, {
      seq: u.seq,
      resource: 'import-templates',
      id,
      action: 'updated',
      version: 2,
      at: u.at,
      actor,
      changes: {
        fields: { title: 'Feed 2', updated_at: updated.body.updated_at },
        groups: {
          created: [newRow],
          updated: [{ id: kept?.id, template_id: id, group_id: g2 }],
          deleted: [dropped?.id],
        },
      },
    });
    assert.deepStrictEqual(d, {
      seq: d.seq,
      resource: 'import-templates',
      id,
      action: 'deleted',
      version: null,
      at: d.at,
      actor,
      changes: {},
    });
  });

  it('a detail relation appears only when one of its rows changed', async () => {
    const created = await server.post(PATH, templatePayload({ users: [{ user_id: alice }] }));
    assertJson(created, 201);
    const start = await caughtUp(server);
    const row = created.body.users[0];
    const same = await server.put(`${PATH}/${created.body.id}`, {
      description: 'only the master',
      users: [{ id: row.id, user_id: alice }],
    });
    assertJson(same, 200);
    const [change] = await allChanges(server, start);
    assert.deepEqual(Object.keys(change?.changes ?? {}), ['fields']);
    assert.deepEqual(Object.keys(change?.changes.fields ?? {}).sort(), [
      'description',
      'updated_at',
    ]);
  });

  it('hidden fields never appear, not even their names: a user’s password_hash and password, a template’s version and company_id', async () => {
    const start = await caughtUp(server, '/api/users');
    const created = await server.post('/api/users', {
      login: 'hidden-check',
      name: 'Hidden',
      password: 'a-long-password',
    });
    assertJson(created, 201);
    assertJson(
      await server.patch(`/api/users/${created.body.id}`, { password: 'another-password' }),
      200,
    );
    const changes = await allChanges(server, start, '/api/users');
    assert.equal(changes.length, 2);
    const text = JSON.stringify(changes);
    for (const name of ['password_hash', 'password', '$2', 'argon'])
      assert.ok(!text.includes(name), name);
    assert.deepEqual(Object.keys(changes[1]?.changes.fields ?? {}), ['updated_at']);
    const templates = JSON.stringify((await allChanges(server)).map((c) => c.changes));
    assert.ok(templates.includes('"title"'));
    for (const name of ['"company_id"', '"version"']) assert.ok(!templates.includes(name), name);
  });

  it('a refused write appends no change: a 422, a 412, a 404', async () => {
    const created = await server.post(PATH, templatePayload());
    assertJson(created, 201);
    const start = await caughtUp(server);
    assertJson(await server.post(PATH, templatePayload({ title: '' })), 422);
    assertJson(await server.patch(`${PATH}/${created.body.id}`, { mapping_json: 'not json' }), 422);
    assertJson(
      await server.patch(
        `${PATH}/${created.body.id}`,
        { title: 'x' },
        { headers: { 'if-match': '"99"' } },
      ),
      412,
    );
    assertJson(await server.delete(`${PATH}/987654321`), 404);
    const page = await feed(server, start);
    assert.deepEqual(page.data, []);
  });

  it('lists and shows carry Changes-Seq, a lower bound: every change at or below it is reflected', async () => {
    const created = await server.post(PATH, templatePayload({ title: 'Seq' }));
    assertJson(created, 201);
    // Reading the feed gives every committed change its seq (PostgreSQL, MySQL number them after
    // the write's answer), so the answers after it reflect them.
    const changes = await allChanges(server);
    const last = changes[changes.length - 1];
    assert.equal(last?.id, created.body.id);
    const listed = await server.get(PATH);
    const shown = await server.get(`${PATH}/${created.body.id}`);
    for (const reply of [listed, shown]) {
      assert.match(reply.headers.get('changes-seq') ?? '', /^\d+$/);
      assert.ok(seqOf(reply) >= (last?.seq ?? Infinity), `${seqOf(reply)} < ${last?.seq}`);
    }
    const notModified = await server.get(`${PATH}/${created.body.id}`, {
      headers: { 'if-none-match': shown.headers.get('etag') ?? '' },
    });
    assert.equal(notModified.status, 304);
    assert.ok(seqOf(notModified) >= seqOf(shown));
  });

  it('after and limit: pages oldest first with meta {after, next, has_more}; limit defaults to 100 and is at most 1,000', async () => {
    const start = await caughtUp(server);
    for (let i = 0; i < 3; i++)
      assertJson(await server.post(PATH, templatePayload({ title: `P${i}` })), 201);
    const first = await server.get(`${PATH}/changes?after=${start}&limit=2`);
    assertJson(first, 200);
    assert.deepEqual(
      first.body.data.map((c: Change) => c.seq),
      [start + 1, start + 2],
    );
    assert.deepEqual(first.body.meta, { after: start, next: start + 2, has_more: true });
    const second = await server.get(`${PATH}/changes?after=${start + 2}&limit=2`);
    assert.deepEqual(
      second.body.data.map((c: Change) => c.seq),
      [start + 3],
    );
    assert.deepEqual(second.body.meta, { after: start + 2, next: start + 3, has_more: false });
    // More changes than the default limit: a page that names none answers exactly 100.
    const stored = async () => (await feed(server, 0, PATH, {}, 1000)).data.length;
    for (let n = await stored(); n <= 100; n += 1)
      assertJson(await server.post(PATH, templatePayload({ title: `Many ${n}` })), 201);
    const all = await feed(server, 0);
    assert.equal(all.data.length, 100);
    assert.equal(all.meta.has_more, true);
  });

  it('a malformed after or limit is a 422 naming it', async () => {
    for (const [query, field] of [
      ['after=-1', 'after'],
      ['after=abc', 'after'],
      ['after=1.5', 'after'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=ten', 'limit'],
    ] as const) {
      const reply = await server.get(`${PATH}/changes?${query}`);
      assertJson(reply, 422);
      assert.deepEqual(Object.keys(reply.body.errors), [field], query);
    }
  });

  it('the feed needs the list’s ability (a token without the read ability is a 403) and the resource’s authorization (a non-admin on /api/users)', async () => {
    const writer = await issue(server, {
      abilities: grantableAbilities().filter((a) => a !== 'import-templates.read'),
    });
    assertJson(await server.get(`${PATH}/changes`, { headers: bearer(writer.token) }), 403);
    const member = await seedIdentity(server, 'feed-member');
    assertJson(await server.get('/api/users/changes', { headers: bearer(member.token) }), 403);
    assertJson(await server.get(`${PATH}/changes`, { headers: bearer(member.token) }), 200);
    assertJson(await server.get(`${PATH}/changes`, { headers: { authorization: '' } }), 401);
  });

  it('the actor says how the write came in: bearer (user and token), session (user), cli (user:create, unit:attach)', async () => {
    const session = await signedIn(server.url);
    const start = await caughtUp(server, '/api/users');
    const viaSession = await session.post('/api/groups', { name: 'by session' });
    assertJson(viaSession, 201);
    const cli = await runCli({ ...process.env, ...server.storageEnv, LOG_LEVEL: 'silent' }, [
      'user:create',
      'by-cli',
      '--name=By CLI',
      '--password=a-long-password',
    ]);
    assert.equal(cli.code, 0, cli.stderr);
    const [group] = await allChanges(server, 0, '/api/groups');
    assert.deepStrictEqual(group?.actor, { user_id: 1, token_id: null, via: 'session' });
    const users = await allChanges(server, start, '/api/users');
    const byCli = users.find(
      (c) => c.changes.fields && (c.changes.fields as { login?: string }).login === 'by-cli',
    );
    assert.deepStrictEqual(byCli?.actor, { user_id: null, token_id: null, via: 'cli' });
    assert.equal(byCli?.action, 'created');
    // unit:attach writes a row of the user's units: a change of the user too.
    const attach = await runCli({ ...process.env, ...server.storageEnv, LOG_LEVEL: 'silent' }, [
      'unit:attach',
      'by-cli',
      'Main',
    ]);
    assert.equal(attach.code, 0, attach.stderr);
    const [attached] = await allChanges(
      server,
      users[users.length - 1]?.seq ?? start,
      '/api/users',
    );
    assert.equal(attached?.id, byCli?.id);
    assert.deepStrictEqual(attached?.actor, { user_id: null, token_id: null, via: 'cli' });
    const linked = attached?.changes.units as { created: Array<{ id: number }> } | undefined;
    assert.deepStrictEqual(linked, {
      created: [{ id: linked?.created[0]?.id, user_id: byCli?.id, unit_id: 1 }],
      updated: [],
      deleted: [],
    });
  });

  it('onChangesCommitted hands a listener each committed change after the commit, and nothing of a refused write', async () => {
    const heard: Change[] = [];
    const stop = onChangesCommitted(server.service.database, (changes) => heard.push(...changes));
    try {
      const created = await server.post('/api/groups', { name: 'heard' });
      assertJson(created, 201);
      assertJson(await server.post('/api/groups', { name: '' }), 422);
      // Reading the feed numbers what still waits (PostgreSQL, MySQL), which hands it over.
      const fed = (await allChanges(server, 0, '/api/groups')).find(
        (c) => c.id === created.body.id,
      );
      assert.equal(heard.length, 1);
      assert.deepStrictEqual(heard[0], fed);
    } finally {
      stop();
    }
  });

  it('past retention the feed answers 410 with the oldest seq kept, and continues from there', async () => {
    assertJson(await server.post(PATH, templatePayload({ title: 'old' })), 201);
    const before = await caughtUp(server);
    // Everything recorded so far is older than a cutoff one second ahead.
    const pruned = await pruneChanges(server.service.database, Date.now() + 1000, 3);
    assert.ok(pruned > 0, `${pruned} pruned`);
    const gone = await server.get(`${PATH}/changes?after=0`);
    assertJson(gone, 410, {
      error: 'The changes after 0 are no longer kept.',
      oldest: before + 1,
    });
    assertJson(await server.post(PATH, templatePayload({ title: 'new' })), 201);
    const page = await feed(server, before);
    assert.deepEqual(
      page.data.map((c) => c.changes.fields && (c.changes.fields as { title: string }).title),
      ['new'],
    );
    assertJson(await server.get(`${PATH}/changes?after=${before}`), 200);
  });
});

describe('the feed in the OpenAPI document', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  it('the feed’s 200, 410 and 422, and Changes-Seq on lists and shows, answer as documented', async () => {
    const contract = await Contract.load(server.url);
    const created = await server.post(PATH, templatePayload({ title: 'documented' }));
    assertJson(created, 201);
    assertJson(await server.patch(`${PATH}/${created.body.id}`, { title: 'documented 2' }), 200);
    const checked: Array<[string, number]> = [
      [`${PATH}/changes`, 200],
      [`${PATH}/changes?after=0&limit=1`, 200],
      [`${PATH}/changes?limit=0`, 422],
      [PATH, 200],
      [`${PATH}/${created.body.id}`, 200],
    ];
    for (const [target, status] of checked) {
      const reply = await server.get(target);
      assert.equal(reply.status, status, target);
      contract.check('GET', target, reply);
    }
    for (const target of [PATH, `${PATH}/${created.body.id}`])
      assert.ok(contract.documentedHeader('GET', target, 200, 'Changes-Seq'), target);
    await pruneChanges(server.service.database, Date.now() + 1000);
    const gone = await server.get(`${PATH}/changes`);
    assert.equal(gone.status, 410);
    contract.check('GET', `${PATH}/changes`, gone);
  });
});

describe('TENANT_ISOLATION=true: the feed answers only the changes of the caller’s company, deletes included', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ TENANT_ISOLATION: 'true' });
  });
  after(() => server?.close());

  it('another company’s create, update and delete are never answered; its own reader sees all three', async () => {
    const other = await otherCompanyWriter(server);
    const theirs = bearer(other.token);
    const mine = await server.post(PATH, templatePayload({ title: 'mine' }));
    assertJson(mine, 201);
    const created = await server.post(PATH, templatePayload({ title: 'theirs' }), {
      headers: theirs,
    });
    assertJson(created, 201);
    assertJson(
      await server.patch(`${PATH}/${created.body.id}`, { title: 'theirs 2' }, { headers: theirs }),
      200,
    );
    assertJson(await server.delete(`${PATH}/${created.body.id}`, { headers: theirs }), 200);
    const seen = await allChanges(server);
    assert.deepEqual(
      seen.map((c) => [c.id, c.action]),
      [[mine.body.id, 'created']],
    );
    const page = await feed(server, 0, PATH, theirs);
    assert.deepEqual(
      page.data.map((c) => [c.id, c.action]),
      [
        [created.body.id, 'created'],
        [created.body.id, 'updated'],
        [created.body.id, 'deleted'],
      ],
    );
  });
});
