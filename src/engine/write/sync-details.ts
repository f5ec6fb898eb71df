// Detail synchronisation (SPEC.md 4.4 rules 4 to 7), per relation present in the payload, as a
// diff: rows without id are inserted (one statement), rows with an id are updated when they
// change, stored rows missing from the payload are deleted (one statement). The foreign key
// always comes from the master.
import { deleteWhere, insertRows, updateWhere } from '../../database/write-statements.js';
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import type { Connections } from '../../model/connections.js';
import type { Row } from '../../model/entity.js';
import type { Resource } from '../definition/define-resource.js';
import { scopeStamps, type Scope } from '../../model/scope.js';
import type { Payload } from './payload.js';
import type { StoredDetails } from './validate-write.js';
import { storedValues, timestampValues } from './stored-values.js';

export async function syncDetails(
  connections: Connections,
  resource: Resource,
  masterKey: unknown,
  payload: Payload,
  stored: StoredDetails,
  scope: Scope,
  adapter: DialectAdapter,
  now: Date,
): Promise<void> {
  for (const { name, rows } of payload.details) {
    const relation = resource.details.get(name);
    if (!relation) continue;
    const target = relation.target();
    const db = connections[target.storage];
    const storedRows = stored.get(name) ?? new Map<string, Row>();
    const pk = target.primaryKey;

    const kept = new Set(rows.filter((r) => r[pk] !== undefined).map((r) => String(r[pk])));
    const gone = [...storedRows.keys()].filter((id) => !kept.has(id)).map(Number);
    if (gone.length > 0) {
      await deleteWhere(db, target.table, { [relation.foreignKey]: masterKey }, { column: pk, values: gone });
    }

    const inserts: Row[] = [];
    for (const row of rows) {
      const { [pk]: id, ...fields } = row;
      const values = storedValues(target, fields, adapter);
      if (id === undefined) {
        inserts.push({
          ...values,
          ...timestampValues(target, adapter, now, 'create'),
          ...scopeStamps(target, scope),
          [relation.foreignKey]: masterKey,
        });
        continue;
      }
      const before = storedRows.get(String(id)) ?? {};
      const changed = Object.entries(values).filter(([f, v]) => String(before[f] ?? null) !== String(v ?? null));
      if (changed.length === 0) continue;
      await updateWhere(
        db,
        target.table,
        { ...Object.fromEntries(changed), ...timestampValues(target, adapter, now, 'update') },
        { [pk]: Number(id), [relation.foreignKey]: masterKey },
      );
    }
    if (inserts.length > 0) await insertRows(db, target.table, sameColumns(inserts));
  }
}

/** A multi-row insert needs one column list; a field a row leaves out is stored as null. */
function sameColumns(rows: Row[]): Row[] {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null])));
}
