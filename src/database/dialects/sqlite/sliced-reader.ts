// Reads that may be large (a list page: 200 records of 1 MiB descriptions and 1,000 embedded
// detail rows, issue 19 item 2) run row by row, with a turn of the event loop whenever a slice
// has taken SLICE_MS: better-sqlite3 reads synchronously, and one `all()` of such a page held the
// loop for a second. Still one statement, stepped.
// Each read has a connection to itself while it runs: an open statement holds its connection's
// read snapshot, so a read sharing the main reader (or another sliced read) would miss the
// commits made while it yields. Connections are opened as reads overlap and kept (opening one
// and preparing its statements is costly on a busy machine); the first FULL_CACHE get the
// configured page cache, the others a small one. Past MAX, a read waits for one to be free.

import type BetterSqlite3 from 'better-sqlite3';
import { type AnswerShare, rowBytes } from '../../../support/answer-budget.js';
import { nextTurn, othersWaiting } from '../../../support/turns.js';

/** Synchronous work per slice before the event loop gets a turn. */
const SLICE_MS = 8;
/** Connections with the configured page cache; one is enough unless reads overlap. */
const FULL_CACHE = 2;
/** Connections at most: reads beyond wait (this also bounds the large pages read at once). */
const MAX = 16;

export interface SlicedReaderParts {
  /** A read-only connection, with the configured page cache or a small one. */
  open(fullCache: boolean): BetterSqlite3.Database;
  /** The prepared statement cache of a connection. */
  statements(raw: BetterSqlite3.Database): (sqlText: string) => BetterSqlite3.Statement;
  /** A statement's raw value arrays -> row objects (it switches the statement to raw arrays). */
  rowBuilder(statement: BetterSqlite3.Statement): (values: unknown[]) => Record<string, unknown>;
}

interface Connection {
  readonly raw: BetterSqlite3.Database;
  readonly prepare: (sqlText: string) => BetterSqlite3.Statement;
  readonly fullCache: boolean;
}

export interface SlicedReader {
  /** The rows of `sqlText`; each row's values are charged to `share` as it is read. */
  read(
    sqlText: string,
    parameters: readonly unknown[],
    share?: AnswerShare,
  ): Promise<Array<Record<string, unknown>>>;
  close(): void;
}

export function slicedReader(parts: SlicedReaderParts): SlicedReader {
  const opened: Connection[] = [];
  // Free connections, those with the full cache taken first.
  const idle: Connection[] = [];
  const waiting: Array<(connection: Connection) => void> = [];
  const acquire = async (): Promise<Connection> => {
    const free = idle.pop();
    if (free) return free;
    if (opened.length >= MAX) return new Promise((resolve) => waiting.push(resolve));
    const fullCache = opened.length < FULL_CACHE;
    const raw = parts.open(fullCache);
    const connection = { raw, prepare: parts.statements(raw), fullCache };
    opened.push(connection);
    return connection;
  };
  const release = (connection: Connection) => {
    const next = waiting.shift();
    if (next) next(connection);
    else if (connection.fullCache) idle.push(connection);
    else idle.unshift(connection);
  };
  return {
    async read(sqlText, parameters, share) {
      const connection = await acquire();
      try {
        if (othersWaiting()) await nextTurn();
        const statement = connection.prepare(sqlText);
        const build = parts.rowBuilder(statement);
        const rows: Array<Record<string, unknown>> = [];
        let sliceStarted = performance.now();
        // Leaving the loop early (an error) resets the statement, which ends its snapshot.
        for (const values of statement.iterate(parameters as unknown[])) {
          rows.push(build(values as unknown[]));
          // Over the answers' memory budget, the read waits (holding its connection) until the
          // answers written meanwhile give some back (support/answer-budget.ts).
          const granted = share?.charge(rowBytes(values as unknown[]));
          if (granted) {
            await granted;
            sliceStarted = performance.now();
          }
          if (performance.now() - sliceStarted > SLICE_MS) {
            await nextTurn();
            sliceStarted = performance.now();
          }
        }
        return rows;
      } finally {
        release(connection);
      }
    },
    close() {
      idle.length = 0;
      for (const connection of opened.splice(0)) connection.raw.close();
    },
  };
}
