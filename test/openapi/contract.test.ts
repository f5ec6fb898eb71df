// The contract of GET /api/openapi.json (issue 17 item 4, DESIGN.md 3.8), on every engine: the
// document the server serves is a valid OpenAPI 3.1 document, and real answers of svc (lists
// with filters, sort and pages, HEAD, show, create, PUT, PATCH, delete, every error status of
// SPEC.md 7 and DESIGN.md 3.5, and the session endpoints) are what the document says of them:
// a documented status of the operation found by method and path, a JSON body valid against its
// schema, the required headers. test/helpers/openapi-contract.ts does the lookup and validation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, issue, requestFrom, seedIdentity } from '../helpers/bearer.js';
import { testEngine } from '../helpers/engines.js';
import { httpRequest, type Reply } from '../helpers/http.js';
import { assertValidOpenApi, Contract } from '../helpers/openapi-contract.js';
import { SessionClient, type SessionRequestOptions, signedIn } from '../helpers/session-client.js';
import { linkUnit, seedUnit } from '../helpers/session-seed.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/test-server.js';

const TEMPLATES = '/api/import-templates';
const USERS = '/api/users';
const LOGS = '/api/import-template-logs';

/** `?a=1&filters[title][like]=x`: a query string from flat pairs. */
const query = (pairs: Record<string, string>) => `?${new URLSearchParams(pairs).toString()}`;

