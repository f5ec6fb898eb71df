// Reading records the way every action answers them: the entity's columns plus the count
// sub-queries in one statement, then one batched statement per eager-loaded relation, then the
// full serialised record (SPEC.md 2.2 rule 1) ready for a projection.
import type { SelectQueryBuilder } from 'kysely';
import type { Db } from '../../database/database.js';
import { param, runCached } from '../../database/query-cache.js';
import type { Connections } from '../../model/connections.js';
import type { Row } from '../../model/entity.js';
import { countSubquery, loadBelongsTo, loadHasMany } from '../../model/relations/eager-load.js';
import type { Scope } from '../../model/scope.js';
import type { Resource } from '../definition/define-resource.js';
import { scopeConditions } from '../query/scope.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Select = SelectQueryBuilder<any, any, Row>;

/** `select <columns>, <counts> from <table>`: callers add conditions, order and limits. */
export function selectRecords(db: Db, resource: Resource): Select {
  const { entity } = resource;
  let query = db.selectFrom(entity.table).select(entity.columns.map((c) => `${entity.table}.${c}`)) as Select;
  for (const [name, relation] of resource.counts) {
    query = query.select(countSubquery(relation, entity.table).as(`${name}_count`));
  }
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

/** One record by the value of a key column, within the caller's scope, or null. */
export async function findRecord(
  connections: Connections,
  resource: Resource,
  scope: Scope,
  column: string,
  id: unknown,
): Promise<Row | null> {
  const { entity } = resource;
  const db = connections[entity.storage];
  const scoped = scopeConditions(entity, scope);
  const rows = await runCached(
    db,
    `record:${resource.key}:${column}:${scoped.key}`,
    () => {
      let query = selectRecords(db, resource).where(`${entity.table}.${column}`, '=', param('id'));
      for (const where of scoped.where) query = query.where(where);
      return query.limit(1);
    },
    { ...scoped.values, id },
  );
  const [record] = await assembleRecords(connections, resource, rows);
  return record ?? null;
}

/** The stored columns of one record by the resource key, within the caller's scope (writes start here). */
export async function findStoredRow(db: Db, resource: Resource, scope: Scope, id: unknown): Promise<Row | undefined> {
  const { entity } = resource;
  const scoped = scopeConditions(entity, scope);
  const [row] = await runCached(
    db,
    `stored:${resource.key}:${scoped.key}`,
    () => {
      let query = db.selectFrom(entity.table).select(entity.columns).where(`${entity.table}.${resource.primaryKey}`, '=', param('id'));
      for (const where of scoped.where) query = query.where(where);
      return query.limit(1);
    },
    { ...scoped.values, id },
  );
  return row as Row | undefined;
}
