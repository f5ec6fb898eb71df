// Issue 19, item 1, and DESIGN.md 3.6 "Bounds": the edges of the HTTP layer. Every answer svc
// or Fastify makes is JSON in svc's shapes with `X-Content-Type-Options: nosniff`; authenticated
// and /app answers are `Cache-Control: no-store`; a request that does not arrive within
// REQUEST_TIMEOUT_MS is a 408 and a closed connection; what the HTTP parser refuses (malformed
// requests, headers too large) is answered from the catalog too; a body nested deeper than 64
// levels is a 400, one holding text that is not valid Unicode a 422 on its field; a `__proto__`
// key is data, never a prototype.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { assertJson, JSON_TYPE } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { signedIn } from '../helpers/session-client.js';
import { snapshot } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const TIMEOUT_MS = 400;

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
  /** Whether the server closed the connection after answering. */
  readonly closed: boolean;
  readonly elapsedMs: number;
}

/** Writes `text` on a fresh connection and reads what comes back until the server closes it. */
function rawExchange(baseUrl: string, text: string, waitMs = 5_000): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(text));
    let received = '';
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const [head = '', body = ''] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        parsed = body;
      }
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: parsed,
        closed,
        elapsedMs: Date.now() - started,
      });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
    });
    socket.on('close', () => finish(true));
    socket.on('error', reject);
  });
}

function assertCatalogAnswer(answer: RawAnswer, status: number, body: unknown): void {
  assert.equal(answer.status, status, JSON.stringify(answer));
  assert.equal(answer.headers['content-type'], JSON_TYPE);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff');
  assert.deepStrictEqual(answer.body, body);
  assert.equal(answer.closed, true, 'the connection is closed');
}

