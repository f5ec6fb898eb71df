// Stored rows (from selectRecords) made into full records: relations read apart loaded with one
// batched statement each, joined and embedded ones read from the row, counts, appends, hidden
// fields removed (SPEC.md 2.2 rule 1), ready for a projection.
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import type { Connections } from '../../model/connections.js';
import type { Row } from '../../model/entity.js';
import {
  belongsToReader,
  embeddedRowsReader,
  loadBelongsTo,
  loadHasMany,
} from '../../model/relations/eager-load.js';
import type { Scope } from '../../model/scope.js';
import type { Resource } from '../definition/define-resource.js';
import { embeddedColumn, joinedColumn, layoutOf } from './record-layout.js';

/** Stored rows (from `selectRecords`) -> full records with relations and appends, hidden fields removed. */
export async function assembleRecords(
  connections: Connections,
  resource: Resource,
  scope: Scope,
  adapter: DialectAdapter,
  rows: Row[],
): Promise<Row[]> {
  if (rows.length === 0) return [];
  const { entity } = resource;
  const { joined, embedded } = layoutOf(connections, resource, adapter);
  const [belongs, batched] = await Promise.all([
    Promise.all(
      resource.belongsTo.map(([, r]) =>
        joined.has(r)
          ? null
          : loadBelongsTo(connections, r, rows, scope, entity.tenantColumn !== null),
      ),
    ),
    Promise.all(
      resource.hasMany.map(([, r]) =>
        embedded.has(r)
          ? null
          : loadHasMany(
              connections,
              r,
              rows.map((row) => row[r.localKey]),
              scope,
            ),
      ),
    ),
  ]);
  const joinedReaders = resource.belongsTo.map(([name, r]) =>
    joined.has(r) ? belongsToReader(r, joinedColumn(name, '')) : null,
  );
  const embeddedReaders = resource.hasMany.map(([, r]) =>
    embedded.has(r) ? embeddedRowsReader(r, adapter) : null,
  );
  // A count of a loaded relation is its list's length: the field the list is under.
  const counts = resource.counts.map(
    ([name, relation]) =>
      [`${name}_count`, resource.hasMany.find(([, r]) => r === relation)?.[0] ?? null] as const,
  );
  return rows.map((row) => {
    const record = entity.serialize(row);
    for (const [name, fn] of resource.appends) record[name] = fn(record);
    resource.belongsTo.forEach(([name, relation], i) => {
      const read = joinedReaders[i];
      record[name] = read ? read(row) : (belongs[i]?.get(String(row[relation.foreignKey])) ?? null);
    });
    resource.hasMany.forEach(([name, relation], i) => {
      const read = embeddedReaders[i];
      record[name] = read
        ? read(row[embeddedColumn(name)])
        : (batched[i]?.get(String(row[relation.localKey])) ?? []);
    });
    for (const [field, list] of counts)
      record[field] = list === null ? Number(row[field] ?? 0) : (record[list] as Row[]).length;
    for (const key of resource.hidden) delete record[key];
    return record;
  });
}
