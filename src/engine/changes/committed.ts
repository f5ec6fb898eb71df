// What the service knows of each database's change log between statements: the highest seq it
// knows committed (the `Changes-Seq` of lists and shows), and who listens for committed changes.
import type { Database } from '../../database/database.js';
import type { Change } from './change.js';

/**
 * Called after COMMIT with the changes a write transaction appended on `database`, in seq order.
 * It is what the real-time broadcast (issue 32 item 4) and later consumers subscribe to: it runs
 * in the writer's request, so a listener must return at once (queue, never await the network)
 * and never throw. Changes committed by other instances do not pass here: they are in the log.
 */
export type ChangesListener = (changes: readonly Change[]) => void;

interface FeedState {
  /** Every change at or below it had committed before some statement that has already run. */
  known: number;
  readonly listeners: Set<ChangesListener>;
}

const states = new WeakMap<Database, FeedState>();

function stateOf(database: Database): FeedState {
  let state = states.get(database);
  if (!state) states.set(database, (state = { known: 0, listeners: new Set() }));
  return state;
}

/** Subscribes `listener` to the changes committed on `database` by this process; answers the unsubscribe. */
export function onChangesCommitted(database: Database, listener: ChangesListener): () => void {
  const { listeners } = stateOf(database);
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Hands the changes a transaction on `database` appended to the listeners, once it committed. */
export function changesCommitted(database: Database, changes: readonly Change[]): void {
  const last = changes[changes.length - 1];
  if (!last) return;
  const state = stateOf(database);
  if (last.seq > state.known) state.known = last.seq;
  for (const listener of state.listeners) {
    // The write has committed: a listener's failure must not turn its answer into an error.
    try {
      listener(changes);
    } catch (error) {
      process.emitWarning(error instanceof Error ? error : String(error), 'ChangesListener');
    }
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
