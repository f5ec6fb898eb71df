// The one statement a record is read with: the entity's columns, its belongs-to relations joined
// when they live in the same database, its has-many relations embedded as one JSON column each
// where the engine can (DialectAdapter.childRows), and the count sub-queries.
import { type SelectQueryBuilder, sql } from 'kysely';
import type { DialectAdapter } from '../../database/dialects/dialect-adapter.js';
import type { KeyPart } from '../../database/statement-runner.js';
import type { Connections } from '../../model/connections.js';
import type { Entity, HasMany, Row } from '../../model/entity.js';
import { belongsToColumns, countSubquery, embeddedRows } from '../../model/relations/eager-load.js';
import { referenceConditions, type Scope, scopeConditions, scopeKey } from '../../model/scope.js';
import type { Resource } from '../definition/define-resource.js';
import { embeddedColumn, joinedColumn, layoutOf } from './record-layout.js';

// A literal: SQLite re-prepares a statement whose LIMIT is a bound parameter at every execution.
export const ONE = sql.lit(1);

// biome-ignore lint/suspicious/noExplicitAny: tables are declared at run time, the query builder is untyped
export type Select = SelectQueryBuilder<any, any, Row>;

/** A count that is the length of a has-many list loaded anyway needs no sub-query. */
function loadedCount(resource: Resource, relation: HasMany): boolean {
  return resource.hasMany.some(([, loaded]) => loaded === relation);
}

/**
 * What the SQL of `selectRecords` is built from, for a statement key: the resource, its layout
 * (both by identity) and the scope ids its conditions write in.
 */
export function recordsKey(
  connections: Connections,
  resource: Resource,
  scope: Scope,
  adapter: DialectAdapter,
): KeyPart[] {
  const layout = layoutOf(connections, resource, adapter);
  return [resource, layout, scopeKey(layout.scoped, scope)];
}

/**
 * The conditions on a record that `entity`'s record names (its belongs-to): within the scope; a
 * tenant-bound record's only within the tenant too, so a template's creator is never another
 * company's user.
 */
function namedConditions(entity: Entity, target: Entity, scope: Scope) {
  return entity.tenantColumn !== null
    ? referenceConditions(target, scope)
    : scopeConditions(target, scope).where;
}

/**
 * `select <columns>, <joined belongs-to columns>, <embedded has-many columns>, <counts> from
 * <table> left join ... where <scope>`: callers add conditions, order and limits.
 */
export function selectRecords(
  connections: Connections,
  resource: Resource,
  scope: Scope,
  adapter: DialectAdapter,
): Select {
  const { entity } = resource;
  const db = connections[entity.storage];
  let query = db
    .selectFrom(entity.table)
    .select(entity.columns.map((c) => `${entity.table}.${c}`)) as Select;
  const { joined, embedded } = layoutOf(connections, resource, adapter);
  for (const [name, relation] of resource.belongsTo) {
    if (!joined.has(relation)) continue;
    const target = relation.target();
    const on = [
      sql<boolean>`${sql.ref(`${target.table}.${relation.ownerKey}`)} = ${sql.ref(`${entity.table}.${relation.foreignKey}`)}`,
      ...namedConditions(entity, target, scope),
    ];
    query = query
      .leftJoin(target.table, (join) => join.on(sql<boolean>`${sql.join(on, sql` and `)}`))
      .select(
        belongsToColumns(relation).map((c) =>
          sql.ref(`${target.table}.${c}`).as(joinedColumn(name, c)),
        ),
      ) as Select;
  }
  for (const [name, relation] of resource.hasMany) {
    if (embedded.has(relation) && adapter.childRows) {
      query = query.select(
        embeddedRows(relation, entity.table, scope, adapter.childRows).as(embeddedColumn(name)),
      );
    }
  }
  for (const [name, relation] of resource.counts) {
    if (loadedCount(resource, relation)) continue;
    query = query.select(countSubquery(relation, entity.table, scope).as(`${name}_count`));
  }
  return scopeConditions(entity, scope).where.reduce((q, w) => q.where(w), query);
}
