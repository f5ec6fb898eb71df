// Retention of the change log (DESIGN.md 3.9: CHANGES_RETENTION_DAYS): changes older than the
// retention are deleted a batch at a time, each batch one short transaction (a DELETE of a seq
// range by the primary key, and the `pruned` mark that GET .../changes answers 410 below), with
// a pause between batches so writers are never held for long. Every instance prunes every
// database it writes to; two doing it at once delete the same ranges, and the mark only rises.
import { CHANGE_STATE_TABLE, CHANGES_TABLE } from '../../database/change-statements.js';
import type { Database } from '../../database/database.js';
import { param, runCached, statementSite } from '../../database/query-cache.js';
import type { Row } from '../../model/entity.js';
import { knownCommitted, numberCommitted } from './committed.js';

/** Changes one batch deletes at most. */
export const PRUNE_BATCH = 500;
/** How often each instance prunes. */
export const PRUNE_INTERVAL_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

const LAST_SEQ = statementSite('last change seq');
const OLDEST = statementSite('oldest changes');
const DELETE_UP_TO = statementSite('delete changes up to');
const MARK = statementSite('mark changes pruned');

/** Reads the database's last committed seq into what the process knows (Changes-Seq). */
export async function refreshKnownSeq(database: Database): Promise<number> {
  const { db, adapter } = database;
  const [row] = await runCached<Row>(
    db,
    [LAST_SEQ],
    () => db.selectNoFrom([adapter.lastChangeSeq.as('last')]),
    {},
  );
  const last = Number(row?.last ?? 0);
  knownCommitted(database, last);
  return last;
}

/**
 * Deletes the changes recorded before `cutoff` (epoch ms), oldest first, `batch` at a time;
 * answers how many it deleted. A batch also deletes the few at or below its last seq that a
 * skewed clock stamped later: the log is pruned by seq ranges, so that `pruned` says exactly
 * what is gone.
 */
export async function pruneChanges(
  database: Database,
  cutoff: number,
  batch = PRUNE_BATCH,
): Promise<number> {
  const { db } = database;
  let deleted = 0;
  for (;;) {
    const oldest = await runCached<Row>(
      db,
      [OLDEST, batch],
      () =>
        db
          .selectFrom(CHANGES_TABLE)
          .select('seq')
          .where('at', '<', param('cutoff'))
          .orderBy('seq')
          .limit(batch),
      { cutoff },
    );
    const last = oldest[oldest.length - 1];
    if (!last) return deleted;
    const upTo = Number(last.seq);
    await database.transaction(async (trx) => {
      await runCached(
        trx,
        [DELETE_UP_TO],
        () => trx.deleteFrom(CHANGES_TABLE).where('seq', '<=', param('upTo')),
        { upTo },
      );
      await runCached(
        trx,
        [MARK],
        () =>
          trx
            .updateTable(CHANGE_STATE_TABLE)
            .set({ value: param('upTo') })
            .where('name', '=', 'pruned')
            .where('value', '<', param('upTo')),
        { upTo },
      );
    });
    deleted += oldest.length;
    if (oldest.length < batch) return deleted;
    // Writers waiting for the lock go first.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface ChangeRetention {
  stop(): void;
}

/**
 * Prunes each of `databases` every PRUNE_INTERVAL_MS (the first time one interval after the
 * start), keeping `days` days; what fails is logged and tried again at the next interval.
 */
export function keepChanges(
  databases: () => readonly Database[],
  days: number,
  log: { warn(message: string): void },
  clock: () => number = Date.now,
): ChangeRetention {
  let running = false;
  const pass = async () => {
    if (running) return;
    running = true;
    try {
      for (const database of databases()) {
        // Changes a writer committed but did not number (cut by a kill -9) get their seqs.
        await numberCommitted(database);
        await refreshKnownSeq(database);
        await pruneChanges(database, clock() - days * DAY_MS);
      }
    } catch (error) {
      log.warn(`Pruning the change log failed: ${error instanceof Error ? error.message : error}`);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void pass(), PRUNE_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
