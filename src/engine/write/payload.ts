// Reading a write payload (SPEC.md 4.4 rules 1 and 5): master fields the entity may fill, and
// per detail relation present its rows, each row's id normalised here once (DESIGN.md 3.5).
// Shapes a column cannot hold are refused here with field errors, so no driver ever sees them.

import { type ErrorBag, errors } from '../../errors.js';
import { type CastType, rowIdOf, storableAs } from '../../model/casts.js';
import type { Entity, HasMany, Row } from '../../model/entity.js';
import { attributeName } from '../../support/attribute-name.js';
import type { Resource } from '../definition/define-resource.js';

/** One row of a detail relation as the payload sent it. */
export interface PayloadRow {
  /** Its position in the payload's array: error keys name it (`groups.<index>.group_id`). */
  readonly index: number;
  /** The stored row it names, or null for a new row (no id, or a null one). */
  readonly id: number | null;
  /** Why its id is refused before any stored row is looked at (malformed, or named twice). */
  readonly idError: string | null;
  /** The fields it may fill, foreign key and id left out. */
  readonly fields: Row;
}

export interface DetailPayload {
  readonly name: string;
  readonly relation: HasMany;
  /** The rows that are objects; the others are only in `errors`. */
  readonly rows: readonly PayloadRow[];
}

export interface Payload {
  readonly master: Row;
  /** The detail relations present in the payload, in the resource's order. */
  readonly details: readonly DetailPayload[];
  /** Field errors found while reading (values of the wrong shape). */
  readonly errors: ErrorBag;
}

const TYPE_MESSAGES: Record<CastType | 'string', string> = {
  integer: 'must be an integer',
  float: 'must be a number',
  boolean: 'must be true or false',
  datetime: 'must be a valid date',
  json: 'must be valid JSON',
  string: 'must be a string',
};

function isObject(value: unknown): value is Row {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Fillable fields of `source` that the entity can store, type errors under `prefix + field`. */
function pickFillable(
  entity: Entity,
  source: Row,
  skip: ReadonlySet<string>,
  prefix: string,
  bag: ErrorBag,
): Row {
  const picked: Row = {};
  for (const [field, value] of Object.entries(source)) {
    // Own properties only: a payload key such as `constructor` is not a field of every object.
    if (!(entity.fillable.has(field) || Object.hasOwn(entity.writeOnly, field)) || skip.has(field))
      continue;
    const cast = entity.casts[field];
    if (!storableAs(cast, value)) {
      bag[prefix + field] = [
        `The ${attributeName(field, prefix)} field ${TYPE_MESSAGES[cast ?? 'string']}.`,
      ];
      continue;
    }
    picked[field] = value;
  }
  return picked;
}

export function readPayload(resource: Resource, body: unknown): Payload {
  if (!isObject(body)) throw errors.badRequest('The request body must be a JSON object.');
  const { entity } = resource;
  const bag: ErrorBag = {};
  const never = new Set([
    entity.primaryKey,
    entity.timestamps.createdAt ?? '',
    entity.timestamps.updatedAt ?? '',
  ]);
  const master = pickFillable(entity, body, never, '', bag);
  const details: DetailPayload[] = [];
  for (const [name, relation] of resource.details) {
    if (!(name in body)) continue; // absent: not processed
    const value = body[name];
    if (value !== null && !Array.isArray(value)) {
      bag[name] = [`The ${attributeName(name)} field must be an array.`];
      continue;
    }
    // Bounded work per write (issue 19): the rows are not read at all beyond the limit.
    if (value !== null && value.length > resource.maxDetailRows) {
      bag[name] = [
        `The ${attributeName(name)} field must not have more than ${resource.maxDetailRows} items.`,
      ];
      continue;
    }
    details.push({ name, relation, rows: readRows(name, relation, value ?? [], bag) });
  }
  return { master, details, errors: bag };
}

/** A relation's rows; an id is a JSON integer or a canonical decimal string, named at most once. */
function readRows(
  name: string,
  relation: HasMany,
  values: readonly unknown[],
  bag: ErrorBag,
): PayloadRow[] {
  const target = relation.target();
  const pk = target.primaryKey;
  const skip = new Set([relation.foreignKey, pk]);
  const named = new Set<number>();
  const rows: PayloadRow[] = [];
  values.forEach((value, index) => {
    const prefix = `${name}.${index}.`;
    if (!isObject(value)) {
      bag[`${name}.${index}`] = [`The ${name}.${index} field must be an object.`];
      return;
    }
    const fields = pickFillable(target, value, skip, prefix, bag);
    const raw = value[pk];
    const id = raw == null ? null : rowIdOf(raw);
    let idError: string | null = null;
    if (raw != null && id === null) idError = `The selected ${prefix}${pk} is invalid.`;
    // Two rows naming one stored row would leave which one wins to the order of statements.
    else if (id !== null && named.has(id))
      idError = `The ${prefix}${pk} field has a duplicate value.`;
    if (id !== null) named.add(id);
    rows.push({ index, id, fields, idError });
  });
  return rows;
}
