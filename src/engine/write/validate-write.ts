// SPEC.md 4.4 rules 2 and 3: the master and every detail row of the plan are validated before
// anything is saved, each with its entity's rules (a detail row with its own id), lookups batched
// and kept to the caller's scope. Errors in order: wrong shapes, rules, refused row ids.

import { type ErrorBag, errors } from '../../errors.js';
import { readCasts } from '../../model/casts.js';
import { columnLimits, writeRules } from '../../model/column-limits.js';
import type { Connections } from '../../model/connections.js';
import type { Row } from '../../model/entity.js';
import type { Scope } from '../../model/scope.js';
import type { Resource } from '../definition/define-resource.js';
import { databaseLookup } from '../validation/database-lookup.js';
import { type ValidationUnit, validateAll } from '../validation/validator.js';
import type { WritePlan } from './write-plan.js';

/** A stored row as a payload sends it: a JSON column's text parsed (an `array` rule holds). */
function asSent(resource: Resource, stored: Row | null): Row {
  const row = { ...(stored ?? {}) };
  for (const [column, cast] of Object.entries(resource.entity.casts))
    if (cast === 'json' && column in row) row[column] = readCasts.json(row[column]);
  return row;
}

export async function validateWrite(
  connections: Connections,
  scope: Scope,
  resource: Resource,
  masterId: number | null,
  existing: Row | null,
  plan: WritePlan,
): Promise<void> {
  const { entity } = resource;
  const units: ValidationUnit[] = [];
  if (entity.rules || columnLimits(entity).size > 0) {
    const data = { ...asSent(resource, existing), ...plan.master };
    units.push({ data, rules: writeRules(entity, masterId, data) });
  }
  for (const { name, relation, target, rows } of plan.details) {
    if (!target.rules && columnLimits(target).size === 0) continue;
    for (const row of rows) {
      const data = { ...(row.stored ?? {}), ...row.fields };
      // The foreign key is always set from the master (rule 6), so it is not the row's to satisfy.
      const rules = writeRules(target, row.id, data).filter((f) => f.field !== relation.foreignKey);
      units.push({ data, rules, prefix: `${name}.${row.index}.` });
    }
  }
  // A tenant-bound record and its detail rows name only the caller's tenant's records.
  const lookup = databaseLookup(connections, scope, {
    tenantReferences: entity.tenantColumn !== null,
  });
  const checked = units.length > 0 ? await validateAll(units, lookup) : {};
  const bag: ErrorBag = { ...plan.errors };
  for (const [key, messages] of Object.entries(checked)) {
    if (!(key in plan.errors)) bag[key] = messages;
  }
  for (const { name, target, rows } of plan.details) {
    for (const row of rows)
      if (row.refusal !== null) bag[`${name}.${row.index}.${target.primaryKey}`] = [row.refusal];
  }
  if (Object.keys(bag).length > 0) throw errors.validation(bag);
}
