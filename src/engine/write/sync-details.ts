// Detail synchronisation (SPEC.md 4.4 rules 4 to 7): the plan's statements, per relation present
// in the payload: stored rows the payload does not name are deleted (one statement), changed rows
// updated, new rows inserted (one statement). The foreign key always comes from the master.

import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { deleteWhere, insertRows, updateWhere } from '../../database/write-statements.js';
import type { Connections } from '../../model/connections.js';
import type { Row } from '../../model/entity.js';
import { type Scope, scopeStamps } from '../../model/scope.js';
import { timestampValues } from './stored-values.js';
import type { WritePlan } from './write-plan.js';

export async function syncDetails(
  connections: Connections,
  plan: WritePlan,
  masterKey: unknown,
  scope: Scope,
  adapter: DialectAdapter,
  now: Date,
): Promise<void> {
  for (const { relation, target, rows, deletes } of plan.details) {
    const db = connections[target.storage];
    const pk = target.primaryKey;
    if (deletes.length > 0) {
      await deleteWhere(
        db,
        target.table,
        { [relation.foreignKey]: masterKey },
        { column: pk, values: deletes },
      );
    }
    // The same for every row of the relation: a new row's stamps, a changed row's timestamps.
    const stamps = {
      ...timestampValues(target, adapter, now, 'create'),
      ...scopeStamps(target, scope),
      [relation.foreignKey]: masterKey,
    };
    const touched = timestampValues(target, adapter, now, 'update');
    const inserts: Row[] = [];
    for (const row of rows) {
      if (row.op === 'insert') inserts.push({ ...row.changes, ...stamps });
      else if (row.op === 'update' && row.changes !== null) {
        await updateWhere(
          db,
          target.table,
          { ...row.changes, ...touched },
          { [pk]: row.id, [relation.foreignKey]: masterKey },
        );
      }
    }
    if (inserts.length > 0) await insertRows(db, target.table, sameColumns(inserts));
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
