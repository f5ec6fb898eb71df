// Rows written straight to the database by test set-up, on any engine: generated ids read the
// engine's way, and timestamps (`*_at` columns given as ISO strings or Dates) stored in the
// engine's form.
import { adapterOf } from '../../src/database/connect.js';
import type { Db } from '../../src/database/db.js';

/** `values` with every `*_at` timestamp in the engine's stored form. */
export function storedRow(db: Db, values: Record<string, unknown>): Record<string, unknown> {
  const adapter = adapterOf(db);
  return Object.fromEntries(
    Object.entries(values).map(([column, value]) => [
      column,
      column.endsWith('_at') && (typeof value === 'string' || value instanceof Date)
        ? adapter.toTimestamp(new Date(value))
        : value,
    ]),
  );
}

/** Inserts one row and returns its generated id. */
export async function insertRow(
  db: Db,
  table: string,
  values: Record<string, unknown>,
): Promise<number> {
  return adapterOf(db).insertReturningId(db, table, storedRow(db, values), 'id');
}
