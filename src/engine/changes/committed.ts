// What the service knows of each database's change log between statements: the highest seq it
// knows committed (the `Changes-Seq` of lists and shows), the numbering of committed changes
// where the engine gives seqs after the commit, and who listens for committed changes.
import { NUMBER_BATCH } from '../../database/change-statements.js';
import type { Database } from '../../database/database.js';
import { type AppendedChange, type Change, changeOf } from './change.js';

/**
 * Called with changes of `database` once they are committed and have their seq, in seq order:
 * what the real-time broadcast (issue 32 item 4) and later consumers subscribe to. SQLite: the
 * changes of each write transaction of this process, after its COMMIT. PostgreSQL, MySQL: the
 * changes each numbering of this process gave a seq (database/change-statements.ts), which are
 * the commits of this process and any leftovers of another instance (a write cut by a kill
 * -9); a change is numbered once, by one instance. A listener must return at once (queue, never
 * await the network) and never throw.
 */
export type ChangesListener = (changes: readonly Change[]) => void;

interface FeedState {
  /** Every change at or below it had committed before some statement that has already run. */
  known: number;
  readonly listeners: Set<ChangesListener>;
  /** The numbering under way, and the one asked for meanwhile (it may miss a later commit). */
  running: Promise<void> | null;
  queued: Promise<void> | null;
  /** When the last run began (epoch ms). */
  started: number;
}

const states = new WeakMap<Database, FeedState>();

function stateOf(database: Database): FeedState {
  let state = states.get(database);
  if (!state)
    states.set(
      database,
      (state = { known: 0, listeners: new Set(), running: null, queued: null, started: 0 }),
    );
  return state;
}

/** Subscribes `listener` to the changes committed on `database`; answers the unsubscribe. */
export function onChangesCommitted(database: Database, listener: ChangesListener): () => void {
  const { listeners } = stateOf(database);
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Hands committed, numbered changes to the listeners. */
function changesCommitted(database: Database, changes: readonly Change[]): void {
  const last = changes[changes.length - 1];
  if (!last) return;
  knownCommitted(database, last.seq);
  for (const listener of stateOf(database).listeners) {
    // The write has committed: a listener's failure must not turn its answer into an error.
    try {
      listener(changes);
    } catch (error) {
      process.emitWarning(error instanceof Error ? error : String(error), 'ChangesListener');
    }
  }
}

/**
 * After the COMMIT of a write transaction on `database` that appended `appended`: its changes
 * to the listeners; where the engine numbers changes after the commit, once a numbering has
 * given them their seqs. The write's answer does not wait for that numbering: its changes are
 * committed already, and a read of the feed numbers what still waits before it reads. A
 * numbering that fails is only reported: the next one (any write's, any read's, the
 * retention's) gives the changes their seqs.
 */
export function changesAppended(database: Database, appended: readonly AppendedChange[]): void {
  if (appended.length === 0) return;
  if (appended.every((change): change is Change => change.seq !== null)) {
    changesCommitted(database, appended);
    return;
  }
  numberCommitted(database).catch((error: unknown) => {
    process.emitWarning(error instanceof Error ? error : String(error), 'ChangeNumbering');
  });
}

/**
 * Numbering runs follow one another at least this far apart: under a steady stream of writes a
 * run then serves every commit of the gap (each run is a transaction of its own, with its own
 * WAL flush), at the cost of delaying their pushes by as much. An idle database numbers at once.
 */
export const NUMBERING_GAP_MS = 3;

/**
 * Numbers the committed changes of `database` that have no seq yet (PostgreSQL, MySQL), in runs
 * that follow one another; answers once a run that began after the call has ended, so the
 * caller's committed changes are numbered. Callers during a run share the next one.
 */
export function numberCommitted(database: Database): Promise<void> {
  const state = stateOf(database);
  if (state.queued) return state.queued;
  if (!state.running) return startNumbering(database, state);
  const queued = state.running
    .catch(() => undefined)
    .then(async () => {
      const wait = state.started + NUMBERING_GAP_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      state.queued = null;
      return startNumbering(database, state);
    });
  state.queued = queued;
  return queued;
}

/** Resolves once no numbering of `database` is under way or asked for (tests count statements). */
export async function numberingSettled(database: Database): Promise<void> {
  const state = stateOf(database);
  while (state.running || state.queued)
    await (state.queued ?? state.running)?.catch(() => undefined);
}

function startNumbering(database: Database, state: FeedState): Promise<void> {
  state.started = Date.now();
  const run = numberAll(database).finally(() => {
    if (state.running === run) state.running = null;
  });
  state.running = run;
  return run;
}

async function numberAll(database: Database): Promise<void> {
  const number = database.adapter.numberChanges?.bind(database.adapter);
  if (!number) return;
  for (;;) {
    const rows = await number(database.db);
    const changes = rows.map((row) => changeOf(row, true)).sort((a, b) => a.seq - b.seq);
    changesCommitted(database, changes);
    if (rows.length < NUMBER_BATCH) return;
  }
}

/**
 * A lower bound of the changes `database` has committed (DESIGN.md 3.9 `Changes-Seq`): read it
 * before the statements of the answer it goes with. Raised by this process's commits and by
 * every read of the log (knownCommitted); 0 until the first.
 */
export function knownSeq(database: Database): number {
  return stateOf(database).known;
}

/** Records that every change at or below `seq` had committed before a statement that has run. */
export function knownCommitted(database: Database, seq: number): void {
  const state = stateOf(database);
  if (seq > state.known) state.known = seq;
}
