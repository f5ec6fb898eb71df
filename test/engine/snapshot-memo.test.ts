// Issue 22: on PostgreSQL a list's exact total is kept with the snapshot it was counted in
// (dialects/postgres/snapshot-memo.ts) and counted again only when a later statement's snapshot
// differs. A volatile query (random()) shows whether the query ran: the memo answers the value
// kept, a run answers a new one. The totals themselves are checked on every engine in
// list-total.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../../src/database/db.js';
import { runStatement, statementSite } from '../../src/database/statement-runner.js';
import { testEngine } from '../helpers/engines.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const SITE = statementSite('snapshot memo test');

/** A fresh random() from PostgreSQL, or the one kept by the memo. */
async function drawn(db: Db, memo = true): Promise<number> {
  const [row] = await runStatement(
    db,
    [SITE],
    () => db.selectNoFrom(sql<number>`random()`.as('r')),
    {},
    memo ? { reuse: true } : {},
  );
  return Number(row?.r);
}

describe('PostgreSQL: a memoised result is answered while the snapshot is the one it was read in', {
  skip:
    testEngine === 'postgres' ? false : 'the snapshot memo is PostgreSQL’s (SQLite has its own)',
}, () => {
  let server: TestServer;
  let db: Db;
  let outside: pg.Client;

  before(async () => {
    server = await startTestServer();
    db = server.service.database.db;
    outside = new pg.Client({ connectionString: server.databaseUrl });
    await outside.connect();
    await outside.query('create table memo_probe (n integer)');
  });
  after(async () => {
    await outside?.end();
    await server?.close();
  });

  it('the same statement with the same values answers the rows kept, without running it, while nothing is committed', async () => {
    const first = await drawn(db);
    assert.equal(await drawn(db), first);
    assert.equal(await drawn(db), first);
    // Without the memo the statement runs every time.
    assert.notEqual(await drawn(db, false), await drawn(db, false));
  });

  it('a commit through another connection (another instance, an operator) makes it run again at once', async () => {
    const kept = await drawn(db);
    await outside.query('insert into memo_probe values (1)');
    const after = await drawn(db);
    assert.notEqual(after, kept);
    assert.equal(await drawn(db), after);
  });

  it('a transaction in progress when the rows were kept is seen as soon as it commits', async () => {
    await outside.query('begin');
    await outside.query('insert into memo_probe values (2)');
    const during = await drawn(db);
    assert.equal(await drawn(db), during);
    await outside.query('commit');
    assert.notEqual(await drawn(db), during);
  });

  it('inside a transaction the memo is not used (its own writes are not in its snapshot)', async () => {
    await drawn(db);
    await server.service.database.transaction(async (trx) => {
      assert.notEqual(await drawn(trx), await drawn(trx));
    });
  });
});
