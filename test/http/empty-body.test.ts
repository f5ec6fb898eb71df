// DESIGN.md 3.5: "A request whose body is empty is a request without a body, whatever its
// Content-Type (Postman and many clients send application/json on every GET and DELETE)."
// Every way of sending nothing: Content-Length: 0, a chunked body with no chunk, the header
// alone, a charset parameter, and a body of JSON whitespace only (it holds no JSON value either).
// Each answer must equal, status, type and body, the answer to the same request sent without a
// body and without a Content-Type.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { assertJson, JSON_TYPE, type Reply, readReply } from '../helpers/http.js';
import { signedIn } from '../helpers/session-client.js';
import { insertTemplate, snapshot, type TemplateRecord } from '../helpers/templates.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const NOT_AN_OBJECT = { message: 'The request body must be a JSON object.' };

interface EmptyBody {
  readonly label: string;
  readonly headers: Record<string, string>;
  /** What is written after the headers; undefined: nothing at all. */
  readonly payload?: string;
}

const JSON_HEADER = { 'content-type': 'application/json' };
const EMPTY_BODIES: readonly EmptyBody[] = [
  { label: 'Content-Length: 0', headers: { ...JSON_HEADER, 'content-length': '0' }, payload: '' },
  {
    label: 'chunked, no chunk',
    headers: { ...JSON_HEADER, 'transfer-encoding': 'chunked' },
    payload: '',
  },
  { label: 'no Content-Length', headers: JSON_HEADER },
  {
    label: 'charset parameter',
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '0' },
    payload: '',
  },
  {
    label: 'JSON whitespace only',
    headers: { ...JSON_HEADER, 'content-length': '4' },
    payload: ' \r\n\t',
  },
];

