// The change log read as a tail, every resource at once (DESIGN.md 3.9 "Real time"): what an
// instance relays to its sockets after the seq it relayed last. One statement per batch, by the
// primary key; the rows keep their scope (unit, company), which decides who is told.
import { sql } from 'kysely';
import { CHANGES_TABLE, FEED_COLUMNS } from '../../database/change-statements.js';
import type { Database } from '../../database/database.js';
import { param, runStatement, statementSite } from '../../database/statement-runner.js';
import type { Row } from '../../model/entity.js';
import { knownCommitted } from './committed.js';

/** Changes one read of the tail answers at most. */
export const TAIL_BATCH = 500;
/** A short read's changes at most (webhooks/delivery-pacing.ts: the webhook worker held back). */
export const SHORT_TAIL_BATCH = 25;

const TAILS = {
  [TAIL_BATCH]: statementSite('change log tail'),
  [SHORT_TAIL_BATCH]: statementSite('change log tail, short'),
};

/** The stored changes of `database` after `after`, oldest first, at most `limit`. */
export async function readTail(
  database: Database,
  after: number,
  limit: typeof TAIL_BATCH | typeof SHORT_TAIL_BATCH = TAIL_BATCH,
): Promise<Row[]> {
  const { db } = database;
  const rows = await runStatement<Row>(
    db,
    [TAILS[limit]],
    () =>
      db
        .selectFrom(CHANGES_TABLE)
        .select([...FEED_COLUMNS])
        .where('seq', '>', param('after'))
        .orderBy('seq')
        .limit(sql.lit(limit)), // MySQL binds no LIMIT
    { after },
  );
  const last = rows[rows.length - 1];
  // Changes become visible in seq order: every one up to the last read has committed.
  if (last) knownCommitted(database, Number(last.seq));
  return rows;
}
