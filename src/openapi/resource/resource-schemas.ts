// The component schemas of a resource: its record as show and list answer it (from the
// projections, engine/description/output-fields.ts) and its create and update bodies (from the
// fillable fields and rules, with one array per detail relation).
import type { Resource } from '../../engine/definition/define-resource.js';
import type { OutputValue } from '../../engine/description/output-fields.js';
import { describeFields, type FieldDescription } from '../../model/field-description.js';
import { inputFieldSchema, outputFieldSchema, ROW_ID_SCHEMA, type Schema } from '../json-schema.js';

/** `import_template` -> `ImportTemplate`. */
export function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

const FIELD_ROW = (fields: readonly FieldDescription[]) => ({
  type: 'object',
  properties: Object.fromEntries(
    fields.map((f) => [f.name, outputFieldSchema(f, f.storedNullable)]),
  ),
  required: fields.map((f) => f.name),
  additionalProperties: false,
});

export function valueSchema(value: OutputValue): Schema {
  switch (value.kind) {
    case 'field':
      return outputFieldSchema(value.field, false);
    case 'belongsTo':
      return FIELD_ROW(value.fields);
    case 'hasMany':
      return { type: 'array', items: FIELD_ROW(value.fields) };
    case 'count':
      return { type: 'integer', minimum: 0 };
    default:
      return {};
  }
}

export function writeBody(resource: Resource, mode: 'create' | 'update'): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const field of describeFields(resource.entity, resource.labels)) {
    if (!field.writable) continue;
    const isRequired = mode === 'create' ? field.required : field.requiredOnUpdate;
    const blank = mode === 'create' ? !field.required : field.blankOnUpdate;
    properties[field.name] = inputFieldSchema(field, blank);
    if (mode === 'create' && isRequired) required.push(field.name);
  }
  for (const [name, relation] of resource.details) {
    const rowFields = describeFields(relation.target()).filter((f) => f.writable);
    properties[name] = {
      type: ['array', 'null'],
      description:
        'The whole set of rows: a row without `id` is created, one with the id of a stored row of this master is updated, and stored rows left out are deleted; null deletes them all. Absent: the rows are kept. More than maxItems rows is a 422.',
      maxItems: resource.maxDetailRows,
      items: {
        type: 'object',
        properties: {
          id: ROW_ID_SCHEMA,
          ...Object.fromEntries(rowFields.map((f) => [f.name, inputFieldSchema(f, !f.required)])),
        },
        required: rowFields.filter((f) => f.required).map((f) => f.name),
      },
    };
  }
  return {
    type: 'object',
    description:
      mode === 'create'
        ? 'The master fields, and optionally one array per detail relation. Fields the resource does not fill are ignored.'
        : 'Partial (PUT and PATCH alike): fields left out keep their stored values; the rules run on the stored record merged with these.',
    properties,
    ...(required.length > 0 ? { required } : {}),
  };
}
