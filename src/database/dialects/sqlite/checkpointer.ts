// WAL checkpoints in a background thread (checkpoint-worker.ts). By default SQLite checkpoints
// in the connection that commits, once the WAL passes 1,000 pages: every few dozen writes, one
// request pays for copying the pages into the database file and for its fsyncs. With the
// thread, a commit only appends to the WAL (docs/database-engines.md "SQLite durability": the same guarantees).
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteOptions } from './options.js';
import { startWorkerThread } from './worker-thread.js';

export interface CheckpointJob {
  readonly file: string;
  readonly synchronous: SqliteOptions['synchronous'];
  /** Pause after a round that copied frames, so that the next one copies a batch. */
  readonly busyMs: number;
  /** Pause after a round that found nothing to copy. */
  readonly idleMs: number;
}

// SQLite's own default, used while no thread checkpoints.
const AUTOCHECKPOINT_PAGES = 1000;
// While the thread runs, the writer checkpoints once the WAL passes this many pages (40 MB of
// 4 KiB pages). Under constant writes the thread never catches up with the last commit, and
// SQLite only starts the WAL over when a writer begins with every frame copied, so this is what
// bounds the file; the thread has copied and synced most frames by then, so it costs the writer
// little.
const RESTART_PAGES = 10_000;

export interface Checkpointer {
  stop(): Promise<void>;
}

/** Starts the thread for `writer`'s file. */
export function startCheckpointer(
  writer: BetterSqlite3.Database,
  file: string,
  options: SqliteOptions,
): Checkpointer {
  const worker = startWorkerThread('checkpoint-worker', {
    file,
    synchronous: options.synchronous,
    busyMs: 5,
    idleMs: 100,
  } satisfies CheckpointJob);
  worker.unref();
  writer.pragma(`wal_autocheckpoint = ${RESTART_PAGES}`);
  let stopping = false;
  worker.on('error', (error) => {
    if (writer.open) writer.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    if (!stopping)
      process.emitWarning(
        `SQLite background checkpoints stopped (${error.message}); ${file} is checkpointed at commit again`,
      );
  });
  return {
    async stop() {
      stopping = true;
      await worker.terminate();
      // The last connection to close checkpoints what is left and removes the WAL.
    },
  };
}
