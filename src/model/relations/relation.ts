// The relation kinds' constructors (their types live with Entity in ../entity.ts: each refers to
// the other). Targets are thunks so entities can refer to each other in any order.
import type { BelongsTo, Entity, HasMany } from '../entity.js';

export function belongsTo(
  target: () => Entity,
  foreignKey: string,
  options: { ownerKey?: string; columns?: readonly string[] } = {},
): BelongsTo {
  return {
    kind: 'belongsTo',
    target,
    foreignKey,
    ownerKey: options.ownerKey ?? 'id',
    columns: options.columns ?? null,
  };
}

export function hasMany(target: () => Entity, foreignKey: string, localKey = 'id'): HasMany {
  return { kind: 'hasMany', target, foreignKey, localKey };
}
