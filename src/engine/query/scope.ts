// Unit- and tenant-bound entities see only the caller's rows (SPEC.md 5.1.3). Conditions use
// named placeholders so a query's compiled SQL is reused whatever the unit (database/query-cache).
import { sql, type Expression, type SqlBool } from 'kysely';
import { param } from '../../database/query-cache.js';
import type { Entity } from '../../model/entity.js';
import type { Scope } from '../../model/scope.js';

export interface ScopeConditions {
  /** Which conditions apply, for the query's shape key. */
  readonly key: string;
  readonly where: ReadonlyArray<Expression<SqlBool>>;
  readonly values: Readonly<Record<string, unknown>>;
}

export function scopeConditions(entity: Entity, scope: Scope): ScopeConditions {
  const where: Array<Expression<SqlBool>> = [];
  const values: Record<string, unknown> = {};
  let key = '';
  if (entity.unitColumn && scope.unitId !== null) {
    where.push(sql<boolean>`${sql.ref(`${entity.table}.${entity.unitColumn}`)} = ${param('scope_unit')}`);
    values.scope_unit = scope.unitId;
    key += 'u';
  }
  if (entity.tenantColumn && scope.tenantId !== null) {
    where.push(sql<boolean>`${sql.ref(`${entity.table}.${entity.tenantColumn}`)} = ${param('scope_tenant')}`);
    values.scope_tenant = scope.tenantId;
    key += 't';
  }
  return { key, where, values };
}

/** The columns a new record is stamped with from the scope; the payload cannot choose them. */
export function scopeStamps(entity: Entity, scope: Scope): Record<string, number> {
  const stamps: Record<string, number> = {};
  if (entity.unitColumn && scope.unitId !== null) stamps[entity.unitColumn] = scope.unitId;
  if (entity.tenantColumn && scope.tenantId !== null) stamps[entity.tenantColumn] = scope.tenantId;
  return stamps;
}
