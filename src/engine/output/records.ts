// Reading records the way every action answers them: the entity's columns, its belongs-to
// relations (joined when they live in the same database) and the count sub-queries in one
// statement, then one batched statement per eager-loaded has-many relation, then the full
// serialised record (SPEC.md 2.2 rule 1) ready for a projection.
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Db } from '../../database/database.js';
import { param, runCached } from '../../database/query-cache.js';
import type { Connections } from '../../model/connections.js';
import type { Row } from '../../model/entity.js';
import { belongsToColumns, belongsToReader, countSubquery, loadBelongsTo, loadHasMany } from '../../model/relations/eager-load.js';
import type { BelongsTo, HasMany } from '../../model/relations/relation.js';
import type { Resource } from '../definition/define-resource.js';
import { scopeConditions, scopeKey, type Scope } from '../../model/scope.js';

// A literal: SQLite re-prepares a statement whose LIMIT is a bound parameter at every execution.
const ONE = sql.lit(1);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Select = SelectQueryBuilder<any, any, Row>;

/**
 * Belongs-to relations read by a left join of the record's own select: the target is in the
 * same database and its table is not already in the query (the entity's own, or an earlier
 * join's). The others are read by one batched statement each.
 */
function joinedBelongsTo(connections: Connections, resource: Resource): ReadonlySet<BelongsTo> {
  // Which storages share a database is all that decides it: computed once per resource and case.
  const shared = connections.system === connections.data;
  let cases = joinedCases.get(resource);
  if (!cases) joinedCases.set(resource, (cases = new Map()));
  let joined = cases.get(shared);
  if (!joined) {
    const { entity } = resource;
    const tables = new Set([entity.table]);
    const found = new Set<BelongsTo>();
    for (const [, relation] of resource.belongsTo) {
      const target = relation.target();
      if ((target.storage !== entity.storage && !shared) || tables.has(target.table)) continue;
      tables.add(target.table);
      found.add(relation);
    }
    cases.set(shared, (joined = found));
  }
  return joined;
}

const joinedCases = new WeakMap<Resource, Map<boolean, ReadonlySet<BelongsTo>>>();

/** The alias of a joined relation's column: a dot cannot occur in a declared column name. */
const joinedColumn = (name: string, column: string) => `${name}.${column}`;

/** A count that is the length of a has-many list loaded anyway needs no sub-query. */
function loadedCount(resource: Resource, relation: HasMany): boolean {
  return resource.hasMany.some(([, loaded]) => loaded === relation);
}

/** Names the SQL of `selectRecords` for the query cache, without building it. */
export function recordsShape(connections: Connections, resource: Resource, scope: Scope): string {
  let shape = `${resource.key}:${scopeKey(resource.entity, scope)}`;
  const joined = joinedBelongsTo(connections, resource);
  for (const [name, relation] of resource.belongsTo) if (joined.has(relation)) shape += `,j${name}${scopeKey(relation.target(), scope)}`;
  for (const [, relation] of resource.counts) shape += `,${scopeKey(relation.target(), scope)}`;
  return shape;
}

/**
 * `select <columns>, <joined belongs-to columns>, <counts> from <table> left join ... where
 * <scope>`: callers add conditions, order and limits.
 */
export function selectRecords(connections: Connections, resource: Resource, scope: Scope): Select {
  const { entity } = resource;
  const db = connections[entity.storage];
  let query = db.selectFrom(entity.table).select(entity.columns.map((c) => `${entity.table}.${c}`)) as Select;
  const joined = joinedBelongsTo(connections, resource);
  for (const [name, relation] of resource.belongsTo) {
    if (!joined.has(relation)) continue;
    const target = relation.target();
    const on = [
      sql<boolean>`${sql.ref(`${target.table}.${relation.ownerKey}`)} = ${sql.ref(`${entity.table}.${relation.foreignKey}`)}`,
      ...scopeConditions(target, scope).where,
    ];
    query = query
      .leftJoin(target.table, (join) => join.on(sql<boolean>`${sql.join(on, sql` and `)}`))
      .select(belongsToColumns(relation).map((c) => sql.ref(`${target.table}.${c}`).as(joinedColumn(name, c)))) as Select;
  }
  for (const [name, relation] of resource.counts) {
    if (loadedCount(resource, relation)) continue;
    query = query.select(countSubquery(relation, entity.table, scope).as(`${name}_count`));
  }
  return scopeConditions(entity, scope).where.reduce((q, w) => q.where(w), query);
}

/** Stored rows (from `selectRecords`) -> full records with relations and appends, hidden fields removed. */
export async function assembleRecords(connections: Connections, resource: Resource, scope: Scope, rows: Row[]): Promise<Row[]> {
  if (rows.length === 0) return [];
  const { entity } = resource;
  const joined = joinedBelongsTo(connections, resource);
  const [belongs, many] = await Promise.all([
    Promise.all(resource.belongsTo.map(([, r]) => (joined.has(r) ? null : loadBelongsTo(connections, r, rows, scope)))),
    Promise.all(resource.hasMany.map(([, r]) => loadHasMany(connections, r, rows.map((row) => row[r.localKey]), scope))),
  ]);
  const joinedReaders = resource.belongsTo.map(([name, r]) => (joined.has(r) ? belongsToReader(r, joinedColumn(name, '')) : null));
  const lists = new Map<HasMany, Map<string, Row[]>>();
  resource.hasMany.forEach(([, relation], i) => lists.set(relation, many[i] ?? new Map()));
  const counts = resource.counts.map(([name, relation]) => [`${name}_count`, relation] as const);
  return rows.map((row) => {
    const record = entity.serialize(row);
    for (const [name, fn] of resource.appends) record[name] = fn(record);
    resource.belongsTo.forEach(([name, relation], i) => {
      const read = joinedReaders[i];
      record[name] = read ? read(row) : (belongs[i]?.get(String(row[relation.foreignKey])) ?? null);
    });
    for (const [name, relation] of resource.hasMany) record[name] = lists.get(relation)?.get(String(row[relation.localKey])) ?? [];
    for (const [field, relation] of counts) {
      const list = lists.get(relation);
      record[field] = list ? (list.get(String(row[relation.localKey]))?.length ?? 0) : Number(row[field] ?? 0);
    }
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
    `record:${recordsShape(connections, resource, scope)}:${column}`,
    () => selectRecords(connections, resource, scope).where(`${entity.table}.${column}`, '=', param('id')).limit(ONE),
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
