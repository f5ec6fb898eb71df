// Reading records the way every action answers them: the entity's columns plus the count
// sub-queries in one statement, then one batched statement per eager-loaded relation, then the
// full serialised record (SPEC.md 2.2 rule 1) ready for a projection.
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../../database/database.js';
import { param, runCached } from '../../database/query-cache.js';
import type { Connections } from '../../model/connections.js';
import type { Row } from '../../model/entity.js';
import { countSubquery, loadBelongsTo, loadHasMany } from '../../model/relations/eager-load.js';
import type { Resource } from '../definition/define-resource.js';
import { scopeConditions, scopeKey, type Scope } from '../../model/scope.js';

// A literal: SQLite re-prepares a statement whose LIMIT is a bound parameter at every execution.
const ONE = sql.lit(1);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Select = SelectQueryBuilder<any, any, Row>;

/** Names the SQL of `selectRecords` for the query cache, without building it. */
export function recordsShape(resource: Resource, scope: Scope): string {
  let shape = `${resource.key}:${scopeKey(resource.entity, scope)}`;
  for (const [, relation] of resource.counts) shape += `,${scopeKey(relation.target(), scope)}`;
  return shape;
}

/**
 * `select <columns>, <counts> from <table> where <scope>`: callers add conditions, order and
 * limits.
 */
export function selectRecords(db: Db, resource: Resource, scope: Scope): Select {
  const { entity } = resource;
  let query = db.selectFrom(entity.table).select(entity.columns.map((c) => `${entity.table}.${c}`)) as Select;
  for (const [name, relation] of resource.counts) {
    query = query.select(countSubquery(relation, entity.table, scope).as(`${name}_count`));
  }
  return scopeConditions(entity, scope).where.reduce((q, w) => q.where(w), query);
}

/** Stored rows (with counts) -> full records with relations and appends, hidden fields removed. */
export async function assembleRecords(connections: Connections, resource: Resource, scope: Scope, rows: Row[]): Promise<Row[]> {
  if (rows.length === 0) return [];
  const { entity } = resource;
  const [belongs, many] = await Promise.all([
    Promise.all(resource.belongsTo.map(([, r]) => loadBelongsTo(connections, r, rows, scope))),
    Promise.all(resource.hasMany.map(([, r]) => loadHasMany(connections, r, rows.map((row) => row[r.localKey]), scope))),
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
  const rows = await runCached(
    db,
    `record:${recordsShape(resource, scope)}:${column}`,
    () => selectRecords(db, resource, scope).where(`${entity.table}.${column}`, '=', param('id')).limit(ONE),
    { id },
  );
  const [record] = await assembleRecords(connections, resource, scope, rows);
  return record ?? null;
}

/** The stored columns of one record by the resource key, within the caller's scope (writes start here). */
/** The stored master row a write is about to change, locked for the rest of its transaction. */
export async function findStoredRow(db: Db, resource: Resource, scope: Scope, id: unknown, adapter: DialectAdapter): Promise<Row | undefined> {
  const { entity } = resource;
  const [row] = await runCached(
    db,
    `stored:${resource.key}:${scopeKey(entity, scope)}`,
    () =>
      adapter.lockForUpdate(
        scopeConditions(entity, scope)
          .where.reduce((q, w) => q.where(w), db.selectFrom(entity.table).select(entity.columns))
          .where(`${entity.table}.${resource.primaryKey}`, '=', param('id'))
          .limit(ONE),
      ),
    { id },
  );
  return row as Row | undefined;
}
