import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// The total of a list may be answered from a memo while the database is unchanged; these
// check that every kind of change is seen at once.
describe('list totals stay exact', () => {
  let server: TestServer;
  const total = async (query = '') => (await server.get(`/api/import-templates?per_page=1${query}`)).body.meta.total as number;
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

  it('a row written by another process is counted at once', async () => {
    const before = await total(active);
    const file = path.join(server.dataDir, 'svc.sqlite');
    const script = `const D=require('better-sqlite3');const d=new D(${JSON.stringify(file)});d.pragma('busy_timeout=5000');
d.prepare("insert into import_templates (title, database_name, mapping_json, active) values ('Outside', 'erp', '{}', 'Y')").run();d.close();`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(await total(active), before + 1);
  });
});
