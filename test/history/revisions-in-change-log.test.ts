// Data migration 0010: the revisions move into the change log, so a write appends one row. A
// database whose revisions were kept apart (0008, 0009) keeps its whole history: every revision
// becomes its change's `record`, and a revision whose change the feed had already pruned comes
// back below the feed's `pruned` mark (the feed still answers 410 for it). Through the real
// server on every engine: the history, the deleted list and a restore answer as before.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { down, up } from '../../src/database/migrations/data/0010-changes-hold-revisions.js';
import { assertJson } from '../helpers/http.js';
import { templatePayload } from '../helpers/seed.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PATH = '/api/import-templates';

describe('data migration 0010 moves the revisions into the change log', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  it('every revision kept apart becomes its change’s record, a pruned change’s revision included, and history, deleted list and restore answer as before', async () => {
    const created = await server.post(PATH, templatePayload({ title: 'Kept' }));
    assertJson(created, 201);
    const id = created.body.id as number;
    const updated = await server.patch(`${PATH}/${id}`, { title: 'Kept 2' });
    assertJson(updated, 200);
    const gone = await server.post(PATH, templatePayload({ title: 'Gone' }));
    assertJson(gone, 201);
    const goneId = gone.body.id as number;
    assertJson(await server.delete(`${PATH}/${goneId}`), 200);
    const historyBefore = await server.get(`${PATH}/${id}/history`);
    assertJson(historyBefore, 200);
    const deletedBefore = await server.get(`${PATH}/deleted`);
    assertJson(deletedBefore, 200);

    // Back to the layout of 0008/0009, then the old retention's work: the feed pruned the first
    // change (its revision stays in svc_revisions).
    const { db } = server.service.database;
    await down(db);
    const [first] = await db
      .selectFrom('svc_revisions')
      .select('seq')
      .orderBy('seq')
      .limit(1)
      .execute();
    const firstSeq = Number(first?.seq);
    await db.deleteFrom('svc_changes').where('seq', '=', firstSeq).execute();
    await db
      .updateTable('svc_change_state')
      .set({ value: firstSeq })
      .where('name', '=', 'pruned')
      .execute();
    const revisions = await db
      .selectFrom('svc_revisions')
      .select((eb) => eb.fn.countAll().as('n'))
      .execute();

    await up(db);
    const rows = await db
      .selectFrom('svc_changes')
      .select(['seq', 'action', 'record'])
      .orderBy('seq')
      .execute();
    assert.equal(rows.length, Number(revisions[0]?.n));
    assert.equal(Number(rows[0]?.seq), firstSeq);
    for (const row of rows)
      assert.equal(row.record === null, row.action === 'deleted', `seq ${row.seq} ${row.action}`);

    const history = await server.get(`${PATH}/${id}/history`);
    assertJson(history, 200, historyBefore.body);
    assert.deepEqual(
      history.body.data.map((r: { action: string }) => r.action),
      ['updated', 'created'],
    );
    assert.equal(history.body.data[0].record.title, 'Kept 2');
    assertJson(await server.get(`${PATH}/deleted`), 200, deletedBefore.body);
    // The feed still forgets the pruned change; the history keeps it.
    assert.equal((await server.get(`${PATH}/changes?after=0`)).status, 410);
    const feed = await server.get(`${PATH}/changes?after=${firstSeq}`);
    assertJson(feed, 200);
    assert.equal(feed.body.data.length, rows.length - 1);

    const restoreSeq = deletedBefore.body.data[0].restore_seq as number;
    const restored = await server.post(`${PATH}/${goneId}/history/${restoreSeq}/restore`, {});
    assertJson(restored, 201);
    assert.equal(restored.body.title, 'Gone');
  });
});
