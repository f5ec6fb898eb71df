// SPEC.md 5.1.2: a token's scope is re-validated on every request. On SQLite the check may be
// answered from an exact memo that this process's writes to other tables (the resources' own)
// leave in place (database/dialects/sqlite/result-memo.ts). These tests change what the check
// reads in each way the memo must notice, right after such writes, and expect the change to
// count at once. They hold on every engine; the memo exists on SQLite only.
import { after, before, describe, it } from 'node:test';
import { revokeToken } from '../../src/auth/tokens/token-service.js';
import { loadConfig } from '../../src/config/config.js';
import { connectDatabase } from '../../src/database/connect.js';
import type { Database } from '../../src/database/database.js';
import { assertBearer401, bearer, seedIdentity } from '../helpers/bearer.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const READ_WRITE = ['import-templates.read', 'import-templates.write'];

describe('token check across writes to other tables', () => {
  let server: TestServer;
  let elsewhere: Database;

  before(async () => {
    server = await startTestServer();
    // Another connection to the same database, as another process (the CLI) would have.
    elsewhere = connectDatabase(server.databaseUrl, loadConfig({ DATA_DIR: server.dataDir }));
  });
  after(async () => {
    await elsewhere?.close();
    await server?.close();
  });

  /** The token is checked (and memoised), then the server writes a template with it. */
  async function useAndWrite(token: string): Promise<void> {
    assertJson(await server.get('/api/import-templates', { headers: bearer(token) }), 200);
    assertJson(
      await server.post('/api/import-templates', templatePayload(), { headers: bearer(token) }),
      201,
    );
    assertJson(await server.get('/api/import-templates', { headers: bearer(token) }), 200);
  }

  it('refuses a token revoked by another connection right after this server wrote a template', async () => {
    const who = await seedIdentity(server, 'revoked-elsewhere', { abilities: READ_WRITE });
    await useAndWrite(who.token);
    await revokeToken(elsewhere, who.tokenId);
    assertBearer401(
      await server.get('/api/import-templates', { headers: bearer(who.token) }),
      'Token revoked.',
    );
  });

  it('refuses a token whose user an admin deactivates through /api/users, between template writes', async () => {
    const who = await seedIdentity(server, 'deactivated-here', { abilities: READ_WRITE });
    await useAndWrite(who.token);
    assertJson(await server.patch(`/api/users/${who.userId}`, { active: 'N' }), 200);
    assertJson(await server.get('/api/import-templates', { headers: bearer(who.token) }), 403, {
      error: 'The user is inactive.',
    });
  });

  it('refuses a token whose unit is deactivated by another connection while this server writes', async () => {
    const who = await seedIdentity(server, 'unit-elsewhere', { abilities: READ_WRITE });
    await useAndWrite(who.token);
    const writing = server.post('/api/import-templates', templatePayload(), {
      headers: bearer(who.token),
    });
    await elsewhere.db
      .updateTable('units')
      .set({ active: 'N' })
      .where('id', '=', who.unitId)
      .execute();
    await writing;
    assertJson(await server.get('/api/import-templates', { headers: bearer(who.token) }), 403, {
      error: 'The unit is inactive.',
    });
  });

  it('refuses a token revoked on this server’s own connection, between template writes', async () => {
    const who = await seedIdentity(server, 'revoked-here', { abilities: READ_WRITE });
    await useAndWrite(who.token);
    await revokeToken(server.service.database, who.tokenId);
    assertBearer401(
      await server.post('/api/import-templates', templatePayload(), { headers: bearer(who.token) }),
      'Token revoked.',
    );
  });
});
