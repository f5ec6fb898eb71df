// Runs in a thread of its own (checkpointer.ts): copies committed WAL frames into the database
// file, so that a commit on the main thread only appends to the WAL and never waits for a
// checkpoint's copy and fsyncs. PASSIVE never blocks a reader or a writer: it copies what it
// can, and SQLite restarts the WAL from its start once every frame is copied. An error ends the
// thread; the main thread then goes back to SQLite's checkpoints at commit.
import { workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import type { CheckpointJob } from './checkpointer.js';

const { file, synchronous, busyMs, idleMs } = workerData as CheckpointJob;
const db = new BetterSqlite3(file, { fileMustExist: true });
// The checkpointing connection's level decides the checkpoint's fsyncs: the same as the writer's.
db.pragma(`synchronous = ${synchronous}`);
const checkpoint = db.prepare<[], { checkpointed: number }>('PRAGMA wal_checkpoint(PASSIVE)');

let copied = 0;
function round(): void {
  const { checkpointed } = checkpoint.get()!;
  // Frames copied (or the WAL restarted) since the last round: writes are coming, so look again
  // soon, once a batch has gathered; otherwise wait longer.
  const busy = checkpointed !== copied;
  copied = checkpointed;
  setTimeout(round, busy ? busyMs : idleMs);
}
round();
