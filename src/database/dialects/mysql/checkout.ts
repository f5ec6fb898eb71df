// A connection from a mysql2 pool within a time limit. mysql2's pool queues a request for a
// connection without one (each waiter in turn then tries its own connect), where pg's gives up
// after connectionTimeoutMillis. A connection that arrives too late goes back to the pool.
import type { Pool, PoolConnection } from 'mysql2';
import { ACQUIRE_TIMEOUT } from './adapter.js';

export function checkoutWithin(pool: Pool, ms: number): Promise<PoolConnection> {
  return new Promise((resolve, reject) => {
    let waiting = true;
    const timer = setTimeout(() => {
      waiting = false;
      reject(
        Object.assign(new Error(`No database connection within ${ms} ms`), {
          code: ACQUIRE_TIMEOUT,
        }),
      );
    }, ms);
    pool.getConnection((error, connection) => {
      clearTimeout(timer);
      if (!waiting) {
        connection?.release();
        return;
      }
      waiting = false;
      if (error) reject(error);
      else resolve(connection);
    });
  });
}
