// A filter value of another type than its column (a word or a fraction for a whole number): SQLite and
// MySQL compare it as unequal and select nothing; PostgreSQL refuses to compare it, which the
// service answers 422 naming the filters, never 500. The same holds for a NUL character in text,
// which SQLite and MySQL store and PostgreSQL refuses, in a filter and in a write.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testEngine } from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const INVALID = 'A value does not fit the type of its column.';
const filters = (value: unknown) =>
  `/api/import-templates?filters=${encodeURIComponent(JSON.stringify(value))}`;

describe('filter values of another type than their column', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    assert.equal((await server.post('/api/import-templates', templatePayload())).status, 201);
  });
  after(() => server.close());

  for (const [column, value] of [
    ['created_by', 'abc'],
    ['created_by', ''],
    ['created_by', '1.5'],
  ] as const) {
    it(`answers ${testEngine === 'postgres' ? '422' : 'an empty page'} for ${column} = ${JSON.stringify(value)}`, async () => {
      const reply = await server.get(filters({ [column]: { '=': value } }));
      if (testEngine === 'postgres')
        assertJson(reply, 422, { message: INVALID, errors: { filters: [INVALID] } });
      else
        assertJson(reply, 200, {
          data: [],
          meta: { total: 0, per_page: 15, current_page: 1, last_page: 1 },
        });
    });
  }

  it(`answers ${testEngine === 'postgres' ? '422' : 'an empty page'} for a NUL character in a filter value`, async () => {
    for (const condition of [{ '=': 'a\u0000b' }, { in: ['\u0000'] }]) {
      const reply = await server.get(filters({ title: condition }));
      if (testEngine === 'postgres')
        assertJson(reply, 422, { message: INVALID, errors: { filters: [INVALID] } });
      else
        assertJson(reply, 200, {
          data: [],
          meta: { total: 0, per_page: 15, current_page: 1, last_page: 1 },
        });
    }
  });

  it('answers 422 for a NUL character in a like pattern on every engine (SQLite would end the pattern there)', async () => {
    for (const op of ['like', 'not like']) {
      const message = `The filters.title value for "${op}" must not contain a NUL character.`;
      assertJson(await server.get(filters({ title: { [op]: '%\u0000%' } })), 422, {
        message,
        errors: { 'filters.title': [message] },
      });
    }
  });

  it(`${testEngine === 'postgres' ? 'refuses with a 422 and stores nothing' : 'stores'} a NUL character in a written text field`, async () => {
    const before = (await server.get('/api/import-templates')).body.meta.total;
    const reply = await server.post(
      '/api/import-templates',
      templatePayload({ import_mode: 'a\u0000b' }),
    );
    if (testEngine === 'postgres') {
      assertJson(reply, 422, { message: INVALID, errors: { record: [INVALID] } });
      assert.equal((await server.get('/api/import-templates')).body.meta.total, before);
    } else {
      assert.equal(reply.status, 201, reply.text);
      assert.equal(
        (await server.get(`/api/import-templates/${reply.body.id}`)).body.import_mode,
        'a\u0000b',
      );
    }
  });
});
