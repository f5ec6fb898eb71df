// The query parameters of a resource's list (SPEC.md 4.1): filters on the searchable columns,
// sort, direction, page, count, cursor, per_page, and the Prefer header.
import type { Resource } from '../../engine/definition/define-resource.js';
import { COUNT_STRATEGIES } from '../../engine/query/count.js';
import { OPERATORS } from '../../engine/query/filters.js';
import { json } from '../components.js';
import type { Schema } from '../json-schema.js';
import type { Operation } from '../operation.js';

function filtersSchema(resource: Resource): Schema {
  const scalar = { type: ['string', 'number'] };
  const operand: Record<string, Schema> = {
    '=': { type: ['string', 'number', 'null'] },
    '!=': { type: ['string', 'number', 'null'] },
    '<': scalar,
    '<=': scalar,
    '>': scalar,
    '>=': scalar,
    like: {
      type: 'string',
      description: '`%` matches any run, `_` one character; case-insensitive.',
    },
    'not like': { type: 'string' },
    in: { type: 'array', items: scalar, maxItems: 1000 },
    'not in': { type: 'array', items: scalar, maxItems: 1000 },
    null: { type: 'boolean', description: 'true: the column is null; false: it is not.' },
  };
  const columnFilter = {
    type: 'object',
    propertyNames: { enum: [...OPERATORS] },
    properties: operand,
    minProperties: 1,
  };
  return {
    type: 'object',
    properties: Object.fromEntries([...resource.searchable].map((c) => [c, columnFilter])),
    description: `Searchable columns: ${[...resource.searchable].join(', ') || 'none'}. Other columns are ignored.`,
  };
}

export function listParameters(resource: Resource): Operation[] {
  const sortable = [...resource.sortable];
  const order = resource.defaultOrder;
  return [
    {
      name: 'filters',
      in: 'query',
      description:
        'JSON: `filters={"title":{"like":"%cust%"}}`. The same filters may be sent one per parameter as `filters[<column>][<operator>]=<operand>` (an `in` list as `filters[code][in][]=A&filters[code][in][]=B`), or in a JSON body. Operators: `=`, `!=`, `<`, `<=`, `>`, `>=`, `like`, `not like`, `in`, `not in` (array operand), `null` (true/false); several on one column are combined with AND. An unknown operator or a malformed value is a 422 under `filters.<column>`.',
      content: json(filtersSchema(resource)),
    },
    {
      name: 'sort',
      in: 'query',
      description: `A sortable column; anything else is ignored${order ? ` and the default order (${order.column} ${order.direction}) applies` : ''}.`,
      schema: sortable.length > 0 ? { type: 'string', enum: sortable } : { type: 'string' },
    },
    {
      name: 'direction',
      in: 'query',
      description: 'Anything but `desc` sorts ascending.',
      schema: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
    },
    {
      name: 'page',
      in: 'query',
      description: 'From 1; smaller values read as 1.',
      schema: { type: 'integer', minimum: 1, default: 1 },
    },
    {
      name: 'count',
      in: 'query',
      description: `How meta.total is counted: \`exact\` (every matching row), \`estimated\` (exact up to ${resource.countThreshold} rows, above that the engine's estimate, flagged by meta.total_estimated), \`none\` (total and last_page null, meta.has_more). Default \`${resource.defaultCount}\`; also taken from \`Prefer: count=...\`, this parameter winning. Another value reads as the default.`,
      schema: { type: 'string', enum: [...COUNT_STRATEGIES], default: resource.defaultCount },
    },
    {
      name: 'cursor',
      in: 'query',
      description:
        'A meta.next_cursor or meta.prev_cursor (or a Link header target): the rows after or before that page, read by key, not by offset. Empty: the first page, with the cursors in meta. Send it with the filters and sort it was made for; other ones, a forged cursor or a `page` with it are a 422 under `cursor`.',
      schema: { type: 'string' },
    },
    {
      name: 'Prefer',
      in: 'header',
      description:
        '`count=exact|estimated|none` (RFC 7240), as the count parameter; an applied one is echoed in Preference-Applied.',
      schema: { type: 'string' },
    },
    {
      name: 'per_page',
      in: 'query',
      description: `At most ${resource.maxPerPage} (larger values are capped); a value that is not a positive integer reads as ${resource.perPage}.`,
      schema: {
        type: 'integer',
        minimum: 1,
        maximum: resource.maxPerPage,
        default: resource.perPage,
      },
    },
  ];
}
