import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedGroups, seedUsers, templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('import templates smoke', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await seedUsers(server.service.database.db, ['alice']);
    await seedGroups(server.service.database.db, ['g1']);
  });
  after(() => server.close());

  it('creates and reads back a template with details', async () => {
    const created = await server.post(
      '/api/import-templates',
      templatePayload({ groups: [{ group_id: 1 }], users: [{ user_id: 1 }] }),
    );
    assert.equal(created.status, 201);
    const shown = await server.get(`/api/import-templates/${created.body.id}`);
    assert.deepEqual(shown.body, created.body);
  });
});
