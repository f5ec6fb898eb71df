import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('companies resource', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('refuses with 422 to delete a company that still has units, and deletes nothing', async () => {
    const company = await server.post('/api/companies', { name: 'Acme' });
    assert.equal(company.status, 201);
    const unit = await server.post('/api/units', { name: 'Sales', company_id: company.body.id });
    assert.equal(unit.status, 201);

    const refused = await server.delete(`/api/companies/${company.body.id}`);
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.body, {
      message:
        'The record is still in use by other records, or refers to a record that does not exist.',
      errors: {
        record: [
          'The record is still in use by other records, or refers to a record that does not exist.',
        ],
      },
    });
    assert.equal((await server.get(`/api/companies/${company.body.id}`)).status, 200);
    assert.equal((await server.get(`/api/units/${unit.body.id}`)).body.company_id, company.body.id);
  });

  it('deletes a company without units', async () => {
    const company = await server.post('/api/companies', { name: 'Empty' });
    const deleted = await server.delete(`/api/companies/${company.body.id}`);
    assert.deepEqual(
      [deleted.status, deleted.body],
      [200, { message: 'Resource deleted successfully' }],
    );
  });
});
