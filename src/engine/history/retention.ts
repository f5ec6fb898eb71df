// Retention of the revisions (DESIGN.md 3.11: HISTORY_RETENTION_DAYS): the oldest revisions are
// read a batch at a time by the primary key (never a scan: ids follow the appends, and so, but
// for clock skew, does `at`), and those before the cutoff deleted by one short statement each
// batch, with a pause between batches so writers are never held for long. Every instance prunes
// every database it writes to; two doing it at once delete the same rows.
import type { Database } from '../../database/database.js';
import { param, runCached, statementSite } from '../../database/query-cache.js';
import { REVISIONS_TABLE } from '../../database/revision-statements.js';
import type { Row } from '../../model/entity.js';

/** Revisions one batch deletes at most. */
export const PRUNE_BATCH = 500;
/** How often each instance prunes. */
export const PRUNE_INTERVAL_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

const OLDEST = statementSite('oldest revisions');
const DELETE_UP_TO = statementSite('delete revisions up to');

/** Deletes the revisions recorded before `cutoff` (epoch ms), oldest first; answers how many. */
export async function pruneRevisions(
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
      () => db.selectFrom(REVISIONS_TABLE).select(['id', 'at']).orderBy('id').limit(batch),
      {},
    );
    // The run of old ones at the start: the first revision within the retention ends it.
    const end = oldest.findIndex((row) => Number(row.at) >= cutoff);
    const old = end < 0 ? oldest : oldest.slice(0, end);
    const last = old[old.length - 1];
    if (!last) return deleted;
    await runCached(
      db,
      [DELETE_UP_TO],
      () =>
        db
          .deleteFrom(REVISIONS_TABLE)
          .where('id', '<=', param('upTo'))
          .where('at', '<', param('cutoff')),
      { upTo: Number(last.id), cutoff },
    );
    deleted += old.length;
    if (old.length < batch) return deleted;
    // Writers waiting for the lock go first.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface RevisionRetention {
  stop(): void;
}

/**
 * Prunes each of `databases` every PRUNE_INTERVAL_MS (the first time one interval after the
 * start), keeping `days` days; what fails is logged and tried again at the next interval.
 */
export function keepRevisions(
  databases: () => readonly Database[],
  days: number,
  log: { warn(message: string): void },
  clock: () => number = Date.now,
): RevisionRetention {
  let running = false;
  const pass = async () => {
    if (running) return;
    running = true;
    try {
      for (const database of databases()) await pruneRevisions(database, clock() - days * DAY_MS);
    } catch (error) {
      log.warn(`Pruning the history failed: ${error instanceof Error ? error.message : error}`);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void pass(), PRUNE_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