describe(`OpenAPI contract: real answers match GET /api/openapi.json (${testEngine})`, () => {
  let server: TestServer;
  let contract: Contract;
  let admin: SessionClient;
  let groupId: number;
  let secondUnit: number;

  /** A bearer request (the admin token unless headers say otherwise), checked against the document. */
  async function call(
    method: string,
    target: string,
    options: {
      body?: unknown;
      raw?: string;
      headers?: Record<string, string>;
      /** Send no bearer token. */
      anonymous?: boolean;
    } = {},
  ): Promise<Reply> {
    const { anonymous, ...rest } = options;
    const reply = await httpRequest(server.url, method, target, {
      ...rest,
      headers: { ...(anonymous ? {} : server.defaultHeaders), ...options.headers },
    });
    contract.check(method, target, reply);
    return reply;
  }

  /** A session-mode request of `client`, checked against the document. */
  async function session(
    client: SessionClient,
    method: string,
    target: string,
    options: SessionRequestOptions = {},
  ): Promise<Reply> {
    const reply = await client.request(method, target, options);
    contract.check(method, target, reply);
    return reply;
  }

  const expect = (reply: Reply, status: number) =>
    assert.equal(
      reply.status,
      status,
      `expected ${status}, got ${reply.status}: ${reply.text.slice(0, 400)}`,
    );

  const templateBody = (title: string) => ({
    title,
    code: title.slice(0, 3).toUpperCase(),
    database_name: 'erp',
    mapping_json: '{"a":1}',
    groups: [{ group_id: groupId }],
    users: [{ user_id: 1 }],
  });

  before(async () => {
    server = await startTestServer();
    contract = await Contract.load(server.url);
    const group = await call('POST', '/api/groups', { body: { name: 'Operations' } });
    expect(group, 201);
    groupId = group.body.id;
    const { db } = server.service.database;
    secondUnit = await seedUnit(db, 'Second');
    await linkUnit(db, 1, secondUnit);
    admin = await signedIn(server.url);
  });
  after(() => server?.close());

  it('the served document is a valid OpenAPI 3.1 document', async () => {
    const reply = await httpRequest(server.url, 'GET', '/api/openapi.json');
    expect(reply, 200);
    assert.equal(reply.body.openapi, '3.1.0');
    await assertValidOpenApi(reply.body);
    contract.check('GET', '/api/openapi.json', reply);
  });

  it('lists answer the documented page: filters (JSON, bracket and body forms), sort, pages, an empty page', async () => {
    for (const title of ['Alpha', 'Bravo', 'Charlie'])
      expect(await call('POST', TEMPLATES, { body: templateBody(title) }), 201);
    expect(await call('GET', TEMPLATES), 200);
    const json = await call(
      'GET',
      TEMPLATES +
        query({ filters: JSON.stringify({ title: { like: '%a%' }, active: { '=': 'Y' } }) }),
    );
    expect(json, 200);
    assert.ok(json.body.data.length >= 3);
    const brackets = await call(
      'GET',
      TEMPLATES + query({ 'filters[code][in][]': 'ALP', 'filters[description][null]': 'true' }),
    );
    expect(brackets, 200);
    assert.equal(brackets.body.data.length, 1);
    const body = await call('GET', TEMPLATES, { body: { filters: { title: { '!=': 'Alpha' } } } });
    expect(body, 200);
    const sorted = await call(
      'GET',
      TEMPLATES + query({ sort: 'code', direction: 'desc', per_page: '2', page: '2' }),
    );
    expect(sorted, 200);
    assert.equal(sorted.body.meta.current_page, 2);
    const empty = await call('GET', TEMPLATES + query({ page: '99' }));
    expect(empty, 200);
    assert.deepStrictEqual(empty.body.data, []);
    const none = await call('GET', TEMPLATES + query({ 'filters[title][=]': 'nothing matches' }));
    expect(none, 200);
    assert.equal(none.body.meta.total, 0);

    expect(await call('GET', USERS + query({ 'filters[login][like]': 'adm%', sort: 'name' })), 200);
    expect(await call('GET', USERS + query({ per_page: '1', page: '5' })), 200);
    expect(await call('GET', LOGS + query({ sort: 'id', direction: 'asc' })), 200);
  });

  it('HEAD answers are documented for lists and shows and carry no body', async () => {
    const item = await call('POST', TEMPLATES, { body: templateBody('Head') });
    expect(await call('HEAD', TEMPLATES), 200);
    expect(await call('HEAD', `${TEMPLATES}/${item.body.id}`), 200);
    expect(await call('HEAD', `${TEMPLATES}/999999`), 404);
    expect(await call('HEAD', USERS), 200);
    expect(await call('HEAD', `${USERS}/1`), 200);
    expect(await call('HEAD', LOGS), 200);
    expect(await call('HEAD', '/health'), 200);
  });

  it('import templates: show, create 201, PUT, PATCH and delete answer their documented schemas', async () => {
    const created = await call('POST', TEMPLATES, { body: templateBody('Delta') });
    expect(created, 201);
    const id = created.body.id;
    assert.equal(created.body.groups.length, 1);
    expect(await call('GET', `${TEMPLATES}/${id}`), 200);
    const put = await call('PUT', `${TEMPLATES}/${id}`, {
      body: {
        description: null,
        users: [{ id: created.body.users[0].id, user_id: 1 }],
        groups: null,
      },
    });
    expect(put, 200);
    assert.deepStrictEqual(put.body.groups, []);
    const patch = await call('PATCH', `${TEMPLATES}/${id}`, {
      body: { title: 'Delta 2', groups: [{ group_id: groupId }] },
    });
    expect(patch, 200);
    expect(await call('DELETE', `${TEMPLATES}/${id}`), 200);
  });

  it('users (details units and groups): show, create 201, PUT, PATCH and delete answer their documented schemas', async () => {
    const created = await call('POST', USERS, {
      body: {
        login: 'contract',
        name: 'Contract user',
        email: 'contract@example.test',
        password: 'a long password',
        units: [{ unit_id: 1 }],
        groups: [{ group_id: groupId }],
      },
    });
    expect(created, 201);
    const id = created.body.id;
    expect(await call('GET', `${USERS}/${id}`), 200);
    expect(
      await call('PUT', `${USERS}/${id}`, {
        body: {
          name: 'Contract',
          units: [{ id: String(created.body.units[0].id), unit_id: 1 }, { unit_id: secondUnit }],
        },
      }),
      200,
    );
    expect(await call('PATCH', `${USERS}/${id}`, { body: { email: null, groups: [] } }), 200);
    expect(await call('DELETE', `${USERS}/${id}`), 200);
  });

  it('import template logs: create 201, show and list answer their documented schemas', async () => {
    const template = await call('POST', TEMPLATES, { body: templateBody('Logged') });
    const created = await call('POST', LOGS, {
      body: { template_id: template.body.id, status: 'succeeded', rows_total: 10, rows_failed: 0 },
    });
    expect(created, 201);
    expect(await call('GET', `${LOGS}/${created.body.id}`), 200);
    expect(
      await call(
        'GET',
        LOGS +
          query({
            'filters[status][in][]': 'succeeded',
            'filters[template_id][=]': String(template.body.id),
          }),
      ),
      200,
    );
    expect(
      await call('POST', LOGS, { body: { template_id: template.body.id, status: 'done' } }),
      422,
    );
    expect(await call('GET', `${LOGS}/999999`), 404);
  });

  it('bearer 401s (no token, a malformed token, an unknown token) are documented, with WWW-Authenticate', async () => {
    const replies = [
      await httpRequest(server.url, 'GET', TEMPLATES),
      await httpRequest(server.url, 'GET', `${USERS}/1`, { headers: bearer('not-a-token') }),
      await httpRequest(server.url, 'POST', TEMPLATES, {
        headers: bearer(`svc_api_${'A'.repeat(30)}`),
        body: templateBody('Refused'),
      }),
    ];
    const targets = [
      ['GET', TEMPLATES],
      ['GET', `${USERS}/1`],
      ['POST', TEMPLATES],
    ] as const;
    replies.forEach((reply, i) => {
      const [method, target] = targets[i] ?? ['', ''];
      expect(reply, 401);
      contract.check(method, target, reply);
      assert.ok(
        contract.documentedHeader(method, target, 401, 'WWW-Authenticate'),
        `${method} ${target}: the 401 documents no WWW-Authenticate header`,
      );
      assert.equal(reply.headers.get('www-authenticate'), 'Bearer');
    });
  });

  it('a session route without a session answers a documented 401', async () => {
    const stranger = new SessionClient(server.url);
    expect(await session(stranger, 'GET', '/app/session'), 401);
    expect(await session(stranger, 'GET', '/app/notifications'), 401);
    expect(await session(stranger, 'POST', '/app/logout'), 401);
    expect(await session(stranger, 'GET', '/app/resources'), 401);
  });

  it('403s are documented: a token without the ability, a non-admin on /api/users and on the token admin API', async () => {
    const reader = await issue(server, { abilities: ['import-templates.read'] });
    const refused = await call('POST', TEMPLATES, {
      headers: bearer(reader.token),
      body: templateBody('No'),
    });
    expect(refused, 403);
    assert.deepStrictEqual(refused.body, { error: 'Missing ability: import-templates.write' });
    expect(await call('GET', USERS, { headers: bearer(reader.token) }), 403);

    const clerk = await seedIdentity(server, 'clerk');
    const notAdmin = await call('GET', USERS, { headers: bearer(clerk.token) });
    expect(notAdmin, 403);
    assert.deepStrictEqual(notAdmin.body, { message: 'This action is unauthorized.' });
    expect(await call('GET', `${USERS}/1`, { headers: bearer(clerk.token) }), 403);
    expect(await call('DELETE', `${USERS}/1`, { headers: bearer(clerk.token) }), 403);

    expect(
      await session(admin, 'POST', '/app/session/unit', { body: { unit_id: clerk.unitId } }),
      403,
    );
  });

  it('404s are documented: an unknown id, a non-numeric id; an unmatched route is the RouteNotFound answer', async () => {
    for (const [method, target] of [
      ['GET', `${TEMPLATES}/999999`],
      ['GET', `${TEMPLATES}/abc`],
      ['PUT', `${TEMPLATES}/999999`],
      ['PATCH', `${TEMPLATES}/12x`],
      ['DELETE', `${TEMPLATES}/999999`],
      ['GET', `${USERS}/999999`],
      ['DELETE', `${USERS}/nope`],
      ['GET', `${LOGS}/abc`],
    ] as const) {
      const reply = await call(
        method,
        target,
        method === 'PUT' || method === 'PATCH' ? { body: { title: 'x' } } : {},
      );
      expect(reply, 404);
      assert.deepStrictEqual(reply.body, { error: 'Resource not found' });
    }
    expect(await session(admin, 'GET', '/app/notifications/999999'), 404);
    expect(await session(admin, 'GET', '/app/lookups/nothing'), 404);
    expect(await session(admin, 'DELETE', '/app/tokens-api/999999'), 404);

    for (const [method, target] of [
      ['GET', '/api/nothing-here'],
      ['DELETE', `${LOGS}/1`],
      ['PUT', `${LOGS}/1`],
      ['GET', '/app/nothing'],
    ] as const) {
      const reply = await httpRequest(server.url, method, target, {
        headers: server.defaultHeaders,
      });
      contract.checkUnmatched(method, target, reply);
      assert.deepStrictEqual(reply.body, { error: 'Not found' });
    }
  });

  it('400 (malformed JSON), 415 and 422 (validation, malformed filters, a bad detail row id) are documented', async () => {
    const template = await call('POST', TEMPLATES, { body: templateBody('Errors') });
    const id = template.body.id;
    expect(await call('POST', TEMPLATES, { raw: '{"title": ' }), 400);
    expect(await call('PATCH', `${TEMPLATES}/${id}`, { raw: '[1,' }), 400);
    expect(await call('GET', TEMPLATES, { raw: '{"filters": ' }), 400);
    expect(await call('POST', '/app/login', { raw: '{', anonymous: true }), 400);

    expect(await call('GET', `${TEMPLATES}/${id}`, { raw: '{' }), 400);
    expect(await call('DELETE', `${USERS}/999999`, { raw: '{"a":' }), 400);
    const cookie = { cookie: [...admin.cookies].map(([n, v]) => `${n}=${v}`).join('; ') };
    const sessionRead = await httpRequest(server.url, 'GET', '/app/session', {
      headers: cookie,
      raw: '{',
    });
    expect(sessionRead, 400);
    contract.check('GET', '/app/session', sessionRead);
    expect(await call('GET', '/health', { raw: '{', anonymous: true }), 400);

    const text = { 'content-type': 'text/plain' };
    expect(await call('DELETE', `${TEMPLATES}/${id}`, { raw: 'x', headers: text }), 415);
    expect(await call('GET', `${USERS}/1`, { raw: 'x', headers: text }), 415);
    expect(await call('POST', TEMPLATES, { raw: 'title=x', headers: text }), 415);
    expect(await call('PUT', `${USERS}/1`, { raw: 'name=x', headers: text }), 415);
    expect(await call('GET', TEMPLATES, { raw: 'x', headers: text }), 415);

    const invalid = await call('POST', TEMPLATES, { body: { title: '' } });
    expect(invalid, 422);
    assert.ok(invalid.body.errors.database_name);
    expect(await call('PATCH', `${TEMPLATES}/${id}`, { body: { title: 'x'.repeat(201) } }), 422);
    expect(
      await call('POST', USERS, { body: { login: 'admin', name: 'Copy', password: 'short' } }),
      422,
    );
    expect(await call('GET', TEMPLATES + query({ filters: '{not json' })), 422);
    expect(await call('GET', TEMPLATES + query({ 'filters[title][bogus]': 'x' })), 422);
    expect(await call('GET', USERS + query({ filters: '[1,2]' })), 422);
    const badRow = await call('PUT', `${TEMPLATES}/${id}`, {
      body: { groups: [{ id: '012', group_id: groupId }] },
    });
    expect(badRow, 422);
    assert.ok(badRow.body.errors['groups.0.id'], badRow.text);
    expect(
      await call('PATCH', `${USERS}/1`, { body: { units: [{ id: 999999, unit_id: 1 }] } }),
      422,
    );
  });

  it('413: a body over BODY_LIMIT is documented', async () => {
    const small = await startTestServer({ BODY_LIMIT: '2048' });
    try {
      const big = { ...templateBody('Big'), groups: [], users: [], description: 'x'.repeat(4096) };
      const cookie = (await signedIn(small.url)).cookies;
      const sessionCookie = { cookie: [...cookie].map(([n, v]) => `${n}=${v}`).join('; ') };
      const tooLarge = await httpRequest(small.url, 'GET', '/app/notifications', {
        headers: sessionCookie,
        body: big,
      });
      expect(tooLarge, 413);
      contract.check('GET', '/app/notifications', tooLarge);
      const login = await httpRequest(small.url, 'POST', '/app/login', { body: big });
      expect(login, 413);
      contract.check('POST', '/app/login', login);
      for (const [method, target] of [
        ['POST', TEMPLATES],
        ['PUT', `${TEMPLATES}/1`],
        ['PATCH', `${USERS}/1`],
        ['POST', LOGS],
        ['POST', '/api/notifications'],
        ['GET', TEMPLATES],
        ['GET', `${USERS}/1`],
        ['DELETE', `${TEMPLATES}/1`],
      ] as const) {
        const reply = await httpRequest(small.url, method, target, {
          headers: small.defaultHeaders,
          body: big,
        });
        expect(reply, 413);
        contract.check(method, target, reply);
      }
    } finally {
      await small.close();
    }
  });

  it('419: a session write without the CSRF token is documented', async () => {
    expect(
      await session(admin, 'POST', TEMPLATES, { body: templateBody('Csrf'), csrf: false }),
      419,
    );
    expect(
      await session(admin, 'PATCH', `${USERS}/1`, { body: { name: 'x' }, csrf: 'wrong' }),
      419,
    );
    expect(await session(admin, 'DELETE', `${TEMPLATES}/1`, { csrf: false }), 419);
    expect(await session(admin, 'POST', '/app/notifications/mark-all-read', { csrf: false }), 419);
    expect(await session(admin, 'POST', '/app/tokens-api', { body: {}, csrf: false }), 419);
  });

  it('429 after 21 failed bearer attempts from one address is documented, with Retry-After', async () => {
    const from = '127.0.0.7';
    for (let i = 0; i < 20; i++) {
      const failed = await requestFrom(
        from,
        server.url,
        'GET',
        TEMPLATES,
        bearer(`svc_api_wrong${i}`),
      );
      expect(failed, 401);
    }
    const blocked = [
      ['GET', TEMPLATES, server.defaultHeaders],
      ['GET', `${USERS}/1`, bearer('svc_api_wrong')],
      ['DELETE', `${TEMPLATES}/1`, server.defaultHeaders],
    ] as const;
    for (const [method, target, headers] of blocked) {
      const reply = await requestFrom(from, server.url, method, target, headers);
      expect(reply, 429);
      contract.check(method, target, reply);
      assert.equal(reply.headers.get('retry-after'), '600');
      assert.ok(
        contract.documentedHeader(method, target, 429, 'Retry-After')?.required,
        `${method} ${target}: the 429 documents no required Retry-After`,
      );
    }
    const login = await httpRequest(server.url, 'POST', '/app/login', {
      body: { login: 'admin', password: ADMIN_PASSWORD },
      localAddress: from,
    });
    expect(login, 429);
    contract.check('POST', '/app/login', login);
  });

  it('session endpoints answer their documented schemas: login, session, unit switch, logout', async () => {
    const client = new SessionClient(server.url);
    const wrong = await client.login('admin', 'not the password');
    expect(wrong, 422);
    contract.check('POST', '/app/login', wrong);
    expect(await session(client, 'POST', '/app/login', { body: {}, csrf: false }), 422);
    const ok = await client.login();
    expect(ok, 200);
    contract.check('POST', '/app/login', ok);
    expect(await session(client, 'GET', '/app/session'), 200);
    expect(
      await session(client, 'POST', '/app/session/unit', { body: { unit_id: secondUnit } }),
      200,
    );
    expect(await session(client, 'POST', '/app/session/unit', { body: {} }), 422);
    expect(await session(client, 'POST', '/app/session/unit', { body: { unit_id: 1 } }), 200);
    expect(await session(client, 'POST', '/app/logout'), 200);
  });

  it('session mode on the resources answers the same documented schemas', async () => {
    const created = await session(admin, 'POST', TEMPLATES, { body: templateBody('Session') });
    expect(created, 201);
    expect(await session(admin, 'GET', TEMPLATES + query({ sort: 'title' })), 200);
    expect(
      await session(admin, 'PATCH', `${TEMPLATES}/${created.body.id}`, { body: { code: null } }),
      200,
    );
    expect(await session(admin, 'DELETE', `${TEMPLATES}/${created.body.id}`), 200);
    expect(await session(admin, 'GET', `${USERS}/1`), 200);
  });

  it('the token admin API answers its documented schemas: abilities, list, issue, revoke', async () => {
    expect(await session(admin, 'GET', '/app/tokens-api/abilities'), 200);
    const issued = await session(admin, 'POST', '/app/tokens-api', {
      body: { user_id: 1, unit_id: 1, name: 'contract', abilities: ['import-templates.read'] },
    });
    expect(issued, 201);
    expect(await session(admin, 'GET', '/app/tokens-api'), 200);
    expect(await session(admin, 'POST', '/app/tokens-api', { body: { user_id: 'x' } }), 422);
    expect(await session(admin, 'DELETE', `/app/tokens-api/${issued.body.data.id}`), 200);
  });

  it('notifications answer their documented schemas: send 201, list, open, read, unread, mark all read', async () => {
    const sent = await call('POST', '/api/notifications', {
      body: {
        to: [1],
        title: 'Import done',
        message: 'All rows imported.',
        level: 'success',
        data: { rows: 10 },
        action: { kind: 'navigate', url: '/admin/r/import-templates', label: 'Open' },
      },
    });
    expect(sent, 201);
    expect(
      await call('POST', '/api/notifications', {
        body: { to: 1, title: 'Plain', message: 'No action.' },
      }),
      201,
    );
    expect(
      await call('POST', '/api/notifications', { body: { to: 999999, title: 'x', message: 'y' } }),
      422,
    );
    const id = sent.body.data[0].id;
    expect(await session(admin, 'GET', '/app/notifications'), 200);
    expect(await session(admin, 'GET', '/app/notifications?page=9'), 200);
    expect(await session(admin, 'GET', `/app/notifications/${id}`), 200);
    expect(await session(admin, 'POST', `/app/notifications/${id}/unread`), 200);
    expect(await session(admin, 'POST', `/app/notifications/${id}/read`), 200);
    expect(await session(admin, 'POST', `/app/notifications/${id}/unread`), 200);
    expect(await session(admin, 'POST', '/app/notifications/mark-all-read'), 200);
    expect(await session(admin, 'POST', '/app/notifications/abc/read'), 404);
  });

  it('the admin front end endpoints, realtime settings, /health and /ready answer their documented schemas', async () => {
    expect(await session(admin, 'GET', '/app/realtime'), 200);
    expect(await session(admin, 'GET', '/app/resources'), 200);
    const lookup = await session(admin, 'GET', '/app/lookups/users?search=adm');
    expect(lookup, 200);
    assert.ok(lookup.body.data.length >= 1);
    expect(await session(admin, 'GET', '/app/lookups/import-templates?ids=1,2'), 200);
    expect(await call('GET', '/health', { anonymous: true }), 200);
    expect(await call('GET', '/ready', { anonymous: true }), 200);
  });

  it('the check fails an undocumented status, a body off its schema, a malformed date-time and a missing required header', () => {
    const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({
      status,
      headers: new Headers({ 'content-type': 'application/json; charset=utf-8', ...headers }),
      text: JSON.stringify(body),
      body,
    });
    assert.throws(
      () => contract.check('GET', '/health', json(418, { error: 'teapot' })),
      /GET \/health: status 418 is not documented[\s\S]*GET \/health, body \{"error":"teapot"\}/,
    );
    assert.throws(
      () => contract.check('GET', `${TEMPLATES}/1`, json(200, { id: '1' })),
      /does not match the schema/,
    );
    assert.throws(
      () =>
        contract.check(
          'GET',
          TEMPLATES,
          json(429, { error: 'Too many requests. Try again later.' }),
        ),
      /required header Retry-After is missing/,
    );
    assert.throws(
      () =>
        contract.check(
          'GET',
          TEMPLATES,
          json(200, {
            data: [],
            meta: { total: 0, per_page: 15, current_page: 1, last_page: 1 },
            extra: 1,
          }),
        ),
      /does not match the schema/,
    );
    assert.notDeepStrictEqual(
      contract.errorsAt('/components/schemas/Token/properties/created_at', 'yesterday'),
      [],
      'a date-time that is not one passes',
    );
  });

  it('every status the API gives was checked against the document', () => {
    const statuses = new Set([...contract.checked].map((key) => key.split(' ').pop()));
    for (const status of [
      '200',
      '201',
      '400',
      '401',
      '403',
      '404',
      '413',
      '415',
      '419',
      '422',
      '429',
    ])
      assert.ok(statuses.has(status), `no answer with status ${status} was checked`);
    for (const key of [
      `GET ${TEMPLATES} 200`,
      `HEAD ${TEMPLATES} 200`,
      `POST ${TEMPLATES} 201`,
      `PUT ${TEMPLATES}/{import_template} 200`,
      `PATCH ${TEMPLATES}/{import_template} 200`,
      `DELETE ${TEMPLATES}/{import_template} 200`,
      `GET ${USERS}/{user} 200`,
      `POST ${USERS} 201`,
      `DELETE ${USERS}/{user} 200`,
      `POST ${LOGS} 201`,
      `GET ${LOGS}/{import_template_log} 200`,
      'GET (unmatched) 404',
    ])
      assert.ok(contract.checked.has(key), `${key} was not checked`);
  });
});
