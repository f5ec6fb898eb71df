// Detail synchronisation (SPEC.md 4.4 rules 4 to 7): the plan's writes, per relation present
// in the payload: stored rows the payload does not name are deleted (one statement), changed rows
// updated, new rows inserted (one statement). The foreign key always comes from the master.
// They run with the master's own write where they share its database (runAggregateWrites).

import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { runWrites, type Write } from '../../database/write-statements.js';
import type { Connections } from '../../model/connections.js';
import type { Row, Storage } from '../../model/entity.js';
import { type Scope, scopeStamps } from '../../model/scope.js';
import { adapterFor, type EngineContext } from '../context.js';
import { timestampValues } from './stored-values.js';
import type { WritePlan } from './write-plan.js';

/** A write of a record's aggregate, and the database it goes to. */
export interface StoredWrite {
  readonly storage: Storage;
  readonly write: Write;
}

export function detailWrites(
  plan: WritePlan,
  masterKey: unknown,
  scope: Scope,
  adapter: DialectAdapter,
  now: Date,
): StoredWrite[] {
  const writes: StoredWrite[] = [];
  for (const { relation, target, rows, deletes } of plan.details) {
    const { storage, table } = target;
    const pk = target.primaryKey;
    const parent = { [relation.foreignKey]: masterKey };
    if (deletes.length > 0)
      writes.push({
        storage,
        write: { delete: table, where: parent, keys: { column: pk, values: deletes } },
      });
    // The same for every row of the relation: a new row's stamps, a changed row's timestamps.
    const stamps = {
      ...timestampValues(target, adapter, now, 'create'),
      ...scopeStamps(target, scope),
      ...parent,
    };
    const touched = timestampValues(target, adapter, now, 'update');
    const inserts: Row[] = [];
    for (const row of rows) {
      if (row.op === 'insert') inserts.push({ ...row.changes, ...stamps });
      else if (row.op === 'update' && row.changes !== null)
        writes.push({
          storage,
          write: {
            update: table,
            set: { ...row.changes, ...touched },
            where: { [pk]: row.id, ...parent },
          },
        });
    }
    if (inserts.length > 0)
      writes.push({ storage, write: { insert: table, rows: sameColumns(inserts) } });
  }
  return writes;
}

/**
 * Runs `writes` in order, those of one database together: as its engine runs them
 * (DialectAdapter.runWrites: PostgreSQL one statement), else a statement each.
 */
export async function runAggregateWrites(
  connections: Connections,
  writes: readonly StoredWrite[],
  context: EngineContext,
): Promise<void> {
  for (let start = 0; start < writes.length; ) {
    const storage = writes[start]?.storage as Storage;
    let end = start;
    while (writes[end]?.storage === storage) end += 1;
    const { runWrites: run = runWrites } = adapterFor(context, storage);
    await run(
      connections[storage],
      writes.slice(start, end).map((w) => w.write),
    );
    start = end;
  }
}

/** A multi-row insert takes the first row's columns; a field a row leaves out is stored as null. */
function sameColumns(rows: Row[]): Row[] {
  const [first] = rows;
  if (rows.every((row) => Object.keys(row).every((column) => first && column in first)))
    return rows;
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null])));
}
