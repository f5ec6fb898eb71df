// Operator SQL on SQLite (database/raw-sql.ts). better-sqlite3 is synchronous and has neither a
// statement timeout nor sqlite3_interrupt or a progress handler, so each statement runs in a
// worker thread: the service keeps answering while it runs, and at the time limit the caller
// answers "timeout" at once while the worker stops at its next row and rolls back (the
// protocol is in raw-sql-worker.ts). One limit remains: a single step that yields no row for
// long (a large aggregate or sort, a big UPDATE) finishes in the background after the reply has
// gone, then is rolled back; the row cap does not shorten it (better-sqlite3 offers no
// sqlite3_interrupt): the thread is terminated at the time limit, so it ends as soon as that
// step returns. An answer past maxAnswerBytes is refused in the thread, never posted here.
// Catalog lookups stay on this thread.
import type { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import {
  type RawBinding,
  type RawSql,
  RawSqlError,
  type RawSqlLimits,
  type RawTable,
  type RawTableColumn,
  refusals,
} from '../../raw-sql.js';
import { CANCELLED, RUNNING, type WorkerJob, type WorkerReply } from './raw-sql-protocol.js';
import { startWorkerThread } from './worker-thread.js';

// User tables and views; sqlite_* are SQLite's own.
const TABLES = `SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`;
const TABLE = `SELECT type FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ? AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`;
// hidden = 1 marks a virtual table's hidden columns; generated columns (2, 3) are real ones.
const COLUMNS = `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_xinfo(?) WHERE hidden <> 1 ORDER BY cid`;

interface ColumnRow {
  readonly name: string;
  readonly type: string;
  readonly notnull: number;
  readonly dflt_value: string | null;
  readonly pk: number;
}

export function sqliteRawSql(file: string, limits: RawSqlLimits): RawSql {
  if (file === ':memory:')
    throw new Error('an in-memory SQLite database is private to its connection; use a file');
  const running = new Set<Worker>();
  // Opened on first use, read-only: it answers the catalog lookups only.
  let catalog: BetterSqlite3.Database | null = null;
  const catalogDb = (): BetterSqlite3.Database => {
    if (!catalog) {
      try {
        catalog = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
      } catch (error) {
        throw new RawSqlError(
          'unavailable',
          error instanceof Error ? error.message : String(error),
        );
      }
    }
    return catalog;
  };

  const run = (sql: string, bindings: readonly RawBinding[]): Promise<Uint8Array> =>
    new Promise((resolve, reject) => {
      const state = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
      const worker = startWorkerThread('raw-sql-worker', {
        file,
        sql,
        bindings,
        allowWrite: limits.allowWrite,
        maxRows: limits.maxRows,
        maxAnswerBytes: limits.maxAnswerBytes,
        state,
      } satisfies WorkerJob);
      running.add(worker);
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const settle = (done: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        done();
      };
      const cancel = () => {
        // Lost to a worker that has just finished: its answer is on the way.
        if (Atomics.compareExchange(state, 0, RUNNING, CANCELLED) !== RUNNING) return;
        settle(() => reject(new RawSqlError('timeout', refusals.timeout(limits.timeoutMs))));
        // Its work has no reader any more: no row after this one, no answer built or posted.
        void worker.terminate();
      };
      worker.on('message', (reply: WorkerReply) => {
        if (reply.type === 'started') timer = setTimeout(cancel, limits.timeoutMs);
        else if (reply.type === 'result') settle(() => resolve(reply.json));
        else settle(() => reject(new RawSqlError(reply.kind, reply.message)));
      });
      worker.on('error', (error) => settle(() => reject(error)));
      // A cancelled worker ends after its current step; it is tracked until then.
      worker.on('exit', (code) => {
        running.delete(worker);
        settle(() =>
          reject(new Error(`The SQL worker stopped (exit code ${code}) without an answer.`)),
        );
      });
    });

  return {
    run,
    async tables() {
      return catalogDb().prepare(TABLES).all() as RawTable[];
    },
    async columns(table) {
      const db = catalogDb();
      if (db.prepare(TABLE).get(table) === undefined) return null;
      return (db.prepare(COLUMNS).all(table) as ColumnRow[]).map(
        (c): RawTableColumn => ({
          name: c.name,
          type: c.type,
          nullable: c.notnull === 0 && c.pk === 0,
          default: c.dflt_value,
          primary_key: c.pk > 0,
        }),
      );
    },
    async close() {
      await Promise.all([...running].map((worker) => worker.terminate()));
      catalog?.close();
    },
  };
}
