// Who is acting and where: set by the auth middleware (SPEC.md 5.1.3), read by unit- and
// tenant-bound entities to filter and stamp, and by resources for their own checks. Conditions
// use named placeholders so a query's compiled SQL is reused whatever the unit
// (database/query-cache); every query of a request takes the same `scopeValues`.
import { sql, type Expression, type SqlBool } from 'kysely';
import { param } from '../database/query-cache.js';
import type { Entity } from './entity.js';

export interface Scope {
  readonly userId: number | null;
  readonly unitId: number | null;
  readonly tenantId: number | null;
}

export const NO_SCOPE: Scope = Object.freeze({ userId: null, unitId: null, tenantId: null });

export interface ScopeConditions {
  /** Which conditions apply, for the query's shape key. */
  readonly key: string;
  readonly where: ReadonlyArray<Expression<SqlBool>>;
}

/** Which scope conditions apply to the entity ('', 'u', 't' or 'ut'): part of a query's shape. */
export function scopeKey(entity: Entity, scope: Scope): string {
  return (entity.unitColumn && scope.unitId !== null ? 'u' : '') + (entity.tenantColumn && scope.tenantId !== null ? 't' : '');
}

/** The conditions that keep a unit- or tenant-bound entity's rows to the caller's. */
export function scopeConditions(entity: Entity, scope: Scope): ScopeConditions {
  const key = scopeKey(entity, scope);
  const where: Array<Expression<SqlBool>> = [];
  if (key.includes('u')) where.push(sql<boolean>`${sql.ref(`${entity.table}.${entity.unitColumn}`)} = ${param('scope_unit')}`);
  if (key.includes('t')) where.push(sql<boolean>`${sql.ref(`${entity.table}.${entity.tenantColumn}`)} = ${param('scope_tenant')}`);
  return { key, where };
}

/** The placeholder values of every scope condition. */
export function scopeValues(scope: Scope): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  if (scope.unitId !== null) values.scope_unit = scope.unitId;
  if (scope.tenantId !== null) values.scope_tenant = scope.tenantId;
  return values;
}

/** The columns a new record is stamped with from the scope; the payload cannot choose them. */
export function scopeStamps(entity: Entity, scope: Scope): Record<string, number> {
  const stamps: Record<string, number> = {};
  if (entity.unitColumn && scope.unitId !== null) stamps[entity.unitColumn] = scope.unitId;
  if (entity.tenantColumn && scope.tenantId !== null) stamps[entity.tenantColumn] = scope.tenantId;
  return stamps;
}
