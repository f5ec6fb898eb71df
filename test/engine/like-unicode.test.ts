// Issue 31, 8: `like` folds non-ASCII letters the same on every engine: SQLite lowers both sides
// with svc_casefold (JavaScript's toLowerCase) when the pattern holds non-ASCII characters, and
// PostgreSQL does the same on a database of the C collation and character classification that
// docs/database-engines.md asks for (whose own ILIKE folds ASCII only), as MariaDB does. The list's
// `like` and `not like` filters and the pickers' lookup search, through the real server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase, testEngine } from '../helpers/engines.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { SessionClient } from '../helpers/session-client.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const TITLES = ['Ünïcödé', 'ÉCOLE', 'école', 'Ωmega', 'plain', 'Straße'];

describe('like folds non-ASCII letters on every engine (PostgreSQL: a C-locale database)', () => {
  let server: TestServer;
  let database: TestDatabase;

  before(async () => {
    database = await createTestDatabase(testEngine, { postgresLocale: 'C' });
    server = await startTestServer(database.url ? { DATABASE_URL: database.url } : {});
    for (const title of TITLES)
      assertJson(await server.post(PATH, templatePayload({ title })), 201);
  });
  after(async () => {
    await server.close();
    await database.drop();
  });

  const titles = async (filters: Record<string, Record<string, string>>) => {
    const reply = await server.get(
      `${PATH}?filters=${encodeURIComponent(JSON.stringify(filters))}`,
    );
    assertJson(reply, 200);
    return reply.body.data.map((t: { title: string }) => t.title).sort();
  };

  it('finds Ünïcödé by %ÜNÏ% and ÉCOLE and école by %éCO%', async () => {
    assert.deepEqual(await titles({ title: { like: '%ÜNÏ%' } }), ['Ünïcödé']);
    assert.deepEqual(await titles({ title: { like: '%éCO%' } }), ['ÉCOLE', 'école']);
    assert.deepEqual(await titles({ title: { like: 'ωMEGA' } }), ['Ωmega']);
  });

  it('leaves out exactly those with not like', async () => {
    assert.deepEqual(
      await titles({ title: { 'not like': '%ÜNÏ%' } }),
      ['ÉCOLE', 'Straße', 'école', 'plain', 'Ωmega'].sort(),
    );
  });

  it('finds them by a lookup search too', async () => {
    const admin = await new SessionClient(server.url).signIn();
    const reply = await admin.get(
      `/app/lookups/import-templates?search=${encodeURIComponent('ÜNÏC')}`,
    );
    assertJson(reply, 200);
    assert.deepEqual(
      reply.body.data.map((t: { label: string }) => t.label),
      ['Ünïcödé'],
    );
  });
});
