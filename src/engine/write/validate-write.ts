// SPEC.md 4.4 rules 2 and 3: the master and every detail row are validated before anything is
// saved, each with its entity's rules (a detail row with its own id), lookups batched. A row id
// that is not one of this master's rows fails too (DESIGN.md 3.5).
import type { Connections } from '../../model/connections.js';
import type { Row } from '../../model/entity.js';
import { errors, type ErrorBag } from '../../errors.js';
import type { Resource } from '../definition/define-resource.js';
import { databaseLookup } from '../validation/database-lookup.js';
import { parseRules, validateAll, type ValidationUnit } from '../validation/validator.js';
import type { Payload } from './payload.js';
import { idOf } from '../../model/casts.js';

/** Stored detail rows of one master, by relation name, then by row id as a string. */
export type StoredDetails = ReadonlyMap<string, ReadonlyMap<string, Row>>;

export async function validateWrite(
  connections: Connections,
  resource: Resource,
  masterId: number | null,
  existing: Row | null,
  payload: Payload,
  stored: StoredDetails,
): Promise<void> {
  const { entity } = resource;
  const units: ValidationUnit[] = [];
  const ownership: ErrorBag = {};
  if (entity.rules) {
    units.push({ data: { ...(existing ?? {}), ...payload.master }, rules: parseRules(entity.rules(masterId)) });
  }
  for (const { name, rows } of payload.details) {
    const relation = resource.details.get(name);
    if (!relation) continue;
    const target = relation.target();
    const storedRows = stored.get(name) ?? new Map<string, Row>();
    const ruleSets = new Map<number | null, ValidationUnit['rules']>();
    rows.forEach((row, index) => {
      // A row that is not an object is already refused as a whole; its fields add nothing.
      if (`${name}.${index}` in payload.shapeErrors) return;
      const raw = row[target.primaryKey];
      const id = raw === undefined ? null : idOf(raw);
      const storedRow = id === null ? undefined : storedRows.get(String(id));
      if (raw !== undefined && !storedRow) {
        ownership[`${name}.${index}.${target.primaryKey}`] = [`The selected ${name}.${index}.${target.primaryKey} is invalid.`];
      }
      if (!target.rules) return;
      let rules = ruleSets.get(id);
      if (!rules) {
        // The foreign key is always set from the master (rule 6), so it is not the row's to satisfy.
        rules = parseRules(target.rules(id)).filter((f) => f.field !== relation.foreignKey);
        ruleSets.set(id, rules);
      }
      units.push({ data: { ...(storedRow ?? {}), ...row }, rules, prefix: `${name}.${index}.` });
    });
  }
  const checked = units.length > 0 ? await validateAll(units, databaseLookup(connections)) : {};
  const bag: ErrorBag = { ...payload.shapeErrors };
  for (const [key, messages] of Object.entries({ ...checked, ...ownership })) {
    if (!(key in payload.shapeErrors)) bag[key] = [...(bag[key] ?? []), ...messages];
  }
  if (Object.keys(bag).length > 0) throw errors.validation(bag);
}
