// A filter value of another type than its column (a word or a fraction for a whole number): SQLite and
// MySQL compare it as unequal and select nothing; PostgreSQL refuses to compare it, which the
// service answers 422 naming the filters, never 500.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testEngine } from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const filters = (value: unknown) => `/api/import-templates?filters=${encodeURIComponent(JSON.stringify(value))}`;

describe('filter values of another type than their column', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    assert.equal((await server.post('/api/import-templates', templatePayload())).status, 201);
  });
  after(() => server.close());

  for (const [column, value] of [['created_by', 'abc'], ['created_by', ''], ['created_by', '1.5']] as const) {
    it(`answers ${testEngine === 'postgres' ? '422' : 'an empty page'} for ${column} = ${JSON.stringify(value)}`, async () => {
      const reply = await server.get(filters({ [column]: { '=': value } }));
      if (testEngine === 'postgres') assertJson(reply, 422, { message: 'A value does not fit the type of its column.', errors: { filters: ['A value does not fit the type of its column.'] } });
      else assertJson(reply, 200, { data: [], meta: { total: 0, per_page: 15, current_page: 1, last_page: 1 } });
    });
  }
});
