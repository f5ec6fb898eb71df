// How a SQLite file is opened (SQLITE_SYNCHRONOUS, SQLITE_CACHE_SIZE_KIB,
// SQLITE_BACKGROUND_CHECKPOINT): read by the connection and by its checkpoint thread.
export interface SqliteOptions {
  readonly synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
  readonly cacheSizeKib: number;
  /** WAL checkpoints in a thread of their own instead of in the committing connection. */
  readonly backgroundCheckpoint: boolean;
}
