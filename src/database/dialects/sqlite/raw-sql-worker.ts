// Runs one operator statement in a worker thread (see raw-sql.ts for why a thread), on a
// connection of its own that lives for this statement only: nothing a statement does (BEGIN,
// PRAGMA, ATTACH) outlives it. Read-only is the engine's: the file is opened with SQLite's
// read-only flag, which no SQL can lift, and `query_only` on top. Cancelling: raw-sql-protocol.ts.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { rowBytes } from '../../../support/answer-budget.js';
import {
  encodeRawResult,
  type RawBinding,
  type RawColumn,
  type RawResult,
  type RawSqlRefusalKind,
  type RawValue,
  refusals,
} from '../../raw-sql.js';
import {
  CANCELLED,
  FINISHED,
  RUNNING,
  type WorkerJob,
  type WorkerReply,
} from './raw-sql-protocol.js';

const READ_ONLY = refusals.readOnly;
const ONE_STATEMENT = refusals.oneStatement;

function refused(kind: RawSqlRefusalKind, message: string): WorkerReply {
  return { type: 'refused', kind, message };
}

/** better-sqlite3's own errors, translated here at the boundary. */
function refusalOf(error: unknown): WorkerReply {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof Error && 'code' in error ? String(error.code) : '';
  if (code.startsWith('SQLITE_READONLY')) return refused('read-only', READ_ONLY);
  // Another writer held the lock past busy_timeout, as in sqlite/adapter.ts.
  if (code === 'SQLITE_BUSY') return refused('unavailable', message);
  if (error instanceof RangeError && /more than one statement/.test(message))
    return refused('multiple-statements', ONE_STATEMENT);
  if (error instanceof RangeError && /no statements/.test(message))
    return refused('invalid', refusals.empty);
  return refused('invalid', message);
}

/** JSON-safe values: integers past 2^53 as decimal strings, blobs as base64. */
function jsonValue(value: unknown): RawValue {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'bigint')
    return value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER
      ? Number(value)
      : value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return String(value);
}

// SQLite has no boolean type: it stores them as 1 and 0.
const bindable = (value: RawBinding) => (typeof value === 'boolean' ? Number(value) : value);

const CANCELLED_REPLY = refused('timeout', 'Cancelled.');

function run(job: WorkerJob, started: () => void): WorkerReply {
  const cancelled = () => Atomics.load(job.state, 0) === CANCELLED;
  const finish = () => Atomics.compareExchange(job.state, 0, RUNNING, FINISHED) === RUNNING;
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(job.file, { readonly: !job.allowWrite, fileMustExist: true });
  } catch (error) {
    return refused('unavailable', error instanceof Error ? error.message : String(error));
  }
  try {
    db.pragma('busy_timeout = 5000');
    if (job.allowWrite) db.pragma('foreign_keys = ON');
    else db.pragma('query_only = ON');
    // prepare() compiles one statement and throws on a second one: the "one statement" rule
    // comes from SQLite's parser, not ours.
    const statement = db.prepare(job.sql);
    // sqlite3_stmt_readonly: the engine's own verdict, so a write is refused with a clear
    // message before it starts (the read-only connection would refuse it anyway).
    if (!job.allowWrite && !statement.readonly) return refused('read-only', READ_ONLY);
    const bindings = job.bindings.map(bindable);
    if (job.allowWrite) db.exec('BEGIN IMMEDIATE');
    started();
    let result: RawResult = { columns: [], rows: [], truncated: false };
    if (!statement.reader) statement.run(bindings);
    else {
      statement.raw(true).safeIntegers(true);
      const columns: RawColumn[] = statement.columns().map((c) => ({ name: c.name, type: c.type }));
      const rows: RawValue[][] = [];
      let truncated = false;
      let bytes = 0;
      // Stepping stops at the row after the cap (or at a cancel): the rest is never read.
      for (const row of statement.iterate(bindings) as IterableIterator<unknown[]>) {
        if (cancelled()) break;
        if (rows.length === job.maxRows) {
          truncated = true;
          break;
        }
        const values = row.map(jsonValue);
        bytes += rowBytes(values);
        // Refused here, never posted: the service's thread would have to take it in and encode it.
        if (bytes > job.maxAnswerBytes) {
          if (!finish()) return CANCELLED_REPLY;
          return refused('too-large', refusals.tooLarge(job.maxAnswerBytes));
        }
        rows.push(values);
      }
      result = { columns, rows, truncated };
    }
    if (!finish()) return CANCELLED_REPLY;
    if (job.allowWrite) db.exec('COMMIT');
    return { type: 'result', json: encodeRawResult(result) };
  } catch (error) {
    // Claimed so that the caller, unless it has already answered "timeout", reports this error.
    finish();
    return refusalOf(error);
  } finally {
    // Closing rolls back a transaction that was not committed.
    db.close();
  }
}

if (parentPort) {
  const port = parentPort;
  const reply = run(workerData as WorkerJob, () =>
    port.postMessage({ type: 'started' } satisfies WorkerReply),
  );
  port.postMessage(reply, reply.type === 'result' ? [reply.json.buffer as ArrayBuffer] : []);
}