describe('HTTP edges (issue 19)', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) });
  });
  after(() => server.close());

  it('every answer carries X-Content-Type-Options: nosniff, errors and unauthenticated ones included', async () => {
    const anonymous = { authorization: '' };
    const replies = [
      await server.get('/health'),
      await server.get(PATH),
      await server.get(`${PATH}/999999`),
      await server.get('/no/such/route'),
      await server.get(PATH, { headers: anonymous }),
      await server.request('POST', PATH, { raw: '{"title": ' }),
      await server.post(PATH, {}),
      await server.get('/api/openapi.json'),
    ];
    for (const reply of replies)
      assert.equal(reply.headers.get('x-content-type-options'), 'nosniff', `${reply.status}`);
  });

  it('authenticated and /app answers carry Cache-Control: no-store (a plain token, a CSRF token, records)', async () => {
    const session = await signedIn(server.url);
    const issued = await session.post('/app/tokens-api', {
      user_id: 1,
      unit_id: 1,
      name: 'cache check',
      abilities: [],
    });
    assertJson(issued, 201);
    const replies = [
      await server.get(PATH),
      await server.post(PATH, templatePayload({ title: 'Cached?' })),
      await session.get('/app/session'),
      await session.get('/app/notifications'),
      await session.post('/app/login', { login: 'admin', password: 'wrong' }, { csrf: false }),
      issued,
    ];
    for (const reply of replies)
      assert.equal(reply.headers.get('cache-control'), 'no-store', `${reply.status} ${reply.text}`);
  });

  it('a body that does not arrive within REQUEST_TIMEOUT_MS is a 408 {message} and the connection is closed', async () => {
    const answer = await rawExchange(
      server.url,
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: ${server.defaultHeaders.authorization}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"t',
    );
    assertCatalogAnswer(answer, 408, {
      message: `The request did not arrive within ${TIMEOUT_MS} ms.`,
    });
    // Node looks for late requests once a second at most here (connectionsCheckingInterval).
    assert.ok(answer.elapsedMs < TIMEOUT_MS + 2_500, `answered after ${answer.elapsedMs} ms`);
  });

  it('headers that never finish arriving are a 408 too', async () => {
    const answer = await rawExchange(server.url, `GET ${PATH} HTTP/1.1\r\nHost: x\r\n`);
    assertCatalogAnswer(answer, 408, {
      message: `The request did not arrive within ${TIMEOUT_MS} ms.`,
    });
  });

  it('headers larger than the limit are a 431 {message}', async () => {
    const answer = await rawExchange(
      server.url,
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    assertCatalogAnswer(answer, 431, { message: 'The request headers are too large.' });
  });

  it('a request that is not HTTP is a 400 {message}', async () => {
    const answer = await rawExchange(server.url, 'HELLO THERE\r\n\r\n');
    assertCatalogAnswer(answer, 400, { message: 'The request is not valid HTTP/1.1.' });
  });

  it('a request without a Host header is a 400 {message} (Node answered it before svc, empty and without nosniff)', async () => {
    const answer = await rawExchange(server.url, 'GET /health HTTP/1.1\r\n\r\n');
    assertCatalogAnswer(answer, 400, { message: 'The request has no Host header.' });
  });

  it('a request with two Host headers is a 400 {message}, not answered for either host', async () => {
    const answer = await rawExchange(
      server.url,
      `GET ${PATH} HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nAuthorization: ${server.defaultHeaders.authorization}\r\n\r\n`,
    );
    assertCatalogAnswer(answer, 400, { message: 'The request has more than one Host header.' });
  });

  it('an Expect header other than 100-continue is a 417 {message} (Node answered it before svc, empty and without nosniff)', async () => {
    const answer = await rawExchange(
      server.url,
      'GET /health HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\n\r\n',
    );
    assertCatalogAnswer(answer, 417, {
      message: 'The Expect header can only be 100-continue.',
    });
  });

  it('a refused WebSocket upgrade is a JSON 404 too (the embedded Pusher server answers only /app/{key})', async () => {
    const realtime = await startTestServer({ REALTIME_NOTIFICATIONS: 'true' });
    try {
      const answer = await rawExchange(
        realtime.url,
        'GET /elsewhere HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      );
      assertCatalogAnswer(answer, 404, { error: 'Not found' });
    } finally {
      await realtime.close();
    }
  });

  it('a path that does not decode is a 400 {message} in svc shape, the path not echoed', async () => {
    const reply = await server.get(`${PATH}/%E0%A4%A`);
    assertJson(reply, 400, { message: 'The request path is not a valid URL.' });
    assert.equal(reply.headers.get('x-content-type-options'), 'nosniff');
  });

  it('a body nested deeper than 64 levels is a 400 {message}; 64 levels are accepted', async () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    const notify = (data: string) =>
      server.request('POST', '/api/notifications', {
        raw: `{"to": 1, "title": "Deep", "message": "m", "data": {"x": ${data}}}`,
      });
    const refused = { message: 'The request body is nested deeper than 64 levels.' };
    const before = await snapshot(server.service.database.db);
    assertJson(await notify(nested(63)), 400, refused);
    assertJson(await notify(nested(5_000)), 400, refused);
    // An object nesting as deep, and brackets inside strings that are not nesting at all.
    assertJson(
      await server.request('POST', PATH, { raw: `${'{"a":'.repeat(65)}1${'}'.repeat(65)}` }),
      400,
      refused,
    );
    assert.deepEqual(await snapshot(server.service.database.db), before);
    // 64 levels: the body, then `extra` (ignored: not a field) 63 deep.
    const deepest = JSON.stringify(templatePayload({ title: 'Deepest' })).replace(
      /}$/,
      `, "extra": ${nested(63)}}`,
    );
    assertJson(await server.request('POST', PATH, { raw: deepest }), 201);
    const brackets = await server.post(PATH, templatePayload({ description: '[['.repeat(100) }));
    assertJson(brackets, 201);
  });

  it("a notification's data and action parameters nest at most 16 levels (422 beyond: MariaDB's JSON check stops at 32)", async () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    const notify = (data: string, parameters = '{}') =>
      server.request('POST', '/api/notifications', {
        raw: `{"to": 1, "title": "Deep", "message": "m", "data": {"x": ${data}}, "action": {"kind": "go", "screen": "s", "parameters": ${parameters}}}`,
      });
    const tooDeep = (field: string) =>
      `The ${field} field must not be nested deeper than 16 levels.`;
    assertJson(await notify(nested(16)), 422, {
      message: tooDeep('data'),
      errors: { data: [tooDeep('data')] },
    });
    assertJson(await notify('1', `{"p": ${nested(16)}}`), 422, {
      message: tooDeep('action.parameters'),
      errors: { 'action.parameters': [tooDeep('action.parameters')] },
    });
    assertJson(await notify(nested(15), `{"p": ${nested(15)}}`), 201);
  });

  it('text that is not valid Unicode (a lone surrogate) is a 422 on its field, nothing stored', async () => {
    const before = await snapshot(server.service.database.db);
    const payload = JSON.stringify(templatePayload({ title: 'Lone X' })).replace('X', '\\ud800');
    assertJson(await server.request('POST', PATH, { raw: payload }), 422, {
      message: 'The title field must be valid Unicode text.',
      errors: { title: ['The title field must be valid Unicode text.'] },
    });
    const inRow = JSON.stringify({ ...templatePayload(), groups: [{ group_id: 'G\\udc00' }] });
    assertJson(
      await server.request('POST', PATH, { raw: inRow.replace('\\\\udc00', '\\udc00') }),
      422,
      {
        message: 'The groups.0.group_id field must be valid Unicode text.',
        errors: {
          'groups.0.group_id': ['The groups.0.group_id field must be valid Unicode text.'],
        },
      },
    );
    assert.deepEqual(await snapshot(server.service.database.db), before);
    // A well-formed pair written as escapes is one character, stored as sent.
    const pair = JSON.stringify(templatePayload({ title: 'Pair X' })).replace(
      'X',
      '\\ud83d\\ude00',
    );
    const stored = await server.request('POST', PATH, { raw: pair });
    assertJson(stored, 201);
    assert.equal(stored.body.title, 'Pair 😀');
  });

  it('a valid JSON body holding a __proto__ key is data: accepted, never a prototype, never a field', async () => {
    const raw = JSON.stringify(templatePayload({ title: 'Proto' })).replace(
      /}$/,
      ', "__proto__": {"created_by": 999, "active": "N", "polluted": true}, "constructor": {"prototype": {"polluted": true}}}',
    );
    const created = await server.request('POST', PATH, { raw });
    assertJson(created, 201);
    assert.equal(created.body.created_by, 1, 'created_by is the caller, not the __proto__ key');
    assert.equal(created.body.active, 'Y');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const sent = await server.request('POST', '/api/notifications', {
      raw: '{"to": 1, "title": "P", "message": "m", "data": {"__proto__": {"polluted": true}, "n": 1}}',
    });
    assertJson(sent, 201);
    // Stored and answered as sent: an own key named __proto__ among the data.
    const { data } = sent.body.data[0];
    assert.ok(Object.hasOwn(data, '__proto__'), JSON.stringify(data));
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(data, '__proto__')?.value, {
      polluted: true,
    });
    assert.equal(data.n, 1);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
