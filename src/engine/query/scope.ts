// Unit- and tenant-bound entities see only the caller's rows (SPEC.md 5.1.3).
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Entity } from '../../model/entity.js';
import type { Scope } from '../../model/scope.js';

export function scopeExpressions(entity: Entity, scope: Scope): Array<Expression<SqlBool>> {
  const where: Array<Expression<SqlBool>> = [];
  if (entity.unitColumn && scope.unitId !== null) {
    where.push(sql<boolean>`${sql.ref(`${entity.table}.${entity.unitColumn}`)} = ${scope.unitId}`);
  }
  if (entity.tenantColumn && scope.tenantId !== null) {
    where.push(sql<boolean>`${sql.ref(`${entity.table}.${entity.tenantColumn}`)} = ${scope.tenantId}`);
  }
  return where;
}

/** The columns a new record is stamped with from the scope; the payload cannot choose them. */
export function scopeStamps(entity: Entity, scope: Scope): Record<string, number> {
  const stamps: Record<string, number> = {};
  if (entity.unitColumn && scope.unitId !== null) stamps[entity.unitColumn] = scope.unitId;
  if (entity.tenantColumn && scope.tenantId !== null) stamps[entity.tenantColumn] = scope.tenantId;
  return stamps;
}
