// Which unit a new session acts in (DESIGN.md 3.6: the user's unit with the lowest link id),
// skipping units a session could not act in, so an inactive first unit does not lock a user out.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signedIn } from '../helpers/session-client.js';
import { seedLoginUser, seedUnit, USER_PASSWORD } from '../helpers/session-seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('session mode: the unit of a new session', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({}, { anonymous: true });
  });
  after(() => server.close());

  it('is the first linked unit when it is usable', async () => {
    const db = server.service.database.db;
    const first = await seedUnit(db, 'First');
    const second = await seedUnit(db, 'Second');
    await seedLoginUser(db, 'usable-first', [first, second]);
    const session = await signedIn(server.url, 'usable-first', USER_PASSWORD);
    assert.deepEqual((await session.get('/app/session')).body.unit, { id: first, name: 'First' });
  });

  it('skips an inactive first unit and acts in the next usable one', async () => {
    const db = server.service.database.db;
    const inactive = await seedUnit(db, 'Closed');
    await db.updateTable('units').set({ active: 'N' }).where('id', '=', inactive).execute();
    const open = await seedUnit(db, 'Open');
    await seedLoginUser(db, 'inactive-first', [inactive, open]);
    const session = await signedIn(server.url, 'inactive-first', USER_PASSWORD);
    assert.deepEqual((await session.get('/app/session')).body.unit, { id: open, name: 'Open' });
    assert.equal((await session.get('/api/import-templates')).status, 200);
  });
});
