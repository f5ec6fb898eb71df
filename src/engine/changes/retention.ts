// Retention of the change log (DESIGN.md 3.9 CHANGES_RETENTION_DAYS) and of the history it holds
// (3.11 HISTORY_RETENTION_DAYS). Each keeps a mark in svc_change_state: the feed answers 410 at
// or below `pruned`, the history shows nothing at or below `history_pruned`. A pass raises each
// mark over the changes recorded before its cutoff, a batch at a time in seq order (never a
// scan: seqs follow the appends, and so, but for clock skew, does `at`; the first change within
// the retention stops the mark), then deletes the changes below both marks by seq ranges, each
// batch one short statement, with a pause between batches so writers are never held for long.
// Every instance prunes every database it writes to; two doing it at once raise the marks to
// the same seqs and delete the same ranges.
import {
  CHANGE_STATE_TABLE,
  CHANGES_TABLE,
  FEED_PRUNED,
  HISTORY_PRUNED,
} from '../../database/change-statements.js';
import type { Database } from '../../database/database.js';
import { param, runStatement, statementSite } from '../../database/statement-runner.js';
import type { Row } from '../../model/entity.js';
import { knownCommitted, numberCommitted } from './committed.js';

/** Changes one batch reads or deletes at most. */
export const PRUNE_BATCH = 500;
/** How often each instance prunes. */
export const PRUNE_INTERVAL_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

const LAST_SEQ = statementSite('last change seq');
const ABOVE_MARK = statementSite('changes above a mark');
const RAISE_MARK = statementSite('raise a retention mark');
const MARKS = statementSite('retention marks');
const BELOW = statementSite('changes below both marks');
const DELETE_UP_TO = statementSite('delete changes up to');

/** Reads the database's last committed seq into what the process knows (Changes-Seq). */
export async function refreshKnownSeq(database: Database): Promise<number> {
  const { db, adapter } = database;
  const [row] = await runStatement<Row>(
    db,
    [LAST_SEQ],
    () => db.selectNoFrom([adapter.lastChangeSeq.as('last')]),
    {},
  );
  const last = Number(row?.last ?? 0);
  knownCommitted(database, last);
  return last;
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

/**
 * Raises the mark `name` over the changes recorded before `cutoff` (epoch ms), oldest first,
 * `batch` at a time; answers how many it passed.
 */
async function raiseMark(
  database: Database,
  name: string,
  cutoff: number,
  batch: number,
): Promise<number> {
  const { db } = database;
  let passed = 0;
  for (;;) {
    const rows = await runStatement<Row>(
      db,
      [ABOVE_MARK, batch],
      () =>
        db
          .selectFrom(CHANGES_TABLE)
          .select(['seq', 'at'])
          .where(
            'seq',
            '>',
            db.selectFrom(CHANGE_STATE_TABLE).select('value').where('name', '=', param('name')),
          )
          .orderBy('seq')
          .limit(batch),
      { name },
    );
    // The run of old ones at the start: the first change within the retention ends it.
    const end = rows.findIndex((row) => Number(row.at) >= cutoff);
    const old = end < 0 ? rows : rows.slice(0, end);
    const last = old[old.length - 1];
    if (!last) return passed;
    await runStatement(
      db,
      [RAISE_MARK],
      () =>
        db
          .updateTable(CHANGE_STATE_TABLE)
          .set({ value: param('upTo') })
          .where('name', '=', param('name'))
          .where('value', '<', param('upTo')),
      { name, upTo: Number(last.seq) },
    );
    passed += old.length;
    if (old.length < batch) return passed;
    await pause();
  }
}

/** Deletes the changes at or below both marks, `batch` at a time. */
async function deleteBelowMarks(database: Database, batch: number): Promise<void> {
  const { db } = database;
  const marks = await runStatement<Row>(
    db,
    [MARKS],
    () =>
      db
        .selectFrom(CHANGE_STATE_TABLE)
        .select(['name', 'value'])
        .where('name', 'in', [param('feed'), param('history')]),
    { feed: FEED_PRUNED, history: HISTORY_PRUNED },
  );
  const floor = Math.min(...marks.map((row) => Number(row.value)));
  if (marks.length < 2 || !(floor > 0)) return;
  for (;;) {
    const rows = await runStatement<Row>(
      db,
      [BELOW, batch],
      () =>
        db
          .selectFrom(CHANGES_TABLE)
          .select('seq')
          .where('seq', '<=', param('floor'))
          .orderBy('seq')
          .limit(batch),
      { floor },
    );
    const last = rows[rows.length - 1];
    if (!last) return;
    await runStatement(
      db,
      [DELETE_UP_TO],
      () => db.deleteFrom(CHANGES_TABLE).where('seq', '<=', param('upTo')),
      { upTo: Number(last.seq) },
    );
    if (rows.length < batch) return;
    await pause();
  }
}

/**
 * A retention: raises the mark `mark` over the changes recorded before `cutoff`, then deletes
 * those below both marks; answers how many changes it passed.
 */
function retention(mark: string) {
  return async (database: Database, cutoff: number, batch = PRUNE_BATCH): Promise<number> => {
    // The marks rise over numbered changes: those committed and not yet numbered get their seqs.
    await numberCommitted(database);
    const passed = await raiseMark(database, mark, cutoff, batch);
    await deleteBelowMarks(database, batch);
    return passed;
  };
}

/** The feed forgets the changes recorded before `cutoff` (GET .../changes answers 410 below them). */
export const pruneChanges = retention(FEED_PRUNED);

/** The history forgets the revisions recorded before `cutoff`. */
export const pruneHistory = retention(HISTORY_PRUNED);

export interface ChangeRetention {
  stop(): void;
}

export interface RetentionDays {
  /** CHANGES_RETENTION_DAYS */
  readonly changes: number;
  /** HISTORY_RETENTION_DAYS */
  readonly history: number;
}

/**
 * Prunes each of `databases` every PRUNE_INTERVAL_MS (the first time one interval after the
 * start), keeping the changes and the history their days; what fails is logged and tried
 * again at the next interval.
 */
export function keepChanges(
  databases: () => readonly Database[],
  days: RetentionDays,
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
        await pruneChanges(database, clock() - days.changes * DAY_MS);
        await pruneHistory(database, clock() - days.history * DAY_MS);
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
