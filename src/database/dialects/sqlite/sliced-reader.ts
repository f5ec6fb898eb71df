// Reads that may be large (a list page: 200 records of 1 MiB descriptions and 1,000 embedded
// detail rows, issue 19 item 2) run row by row, with a turn of the event loop whenever a slice
// has taken SLICE_MS: better-sqlite3 reads synchronously, and one `all()` of such a page held the
// loop for a second. Still one statement, stepped.
// Each read has a connection to itself while it runs: an open statement holds its connection's
// read snapshot, so a read sharing the main reader (or another sliced read) would miss the
// commits made while it yields. KEPT connections stay open between reads; more concurrent reads
// open one each, with a small page cache, closed when done.

import type BetterSqlite3 from 'better-sqlite3';
import { nextTurn } from '../../../support/turns.js';

/** Synchronous work per slice before the event loop gets a turn. */
const SLICE_MS = 8;
/** Connections kept open for sliced reads; one is enough unless reads overlap. */
const KEPT = 2;

export interface SlicedReaderParts {
  /** A read-only connection; `temporary` ones take a small page cache. */
  open(temporary: boolean): BetterSqlite3.Database;
  /** The prepared statement cache of a connection. */
  statements(raw: BetterSqlite3.Database): (sqlText: string) => BetterSqlite3.Statement;
  /** A statement's raw value arrays -> row objects (it switches the statement to raw arrays). */
  rowBuilder(statement: BetterSqlite3.Statement): (values: unknown[]) => Record<string, unknown>;
}

interface Connection {
  readonly raw: BetterSqlite3.Database;
  readonly prepare: (sqlText: string) => BetterSqlite3.Statement;
  readonly temporary: boolean;
}

export interface SlicedReader {
  read(sqlText: string, parameters: readonly unknown[]): Promise<Array<Record<string, unknown>>>;
  close(): void;
}

export function slicedReader(parts: SlicedReaderParts): SlicedReader {
  const idle: Connection[] = [];
  const kept: BetterSqlite3.Database[] = [];
  const acquire = (): Connection => {
    const connection = idle.pop();
    if (connection) return connection;
    const temporary = kept.length >= KEPT;
    const raw = parts.open(temporary);
    if (!temporary) kept.push(raw);
    return { raw, prepare: parts.statements(raw), temporary };
  };
  const release = (connection: Connection) => {
    if (connection.temporary) connection.raw.close();
    else idle.push(connection);
  };
  return {
    async read(sqlText, parameters) {
      const connection = acquire();
      try {
        const statement = connection.prepare(sqlText);
        const build = parts.rowBuilder(statement);
        const rows: Array<Record<string, unknown>> = [];
        let sliceStarted = performance.now();
        // Leaving the loop early (an error) resets the statement, which ends its snapshot.
        for (const values of statement.iterate(parameters as unknown[])) {
          rows.push(build(values as unknown[]));
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
      for (const raw of kept.splice(0)) raw.close();
    },
  };
}
