// GET /app/resources (DESIGN.md 3.8): per resource what the admin front end renders its list and
// form from (metadata-types.ts), made from the route table, the resource definitions and their
// entities. Labels default from names (model/labels.ts) unless a definition sets them.
import type { HasMany } from '../../model/entity.js';
import { describeFields, type FieldDescription } from '../../model/field-description.js';
import { labelOf } from '../../model/labels.js';
import type { Action, AuthorizationRequest } from '../definition/resource-config.js';

import { OPERATORS, type Operator } from '../query/filters.js';
import type { ResourceRoute } from '../routes.js';
import type {
  ColumnMeta,
  DetailMeta,
  FieldMeta,
  FieldType,
  FilterMeta,
  InputKind,
  Reference,
  RelatedMeta,
  ResourceMeta,
} from './metadata-types.js';
import { type OutputValue, outputFields } from './output-fields.js';
import { collectionName, resourceLabels, routeActions } from './route-names.js';

/** Where a picker looks records up (http/description-routes.ts serves it). */
export const LOOKUP_PATH = '/app/lookups';

const PAGE_SIZES = [10, 15, 25, 50, 100, 200];
const ORDERING: readonly Operator[] = ['=', '!=', '<', '<=', '>', '>=', 'in', 'not in', 'null'];
const CHOOSING: readonly Operator[] = ['=', '!=', 'in', 'not in', 'null'];

/** The route whose entity is stored in `table`: the resource a foreign key names. */
function referenceTo(
  routes: readonly ResourceRoute[],
  target: { table: string } | null,
): Reference | null {
  if (!target) return null;
  const route = routes.find((r) => r.resource.entity.table === target.table);
  if (!route) return null;
  const name = collectionName(route);
  return { resource: name, lookup: `${LOOKUP_PATH}/${name}` };
}

function inputOf(field: FieldDescription, reference: Reference | null): InputKind {
  if (field.writeOnly) return 'password';
  if (reference) return 'reference';
  // A JSON list whose items are among the choices (a webhook's events).
  if (field.choices && field.type === 'json') return 'choices';
  if (field.choices || field.type === 'boolean') return 'choice';
  if (field.jsonText || field.type === 'json') return 'json';
  if (field.email) return 'email';
  if (field.type === 'integer' || field.type === 'number') return 'number';
  if (field.type === 'datetime') return 'datetime';
  return field.maxLength === null ? 'textarea' : 'text';
}

function choicesOf(field: FieldDescription) {
  if (field.choices) return field.choices.map((value) => ({ value, label: value }));
  if (field.type === 'boolean')
    return [
      { value: 'true', label: 'Yes' },
      { value: 'false', label: 'No' },
    ];
  return null;
}

function fieldMeta(
  routes: readonly ResourceRoute[],
  field: FieldDescription,
  transformed: ReadonlySet<string> = new Set(),
): FieldMeta {
  const reference = referenceTo(routes, field.references);
  return {
    name: field.name,
    label: field.label,
    type: field.type,
    input: inputOf(field, reference),
    required: field.required,
    required_on_update: field.requiredOnUpdate,
    nullable: !field.required,
    max_length: field.maxLength,
    min_length: field.minLength,
    choices: choicesOf(field),
    reference,
    // A transformed field is output only (DESIGN.md 3.6): shown, never sent back.
    read_only: !field.writable || transformed.has(field.name),
    write_only: field.writeOnly,
  };
}

function filterMeta(meta: FieldMeta): FilterMeta {
  const input =
    meta.input === 'choice' || meta.input === 'reference' || meta.input === 'number'
      ? meta.input
      : meta.input === 'datetime'
        ? 'datetime'
        : 'text';
  const operators = input === 'text' ? OPERATORS : input === 'choice' ? CHOOSING : ORDERING;
  return {
    name: meta.name,
    label: meta.label,
    type: meta.type,
    input,
    operators,
    default_operator: input === 'text' ? 'like' : '=',
    choices: meta.choices,
    reference: meta.reference,
  };
}

function detailMeta(
  routes: readonly ResourceRoute[],
  name: string,
  relation: HasMany,
  label: string,
): DetailMeta {
  const target = relation.target();
  return {
    name,
    label,
    key: target.primaryKey,
    foreign_key: relation.foreignKey,
    fields: describeFields(target)
      .filter((f) => f.writable)
      .map((f) => fieldMeta(routes, f)),
  };
}

