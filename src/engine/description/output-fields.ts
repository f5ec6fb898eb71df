// The keys a resource answers, and what each holds, for a view (list items or show/write
// answers), following the engine's own projection rules (SPEC.md 2.2; output/projection.ts and
// output/assemble-records.ts): the full record is the entity's visible columns, appends, belongs-to
// records, has-many rows and counts, less the resource's hidden fields; a projection picks keys
// from it. The OpenAPI item schemas and the admin list columns are both made from this.
import type { BelongsTo, HasMany } from '../../model/entity.js';
import { describeFields, type FieldDescription } from '../../model/field-description.js';
import { labelOf } from '../../model/labels.js';
import type { Resource } from '../definition/define-resource.js';
import { projectionPicks } from '../output/projection.js';

export type OutputValue =
  | { readonly kind: 'field'; readonly field: FieldDescription }
  | {
      readonly kind: 'belongsTo';
      readonly relation: BelongsTo;
      readonly fields: FieldDescription[];
    }
  | { readonly kind: 'hasMany'; readonly relation: HasMany; readonly fields: FieldDescription[] }
  | { readonly kind: 'count' }
  /** A computed attribute, a transformer's result, or a path the record does not hold. */
  | { readonly kind: 'any' };

export interface OutputField {
  readonly key: string;
  readonly label: string;
  readonly value: OutputValue;
  /** Whether null can be answered under the key (a field of a missing relation record, say). */
  readonly nullable: boolean;
  /** A transformer's result (DESIGN.md 3.6): output only, never to be sent back. */
  readonly readOnly?: boolean;
}

export type View = 'index' | 'show';

/** The visible fields of a relation's target, as its records are answered. */
function relationFields(relation: BelongsTo | HasMany): FieldDescription[] {
  const target = relation.target();
  const shown =
    relation.kind === 'belongsTo' && relation.columns
      ? new Set([relation.ownerKey, ...relation.columns])
      : null;
  return describeFields(target)
    .filter((f) => target.columnSet.has(f.name) && !f.writeOnly && (!shown || shown.has(f.name)))
    .map((f) =>
      // A detail row's foreign key is always set, from its master (SPEC.md 4.4 rule 6).
      relation.kind === 'hasMany' && f.name === relation.foreignKey
        ? { ...f, storedNullable: false }
        : f,
    );
}

/** The full serialised record (SPEC.md 2.2 rule 1): key -> value, in the engine's key order. */
function fullRecord(resource: Resource): Map<string, OutputValue> {
  const record = new Map<string, OutputValue>();
  for (const field of describeFields(resource.entity, resource.labels))
    if (resource.entity.columnSet.has(field.name) && !field.writeOnly)
      record.set(field.name, { kind: 'field', field });
  for (const [name] of resource.appends) record.set(name, { kind: 'any' });
  for (const [name, relation] of resource.belongsTo)
    record.set(name, { kind: 'belongsTo', relation, fields: relationFields(relation) });
  for (const [name, relation] of resource.hasMany)
    record.set(name, { kind: 'hasMany', relation, fields: relationFields(relation) });
  for (const [name] of resource.counts) record.set(`${name}_count`, { kind: 'count' });
  for (const key of resource.hidden) record.delete(key);
  return record;
}

function nullableValue(value: OutputValue): boolean {
  switch (value.kind) {
    case 'field':
      return value.field.storedNullable;
    case 'belongsTo':
    case 'any':
      return true;
    default:
      return false;
  }
}

/** What `path` reads in the full record (projection.ts valueAt), and whether it may be null. */
function valueAtPath(
  record: ReadonlyMap<string, OutputValue>,
  path: readonly string[],
): { value: OutputValue; nullable: boolean } {
  const [root = '', next, ...rest] = path;
  const value = record.get(root);
  if (!value) return { value: { kind: 'any' }, nullable: true };
  if (next === undefined) return { value, nullable: nullableValue(value) };
  // `relation.field` of a belongs-to record; null when the record is missing.
  if (value.kind === 'belongsTo' && rest.length === 0) {
    const field = value.fields.find((f) => f.name === next);
    if (field) return { value: { kind: 'field', field }, nullable: true };
  }
  return { value: { kind: 'any' }, nullable: true };
}

export function outputFields(resource: Resource, view: View): OutputField[] {
  const record = fullRecord(resource);
  const entries = view === 'index' ? resource.indexFields : resource.showFields;
  const transformed = new Set(resource.transformedFields());
  const label = (key: string) => resource.labels[key] ?? labelOf(key);
  const fields: OutputField[] =
    entries.length === 0
      ? [...record].map(([key, value]) => ({
          key,
          label: label(key),
          value,
          nullable: nullableValue(value),
        }))
      : projectionPicks(entries, resource.primaryKey, resource.hidden).map((pick) => ({
          key: pick.key,
          label: label(pick.key),
          ...valueAtPath(record, pick.path),
        }));
  // A transformer may answer anything for its field.
  return fields.map((f) =>
    transformed.has(f.key) ? { ...f, value: { kind: 'any' }, nullable: true, readOnly: true } : f,
  );
}
