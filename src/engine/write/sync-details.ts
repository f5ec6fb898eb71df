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

    const kept = new Set<string>();
    for (const row of rows) if (row[pk] !== undefined) kept.add(String(row[pk]));
    const gone: number[] = [];
    for (const id of storedRows.keys()) if (!kept.has(id)) gone.push(Number(id));
    if (gone.length > 0) {
      await deleteWhere(db, target.table, { [relation.foreignKey]: masterKey }, { column: pk, values: gone });
    }

    // The same for every row of the relation: a new row's stamps, a changed row's timestamps.
    const stamps = { ...timestampValues(target, adapter, now, 'create'), ...scopeStamps(target, scope), [relation.foreignKey]: masterKey };
    const touched = timestampValues(target, adapter, now, 'update');
    const inserts: Row[] = [];
    for (const row of rows) {
      const id = row[pk];
      const values = storedValues(target, row, adapter, pk);
      if (id === undefined) {
        inserts.push({ ...values, ...stamps });
        continue;
      }
      const before = storedRows.get(String(id)) ?? {};
      let changes: Row | null = null;
      for (const field in values) {
        if (String(before[field] ?? null) !== String(values[field] ?? null)) (changes ??= {})[field] = values[field];
      }
      if (changes === null) continue;
      await updateWhere(db, target.table, { ...changes, ...touched }, { [pk]: Number(id), [relation.foreignKey]: masterKey });
    }
    if (inserts.length > 0) await insertRows(db, target.table, sameColumns(inserts));
  }
}

/** A multi-row insert takes the first row's columns; a field a row leaves out is stored as null. */
function sameColumns(rows: Row[]): Row[] {
  const [first] = rows;
  if (rows.every((row) => Object.keys(row).every((column) => first && column in first))) return rows;
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return rows.map((r) => Object.fromEntries(columns.map((c) => [c, r[c] ?? null])));
}