function columnType(value: OutputValue): FieldType {
  switch (value.kind) {
    case 'field':
      return value.field.type;
    case 'belongsTo':
      return 'object';
    case 'hasMany':
      return 'array';
    case 'count':
      return 'integer';
    default:
      return 'json';
  }
}

/** Where `name` stands in `order` (unlisted names last, in their own order: sort is stable). */
function rank(order: readonly string[], name: string): number {
  const at = order.indexOf(name);
  return at === -1 ? order.length : at;
}

/** The keys of a loaded belongs-to record that name it (the target's title columns it carries). */
function displayKeys(value: Extract<OutputValue, { kind: 'belongsTo' }>): string[] {
  const loaded = new Set(value.fields.map((f) => f.name));
  const keys = value.relation.target().titleColumns.filter((c) => loaded.has(c));
  return keys.length > 0 ? keys : [value.relation.ownerKey];
}

/** Other resources with a field naming this one's records (a template's logs). */
function relatedTo(routes: readonly ResourceRoute[], route: ResourceRoute): RelatedMeta[] {
  const table = route.resource.entity.table;
  return routes.flatMap((other) => {
    if (other === route) return [];
    const field = describeFields(other.resource.entity).find(
      (f) => f.references?.table === table && f.name !== other.resource.primaryKey,
    );
    return field
      ? [
          {
            resource: collectionName(other),
            label: resourceLabels(other).plural,
            field: field.name,
          },
        ]
      : [];
  });
}

async function allowedActions(
  route: ResourceRoute,
  caller: AuthorizationRequest,
): Promise<Action[]> {
  const actions = routeActions(route);
  const { authorize } = route.resource;
  if (!authorize) return actions;
  const allowed: Action[] = [];
  for (const action of actions) if (await authorize(action, caller)) allowed.push(action);
  return allowed;
}

export async function resourceMetadata(
  routes: readonly ResourceRoute[],
  caller: AuthorizationRequest,
): Promise<ResourceMeta[]> {
  return Promise.all(
    routes.map(async (route) => {
      const { resource } = route;
      const { entity } = resource;
      const described = describeFields(entity, resource.labels).filter(
        (f) => !entity.hidden.has(f.name) && !resource.hidden.has(f.name),
      );
      const transformed = new Set(resource.transformedFields());
      const fields = described.map((f) => fieldMeta(routes, f, transformed));
      const byName = new Map(fields.map((f) => [f.name, f]));
      const output = outputFields(resource, 'index');
      // Foreign keys whose record the list loads: the record's column names it instead.
      const named = new Set(
        output.flatMap((f) => (f.value.kind === 'belongsTo' ? [f.value.relation.foreignKey] : [])),
      );
      const full = resource.indexFields.length === 0;
      const chosen = resource.listColumns;
      const columns: ColumnMeta[] = output.map((f) => {
        const type = columnType(f.value);
        const field = byName.get(f.key);
        const long = field?.input === 'textarea' || field?.input === 'json';
        return {
          name: f.key,
          label: f.label,
          type,
          sortable: resource.sortable.has(f.key),
          display: f.value.kind === 'belongsTo' ? displayKeys(f.value) : null,
          reference: field?.reference ?? null,
          visible: chosen
            ? chosen.includes(f.key)
            : type !== 'array' && !(full && (long || named.has(f.key))),
        };
      });
      // Chosen columns come in the order the resource lists them, the others after.
      if (chosen) columns.sort((a, b) => rank(chosen, a.name) - rank(chosen, b.name));
      const labels = resourceLabels(route);
      const perPage = resource.perPage;
      return {
        name: collectionName(route),
        path: route.path,
        label: labels.plural,
        singular_label: labels.singular,
        key: resource.primaryKey,
        title_fields: entity.titleColumns,
        actions: routeActions(route),
        allowed: await allowedActions(route, caller),
        list: {
          columns,
          filters: [...resource.searchable].flatMap((name) => {
            const meta = byName.get(name);
            return meta ? [filterMeta(meta)] : [];
          }),
          sortable: [...resource.sortable],
          default_order: resource.defaultOrder,
          per_page: perPage,
          max_per_page: resource.maxPerPage,
          page_sizes: [
            ...new Set([perPage, ...PAGE_SIZES.filter((s) => s <= resource.maxPerPage)]),
          ].sort((a, b) => a - b),
        },
        fields,
        details: [...resource.details].map(([name, relation]) =>
          detailMeta(routes, name, relation, resource.labels[name] ?? labelOf(name)),
        ),
        related: relatedTo(routes, route),
        panels: [...resource.adminPanels],
      };
    }),
  );
}
