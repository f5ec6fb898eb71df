// A list page read as its rows arrive (issue 19 item 2: RSS stays bounded). pg parses rows from
// the socket as they come, but hands a query's result over whole, so a page of 200 records of
// 1 MiB could only be charged to the answers' memory budget once all of it was in memory, and
// ten lists read at once held ten pages. Here each row is charged as pg parses it; while the
// budget is spent the connection's socket is paused, so the rest of the page waits in
// PostgreSQL (TCP's window) until the answers written meanwhile give some back. Still one
// statement, sent as the others (client.ts), on a connection of the pool.
// Past every SLICE_BYTES of rows the socket is paused until the read's next turn of the event
// loop (support/turns.ts): sixteen lists of 1 MiB rows whose sockets all had data in one poll of
// the loop were parsed back to back, holding it for 55-66 ms (issue 19 item 2: no request holds
// the others hostage); a page of ordinary rows never reaches it.
import type { Socket } from 'node:net';
import type pg from 'pg';
import { type AnswerShare, rowBytes } from '../../../support/answer-budget.js';
import { nextTurn } from '../../../support/turns.js';
import type { SlicedReader } from '../../statement-runner.js';
import type { SvcClient } from './client.js';

/** Bytes of rows read between two turns of the event loop at most (about a millisecond's parsing). */
const SLICE_BYTES = 1024 * 1024;

/** `counted` is told of each statement run, as Kysely's log is. */
export function postgresSlicedReader(pool: pg.Pool, counted: () => void): SlicedReader {
  return async (text, parameters, share) => {
    // While the budget is spent, wait before the read: without a connection, and without the
    // statement's time limit (DB_STATEMENT_TIMEOUT_MS) counting, as it does while a read waits.
    const admitted = share?.admission();
    if (admitted) await admitted;
    const client = await pool.connect();
    counted();
    try {
      return await read(client, text, parameters, share);
    } finally {
      client.release();
    }
  };
}

function read(
  client: pg.PoolClient,
  text: string,
  parameters: readonly unknown[],
  share: AnswerShare | undefined,
): Promise<unknown[]> {
  const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  // The charge being waited for, while the socket is paused. The rows pg parses meanwhile (the
  // rest of the chunk it read) are owed and charged once it is granted: one wait at a time, as
  // the budget expects of a share.
  let waiting: Promise<void> | undefined;
  let owed = 0;
  // The turn being waited for, while the socket is paused; the bytes read since the last one.
  let yielding: Promise<void> | undefined;
  let sliced = 0;
  const settle = async (granted: Promise<void>) => {
    await granted;
    while (owed > 0) {
      const more = share?.charge(owed);
      owed = 0;
      if (more) await more;
    }
    waiting = undefined;
    if (!yielding) socket.resume();
  };
  const yieldTurn = async () => {
    await nextTurn();
    yielding = undefined;
    if (!waiting) socket.resume();
  };
  return new Promise((resolve, reject) => {
    // Answered only once no charge or turn is waited for: the client goes back to the pool flowing.
    const answer = (settled: () => void) =>
      waiting || yielding
        ? void Promise.all([waiting, yielding]).then(() => answer(settled))
        : settled();
    const query = (client as unknown as SvcClient).statement(text, parameters, (error, result) =>
      answer(() => (error ? reject(error) : resolve((result as pg.QueryResult).rows))),
    );
    query.on('row', (row: object) => {
      const bytes = rowBytes(row);
      sliced += bytes;
      if (sliced >= SLICE_BYTES && !yielding) {
        sliced = 0;
        socket.pause();
        yielding = yieldTurn();
      }
      if (!share) return;
      if (waiting) {
        owed += bytes;
        return;
      }
      const granted = share.charge(bytes);
      if (!granted) return;
      socket.pause();
      waiting = settle(granted);
    });
    client.query(query);
  });
}
