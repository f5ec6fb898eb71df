// Splitting a write payload (SPEC.md 4.4 rules 1 and 5): master fields the entity may fill,
// and one list of rows per detail relation present. Shapes a column cannot hold are refused
// here with field errors, so no driver ever sees them.
import { storableAs, type CastType } from '../../model/casts.js';
import type { Entity, Row } from '../../model/entity.js';
import { errors, type ErrorBag } from '../../errors.js';
import type { Resource } from '../definition/define-resource.js';
import { attributeName } from '../validation/messages.js';

export interface DetailRows {
  readonly name: string;
  readonly rows: Row[];
}

export interface Payload {
  readonly master: Row;
  readonly details: DetailRows[];
  /** Field errors found while splitting (wrong shapes); merged into the validation errors. */
  readonly shapeErrors: ErrorBag;
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
function pickFillable(entity: Entity, source: Row, skip: ReadonlySet<string>, prefix: string, bag: ErrorBag): Row {
  const picked: Row = {};
  for (const [field, value] of Object.entries(source)) {
    if (!(entity.fillable.has(field) || field in entity.writeOnly) || skip.has(field)) continue;
    const cast = entity.casts[field];
    if (!storableAs(cast, value)) {
      bag[prefix + field] = [`The ${attributeName(field, prefix)} field ${TYPE_MESSAGES[cast ?? 'string']}.`];
      continue;
    }
    picked[field] = value;
  }
  return picked;
}

export function splitPayload(resource: Resource, body: unknown): Payload {
  if (!isObject(body)) throw errors.badRequest('The request body must be a JSON object.');
  const { entity } = resource;
  const shapeErrors: ErrorBag = {};
  const never = new Set([entity.primaryKey, entity.timestamps.createdAt ?? '', entity.timestamps.updatedAt ?? '']);
  const master = pickFillable(entity, body, never, '', shapeErrors);
  const details: DetailRows[] = [];
  for (const [name, relation] of resource.details) {
    if (!(name in body)) continue; // absent: not processed
    const value = body[name];
    if (value !== null && !Array.isArray(value)) {
      shapeErrors[name] = [`The ${attributeName(name)} field must be an array.`];
      continue;
    }
    const target = relation.target();
    const skip = new Set([relation.foreignKey, target.primaryKey]);
    const rows = (value ?? []).map((row: unknown, index: number): Row => {
      const prefix = `${name}.${index}.`;
      if (!isObject(row)) {
        shapeErrors[`${name}.${index}`] = [`The ${name}.${index} field must be an object.`];
        return {};
      }
      const picked = pickFillable(target, row, skip, prefix, shapeErrors);
      const id = row[target.primaryKey];
      if (id !== undefined && id !== null) picked[target.primaryKey] = id;
      return picked;
    });
    details.push({ name, rows });
  }
  return { master, details, shapeErrors };
}
