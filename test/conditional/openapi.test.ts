// The answers of conditional requests and idempotent creates are what GET /api/openapi.json says
// of them (issue 21 item 5): 304, 409, 412 and 428 are documented statuses of their operations,
// with their bodies and headers (test/helpers/openapi-contract.ts checks each reply).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importTemplates } from '../../src/app/resources/import-templates.js';
import { serviceRoutes } from '../../src/app/routes.js';
import { defineResource } from '../../src/engine/definition/define-resource.js';
import { Contract } from '../helpers/openapi-contract.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';
const STRICT = '/api/strict-templates';

describe('OpenAPI contract of ETag, If-Match, If-None-Match and Idempotency-Key', () => {
  let server: TestServer;
  let contract: Contract;

  before(async () => {
    server = await startTestServer(
      {},
      {
        resources: [
          ...serviceRoutes,
          {
            path: STRICT,
            parameter: 'strict_template',
            resource: defineResource({ model: importTemplates.entity, requireIfMatch: true }),
            middleware: {
              read: ['svc.api:import-templates.read'],
              write: ['svc.api:import-templates.write'],
            },
          },
        ],
      },
    );
    contract = await Contract.load(server.url);
  });
  after(() => server.close());

  const call = async (
    method: string,
    target: string,
    expected: number,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const reply = await server.request(method, target, options);
    assert.equal(reply.status, expected, reply.text);
    contract.check(method, target, reply);
    return reply;
  };

  it('documents 201 with ETag and Idempotent-Replayed, the 409 of a held key and the 422 of another body', async () => {
    const headers = { 'idempotency-key': 'contract-key' };
    const body = templatePayload({ title: 'Contract' });
    const first = await call('POST', PATH, 201, { body, headers });
    await call('POST', PATH, 201, { body, headers });
    await call('POST', PATH, 422, { body: templatePayload({ title: 'Other' }), headers });
    await server.service.database.db
      .updateTable('idempotency_keys')
      .set({ claim: 'held', claimed_at: Date.now(), status: null, answer: null })
      .where('idempotency_key', '=', 'contract-key')
      .execute();
    await call('POST', PATH, 409, { body, headers });
    const id = first.body.id;
    await call('GET', `${PATH}/${id}`, 304, { headers: { 'if-none-match': '"1"' } });
    await call('HEAD', `${PATH}/${id}`, 304, { headers: { 'if-none-match': '"1"' } });
    await call('PATCH', `${PATH}/${id}`, 412, {
      body: { title: 'x' },
      headers: { 'if-match': '"9"' },
    });
    await call('PUT', `${PATH}/${id}`, 200, {
      body: { title: 'y' },
      headers: { 'if-match': '"1"' },
    });
    await call('DELETE', `${PATH}/${id}`, 412, { headers: { 'if-match': '"1"' } });
    const list = await call('GET', PATH, 200);
    await call('GET', PATH, 304, { headers: { 'if-none-match': list.headers.get('etag') ?? '' } });
    await call('GET', PATH, 412, { headers: { 'if-match': '"stale"' } });
    await call('PATCH', `${STRICT}/${id}`, 428, { body: { title: 'z' } });
    await call('DELETE', `${STRICT}/${id}`, 428);
    await call('DELETE', `${STRICT}/${id}`, 200, { headers: { 'if-match': '"2"' } });
  });
});
