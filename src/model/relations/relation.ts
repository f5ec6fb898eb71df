// Relation kinds. Targets are thunks so entities can refer to each other in any order.
import type { Entity } from '../entity.js';

export interface BelongsTo {
  readonly kind: 'belongsTo';
  readonly target: () => Entity;
  /** Column on the owning entity holding the target's key. */
  readonly foreignKey: string;
  /** Key on the target, usually its primary key. */
  readonly ownerKey: string;
  /** The target columns to load (all visible ones when absent), e.g. only a user's id and name. */
  readonly columns: readonly string[] | null;
}

export interface HasMany {
  readonly kind: 'hasMany';
  readonly target: () => Entity;
  /** Column on the target that holds this entity's key. */
  readonly foreignKey: string;
  /** Key on this entity, usually its primary key. */
  readonly localKey: string;
}

export type Relation = BelongsTo | HasMany;

export function belongsTo(
  target: () => Entity,
  foreignKey: string,
  options: { ownerKey?: string; columns?: readonly string[] } = {},
): BelongsTo {
  return { kind: 'belongsTo', target, foreignKey, ownerKey: options.ownerKey ?? 'id', columns: options.columns ?? null };
}

export function hasMany(target: () => Entity, foreignKey: string, localKey = 'id'): HasMany {
  return { kind: 'hasMany', target, foreignKey, localKey };
}
