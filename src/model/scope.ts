// Who is acting and where: set by the auth middleware (SPEC.md 5.1.3), read by unit- and
// tenant-bound entities to filter and stamp, and by resources for their own checks.
//
// The unit and tenant ids are written into the SQL as integer literals, and the query's shape
// key names them, so each unit gets its own compiled statement (units are few). A bound
// parameter there would make SQLite re-prepare the statement at every execution once ANALYZE
// has gathered stat4 samples on the column: several times the cost of running it.
import { type Expression, type SqlBool, sql } from 'kysely';
import type { Entity } from './entity.js';

export interface Scope {
  readonly userId: number | null;
  readonly unitId: number | null;
  /** The tenant whose rows alone a tenant-bound entity shows: set in isolation mode only. */
  readonly tenantId: number | null;
  /**
   * The caller's company in either mode: what a new tenant-bound row is stamped with, so rows
   * written before isolation is turned on are their company's already.
   */
  readonly companyId?: number | null;
}

export const NO_SCOPE: Scope = Object.freeze({ userId: null, unitId: null, tenantId: null });

export interface ScopeConditions {
  readonly where: ReadonlyArray<Expression<SqlBool>>;
}

const bindsUnit = (entity: Entity, scope: Scope) =>
  entity.unitColumn !== null && scope.unitId !== null;
const bindsTenant = (entity: Entity, scope: Scope) =>
  entity.tenantColumn !== null && scope.tenantId !== null;
/** Tenant-bound, or read as a reference bound by tenant: the tenant id is in the statement. */
const keysTenant = (entity: Entity, scope: Scope) =>
  (entity.tenantColumn !== null || entity.tenantMember !== null) && scope.tenantId !== null;

/**
 * The scope ids a query over `entities` writes into its SQL (see above): part of its statement
 * key. Only a unit-bound entity makes the unit id matter, only a tenant-bound one (or one read as
 * a reference, with its tenantMember condition) the tenant id.
 */
export function scopeKey(entities: Entity | readonly Entity[], scope: Scope): string {
  // Per statement on every request: a single entity is checked without a list.
  const single = !Array.isArray(entities);
  const list = entities as readonly Entity[];
  const one = entities as Entity;
  const unit = single ? bindsUnit(one, scope) : list.some((entity) => bindsUnit(entity, scope));
  const tenant = single ? keysTenant(one, scope) : list.some((entity) => keysTenant(entity, scope));
  return (unit ? `u${scope.unitId}` : '') + (tenant ? `t${scope.tenantId}` : '');
}

/** The conditions that keep a unit- or tenant-bound entity's rows to the caller's. */
export function scopeConditions(entity: Entity, scope: Scope): ScopeConditions {
  const where: Array<Expression<SqlBool>> = [];
  if (bindsUnit(entity, scope))
    where.push(
      sql<boolean>`${sql.ref(`${entity.table}.${entity.unitColumn}`)} = ${sql.lit(Math.trunc(Number(scope.unitId)))}`,
    );
  if (bindsTenant(entity, scope))
    where.push(
      sql<boolean>`${sql.ref(`${entity.table}.${entity.tenantColumn}`)} = ${sql.lit(Math.trunc(Number(scope.tenantId)))}`,
    );
  return { where };
}

/**
 * The conditions on records that a record names or a lookup offers (a template's creator and
 * users; a picker's choices): the scope's, and in isolation mode the tenant's for an entity that
 * belongs to tenants without being bound to them (a user, by its units). An admin's own lists of
 * users, units and companies stay unbound (DESIGN.md 3.4).
 */
export function referenceConditions(entity: Entity, scope: Scope): Array<Expression<SqlBool>> {
  const { where } = scopeConditions(entity, scope);
  if (scope.tenantId === null || entity.tenantMember === null) return [...where];
  return [...where, entity.tenantMember(Math.trunc(Number(scope.tenantId)))];
}

/** The columns a new record is stamped with from the scope; the payload cannot choose them. */
export function scopeStamps(entity: Entity, scope: Scope): Record<string, number> {
  const stamps: Record<string, number> = {};
  if (entity.unitColumn && scope.unitId !== null) stamps[entity.unitColumn] = scope.unitId;
  const tenant = scope.tenantId ?? scope.companyId ?? null;
  if (entity.tenantColumn && tenant !== null) stamps[entity.tenantColumn] = tenant;
  return stamps;
}
