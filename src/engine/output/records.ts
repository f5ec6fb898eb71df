// Reading records the way every action answers them: the entity's columns plus the count
// sub-queries in one statement, then one batched statement per eager-loaded relation, then the
// full serialised record (SPEC.md 2.2 rule 1) ready for a projection.
import type { SelectQueryBuilder } from 'kysely';
import type { Connections } from '../../model/connections.js';
import type { Row } from '../../model/entity.js';
import { countSubquery, loadBelongsTo, loadHasMany } from '../../model/relations/eager-load.js';
import type { Scope } from '../../model/scope.js';
import type { Resource } from '../definition/define-resource.js';
import { scopeExpressions } from '../query/scope.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Select = SelectQueryBuilder<any, any, Row>;

/** `select <columns>, <counts> from <table> where <scope>`: callers add filters, order, limits. */
export function selectRecords(connections: Connections, resource: Resource, scope: Scope): Select {
  const { entity } = resource;
  let query = connections[entity.storage]
    .selectFrom(entity.table)
    .select(entity.columns.map((c) => `${entity.table}.${c}`)) as Select;
  for (const [name, relation] of resource.counts) {
    query = query.select(countSubquery(relation, entity.table).as(`${name}_count`));
  }
  for (const where of scopeExpressions(entity, scope)) query = query.where(where);
  return query;
}

/** Stored rows (with counts) -> full records with relations and appends, hidden fields removed. */
export async function assembleRecords(connections: Connections, resource: Resource, rows: Row[]): Promise<Row[]> {
  if (rows.length === 0) return [];
  const { entity } = resource;
  const [belongs, many] = await Promise.all([
    Promise.all(resource.belongsTo.map(([, r]) => loadBelongsTo(connections, r, rows))),
    Promise.all(resource.hasMany.map(([, r]) => loadHasMany(connections, r, rows.map((row) => row[r.localKey])))),
  ]);
  return rows.map((row) => {
    const record = entity.serialize(row);
    for (const [name, fn] of resource.appends) record[name] = fn(record);
    resource.belongsTo.forEach(([name, relation], i) => {
      record[name] = belongs[i]?.get(String(row[relation.foreignKey])) ?? null;
    });
    resource.hasMany.forEach(([name, relation], i) => {
      record[name] = many[i]?.get(String(row[relation.localKey])) ?? [];
    });
    for (const [name] of resource.counts) record[`${name}_count`] = Number(row[`${name}_count`] ?? 0);
    for (const key of resource.hidden) delete record[key];
    return record;
  });
}

/** One record by the value of a key column, or null. */
export async function findRecord(
  connections: Connections,
  resource: Resource,
  scope: Scope,
  column: string,
  id: unknown,
): Promise<Row | null> {
  const rows = await selectRecords(connections, resource, scope)
    .where(`${resource.entity.table}.${column}`, '=', id)
    .limit(1)
    .execute();
  const [record] = await assembleRecords(connections, resource, rows);
  return record ?? null;
}
