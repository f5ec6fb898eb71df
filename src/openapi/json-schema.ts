// JSON Schema 2020-12 (OpenAPI 3.1's dialect) for what the engine answers and accepts, from the
// field descriptions of model/field-description.ts. Nullability is a type array, never
// `nullable`; no `example`.
import type { OutputField, OutputValue } from '../engine/description/output-fields.js';
import type { FieldDescription, ScalarType } from '../model/field-description.js';

export type Schema = Record<string, unknown>;

/** A schema that also admits null. */
export function orNull(schema: Schema): Schema {
  if (Object.keys(schema).length === 0) return schema; // any value, null included
  const type = schema.type;
  const types = Array.isArray(type) ? type : type === undefined ? null : [type];
  if (!types) return { anyOf: [schema, { type: 'null' }] };
  const out: Schema = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
  return out;
}

function scalar(type: ScalarType): Schema {
  switch (type) {
    case 'integer':
      return { type: 'integer' };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'json':
      return {};
    default:
      return { type: 'string' };
  }
}

/** A stored field as answered. */
export function outputFieldSchema(field: FieldDescription, nullable: boolean): Schema {
  const schema: Schema = { ...scalar(field.type) };
  if (field.choices && field.type === 'string') schema.enum = [...field.choices];
  if (field.jsonText) schema.contentMediaType = 'application/json';
  if (field.label) schema.title = field.label;
  return nullable ? orNull(schema) : schema;
}

/** An object of the given output fields, every key always present. */
export function recordSchema(
  fields: readonly OutputField[],
  valueSchema: (v: OutputValue) => Schema,
) {
  const properties: Record<string, Schema> = {};
  for (const f of fields) {
    const schema = valueSchema(f.value);
    const value = f.nullable ? orNull(schema) : schema;
    properties[f.key] = f.readOnly ? { ...value, readOnly: true } : value;
  }
  return {
    type: 'object',
    properties,
    required: fields.map((f) => f.key),
    additionalProperties: false,
  };
}

/** A payload value of a field; `nullable` when the rules let it be empty. */
export function inputFieldSchema(field: FieldDescription, nullable: boolean): Schema {
  const schema: Schema = { ...scalar(field.type), title: field.label };
  if (field.type === 'datetime') schema.type = 'string';
  if (field.choices) schema.enum = [...field.choices];
  if (field.maxLength !== null) schema.maxLength = field.maxLength;
  if (field.minLength !== null) schema.minLength = field.minLength;
  if (field.maximum !== null) schema.maximum = field.maximum;
  if (field.minimum !== null) schema.minimum = field.minimum;
  if (field.jsonText) schema.contentMediaType = 'application/json';
  if (field.email) schema.format = 'email';
  if (field.writeOnly) schema.writeOnly = true;
  return nullable ? orNull(schema) : schema;
}

/** A detail row id as a payload names it (DESIGN.md 3.5): a JSON integer or its canonical string. */
export const ROW_ID_SCHEMA: Schema = {
  description:
    'The id of a stored row of this master: a JSON integer or its canonical decimal string ("12", never "012" or "12.0"). Left out for a new row.',
  oneOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', pattern: '^(0|[1-9][0-9]*)$' },
  ],
};