/** One request through node:http (fetch refuses a GET body), headers sent exactly as given. */
function send(
  baseUrl: string,
  method: string,
  target: string,
  headers: Record<string, string>,
  payload?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL(target, baseUrl),
      { method, headers, agent: false },
      (response) => {
        readReply(response).then(resolve, reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** Asserts `reply` equals `expected` exactly: status, Content-Type and the whole body text. */
function assertSame(reply: Reply, expected: Reply, label: string): void {
  assert.equal(
    reply.status,
    expected.status,
    `${label}: status ${reply.status}, body ${reply.text.slice(0, 300)}`,
  );
  assert.equal(reply.headers.get('content-type'), expected.headers.get('content-type'), label);
  assert.deepStrictEqual(reply.body, expected.body, label);
  assert.equal(reply.text, expected.text, label);
}

describe('DESIGN 3.5 an empty body is no body', () => {
  let server: TestServer;
  let auth: Record<string, string>;
  let existing: TemplateRecord;

  before(async () => {
    server = await startTestServer();
    auth = { authorization: server.defaultHeaders.authorization ?? '' };
    const { db } = server.service.database;
    existing = await insertTemplate(db, { title: 'Existing' });
    await insertTemplate(db, { title: 'Another' });
  });
  after(() => server.close());

  /** The request with each empty body, and without any body or Content-Type. */
  const withEach = (method: string, target: string, extra: Record<string, string> = auth) => ({
    none: () => send(server.url, method, target, extra),
    empty: (body: EmptyBody) =>
      send(server.url, method, target, { ...extra, ...body.headers }, body.payload),
  });

  it('an empty body with Content-Type application/json is no body, on every method', async () => {
    for (const body of EMPTY_BODIES) {
      const label = (method: string) => `${method} with ${body.label}`;
      // Reads.
      const list = withEach('GET', PATH);
      const listed = await list.empty(body);
      assertJson(listed, 200);
      assertSame(listed, await list.none(), label('GET list'));
      assertJson(await withEach('GET', `${PATH}/${existing.id}`).empty(body), 200, existing);
      for (const target of [PATH, `${PATH}/${existing.id}`]) {
        const head = await withEach('HEAD', target).empty(body);
        assert.equal(head.status, 200, label(`HEAD ${target}`));
        assert.equal(head.headers.get('content-type'), JSON_TYPE, label(`HEAD ${target}`));
        assert.equal(head.text, '', label(`HEAD ${target}`));
      }
      // Writes: a create or an update without a body is refused as before, and stores nothing.
      const before = await snapshot(server.service.database.db);
      for (const [method, target] of [
        ['POST', PATH],
        ['PUT', `${PATH}/${existing.id}`],
        ['PATCH', `${PATH}/${existing.id}`],
      ] as const) {
        const reply = await withEach(method, target).empty(body);
        assertJson(reply, 400, NOT_AN_OBJECT);
        assertSame(reply, await withEach(method, target).none(), label(`${method} ${target}`));
      }
      assert.deepStrictEqual(await snapshot(server.service.database.db), before, label('writes'));
      // A delete goes through.
      const doomed = await insertTemplate(server.service.database.db, {
        title: `Doomed ${body.label}`,
      });
      assertJson(await withEach('DELETE', `${PATH}/${doomed.id}`).empty(body), 200, {
        message: 'Resource deleted successfully',
      });
      assertJson(await withEach('GET', `${PATH}/${doomed.id}`).none(), 404, {
        error: 'Resource not found',
      });
    }
  });

  it('a list GET with an empty JSON body answers exactly as the same GET without a body, query input included', async () => {
    const target = `${PATH}?per_page=1&page=2&sort=title&direction=desc&filters=${encodeURIComponent(JSON.stringify({ title: { like: '%e%' } }))}`;
    const list = withEach('GET', target);
    const plain = await list.none();
    assertJson(plain, 200);
    assert.equal(plain.body.data.length, 1);
    for (const body of EMPTY_BODIES) assertSame(await list.empty(body), plain, body.label);
  });

  it('session routes (/app/*) take an empty JSON body as no body too', async () => {
    const client = await signedIn(server.url);
    const cookie = {
      cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
    };
    const withCsrf = { ...cookie, 'x-csrf-token': client.csrfToken ?? '' };
    const missing = {
      message: 'The login field is required. (and 1 more error)',
      errors: {
        login: ['The login field is required.'],
        password: ['The password field is required.'],
      },
    };
    for (const body of EMPTY_BODIES) {
      // Each answer carries a fresh CSRF token; the rest is the same.
      const session = withEach('GET', '/app/session', cookie);
      const [emptyReply, plainReply] = [await session.empty(body), await session.none()];
      assertJson(emptyReply, 200);
      assertJson(plainReply, 200);
      const { csrf_token: token, ...state } = emptyReply.body;
      const { csrf_token: _, ...plain } = plainReply.body;
      assert.equal(typeof token, 'string', `GET /app/session with ${body.label}`);
      assert.deepStrictEqual(state, plain, `GET /app/session with ${body.label}`);
      assert.equal(state.user.login, 'admin');
      assertJson(await withEach('POST', '/app/login', {}).empty(body), 422, missing);
      const abilities = withEach('GET', '/app/tokens-api/abilities', cookie);
      const listed = await abilities.empty(body);
      assertJson(listed, 200);
      assertSame(
        listed,
        await abilities.none(),
        `GET /app/tokens-api/abilities with ${body.label}`,
      );
    }
    // Last: a logout with an empty body ends the session.
    assertJson(await withEach('POST', '/app/logout', withCsrf).empty(EMPTY_BODIES[0]!), 200, {
      message: 'Logged out.',
    });
    assertJson(await withEach('GET', '/app/session', cookie).none(), 401, {
      message: 'Unauthenticated.',
    });
  });

  it('a body that holds anything but JSON whitespace is still parsed: malformed JSON stays a 400', async () => {
    const malformed = { message: 'The request body is not valid JSON.' };
    for (const payload of ['x', ' {', '\u00a0', '\ufeff']) {
      const headers = {
        ...auth,
        ...JSON_HEADER,
        'content-length': String(Buffer.byteLength(payload)),
      };
      assertJson(await send(server.url, 'GET', PATH, headers, payload), 400, malformed);
      assertJson(await send(server.url, 'POST', PATH, headers, payload), 400, malformed);
    }
  });
});
