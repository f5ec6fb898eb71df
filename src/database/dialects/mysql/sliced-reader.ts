// A list page read as its rows arrive (issue 19 item 2: RSS stays bounded), as on PostgreSQL
// (../postgres/sliced-reader.ts): each row is charged to the answers' memory budget as mysql2
// parses it, and while the budget is spent the read waits; mysql2's row stream then fills its
// buffer (16 rows) and pauses the connection, so the rest waits in the server. Still one
// statement, through Kysely's executor (its stream is what query builders' `.stream()` use; a
// raw statement has no public way to it), so the connection is set up and counted as any other.
import { CompiledQuery } from 'kysely';
import { rowBytes } from '../../../support/answer-budget.js';
import type { Db } from '../../db.js';
import type { SlicedReader } from '../../statement-runner.js';

export function mysqlSlicedReader(db: Db): SlicedReader {
  return async (text, parameters, share) => {
    // While the budget is spent, wait before the read (see ../postgres/sliced-reader.ts).
    const admitted = share?.admission();
    if (admitted) await admitted;
    const rows: unknown[] = [];
    const query = CompiledQuery.raw(text, [...parameters]);
    for await (const result of db.getExecutor().stream(query, 1)) {
      for (const row of result.rows) {
        rows.push(row);
        const granted = share?.charge(rowBytes(row as object));
        if (granted) await granted;
      }
    }
    return rows;
  };
}
