import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { connectDatabase } from '../../src/database/connect.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// The total of a list may be answered from a memo while the database is unchanged; these
// check that every kind of change is seen at once.
describe('list totals stay exact', () => {
  let server: TestServer;
  const total = async (query = '') =>
    (await server.get(`/api/import-templates?per_page=1${query}`)).body.meta.total as number;
  const active = `&filters=${encodeURIComponent(JSON.stringify({ active: { '=': 'Y' } }))}`;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('a create, an update and a delete through the API change the total at once', async () => {
    assert.equal(await total(active), 0);
    const created = await server.post('/api/import-templates', templatePayload({ active: 'Y' }));
    assert.equal(await total(active), 1);
    await server.patch(`/api/import-templates/${created.body.id}`, { active: 'N' });
    assert.equal(await total(active), 0);
    await server.patch(`/api/import-templates/${created.body.id}`, { active: 'Y' });
    assert.equal(await total(active), 1);
    await server.delete(`/api/import-templates/${created.body.id}`);
    assert.equal(await total(active), 0);
  });

  it('a row written through another connection (another process, an operator) is counted at once', async () => {
    const before = await total(active);
    const outside = connectDatabase(server.databaseUrl, loadConfig({ DATA_DIR: server.dataDir }));
    try {
      await outside.db
        .insertInto('import_templates')
        .values({ title: 'Outside', database_name: 'erp', mapping_json: '{}', active: 'Y' })
        .execute();
    } finally {
      await outside.close();
    }
    assert.equal(await total(active), before + 1);
  });

  it('a row written in a transaction still open when the total was counted is counted once it commits', async () => {
    const before = await total(active);
    const outside = connectDatabase(server.databaseUrl, loadConfig({ DATA_DIR: server.dataDir }));
    try {
      await outside.transaction(async (trx) => {
        await trx
          .insertInto('import_templates')
          .values({ title: 'Later', database_name: 'erp', mapping_json: '{}', active: 'Y' })
          .execute();
        // Not committed yet: not counted, however often the total is asked for.
        assert.equal(await total(active), before);
        assert.equal(await total(active), before);
      });
    } finally {
      await outside.close();
    }
    assert.equal(await total(active), before + 1);
    assert.equal(await total(active), before + 1);
  });
});
