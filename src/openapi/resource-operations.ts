// The operations of one resource route (SPEC.md 4.1: list, create, show, update, delete, HEAD
// with GET), generated from its definition: parameters from the whitelists, item schemas from
// the projections (engine/description/output-fields.ts), write bodies from the fillable fields
// and rules, abilities from the route's middleware.

import { DEFAULT_CHANGES_LIMIT, MAX_CHANGES_LIMIT } from '../engine/changes/change-feed.js';
import type { Resource } from '../engine/definition/define-resource.js';
import type { Action } from '../engine/definition/resource-config.js';
import { type OutputValue, outputFields } from '../engine/description/output-fields.js';
import { parameterName, resourceLabels, routeActions } from '../engine/description/route-names.js';
import { DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT } from '../engine/history/history.js';
import { COUNT_STRATEGIES } from '../engine/query/count.js';
import { OPERATORS } from '../engine/query/filters.js';
import type { ResourceRoute } from '../engine/routes.js';
import { parseMiddleware } from '../kernel/middleware.js';
import { describeFields, type FieldDescription } from '../model/field-description.js';
import {
  BODY_ERRORS,
  changesSeqHeader,
  type ErrorResponse,
  errorResponses,
  etagHeader,
  json,
  ref,
} from './components.js';
import {
  inputFieldSchema,
  outputFieldSchema,
  ROW_ID_SCHEMA,
  recordSchema,
  type Schema,
} from './json-schema.js';

export type Operation = Record<string, unknown>;
export type PathItem = Record<string, Operation>;

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

function valueSchema(value: OutputValue): Schema {
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

/** The bearer abilities a set of middleware names requires (`svc.api:a,b` -> a, b). */
function abilitiesOf(specs: readonly string[] | undefined): string[] {
  return (specs ?? []).flatMap((spec) => {
    const { name, parameters } = parseMiddleware(spec);
    return name === 'svc.api' ? parameters : [];
  });
}

function authenticated(specs: readonly string[] | undefined): boolean {
  return (specs ?? []).some((spec) => ['svc.api', 'svc.auth'].includes(parseMiddleware(spec).name));
}

function writeBody(resource: Resource, mode: 'create' | 'update'): Schema {
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

function listParameters(resource: Resource): Operation[] {
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

const READ_ERRORS: Record<string, ErrorResponse> = {
  ...BODY_ERRORS,
  '401': 'Unauthenticated',
  '403': 'Forbidden',
  '429': 'TooManyRequests',
  '500': 'ServerError',
  '503': 'ServiceUnavailable',
};
const WRITE_ERRORS: Record<string, ErrorResponse> = {
  ...READ_ERRORS,
  '419': 'CsrfMismatch',
  '422': 'ValidationFailed',
};

const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  description:
    'ETags (`"3"`, `W/"3"`, a comma-separated list) or `*`. On GET and HEAD: 304 when one names the current answer (weak comparison). On PUT, PATCH and DELETE: 412 when one names the record (`*`: it exists).',
  schema: { type: 'string' },
};
const IF_MATCH = {
  name: 'If-Match',
  in: 'header',
  description:
    'ETags or `*`: the request goes ahead only when one is the current ETag (strong comparison: a weak tag never matches), else 412 with the current `ETag`. Checked inside the write, on the locked record.',
  schema: { type: 'string' },
};
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    "1 to 255 printable ASCII characters, the caller's own (per token, or per user in session mode). A retry with the same key and body replays the first answer (`Idempotent-Replayed: true`); another body is a 422; while the first still runs, a 409. Kept IDEMPOTENCY_KEY_TTL_SECONDS (24 hours by default).",
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};
const NOT_MODIFIED = (etag: Record<string, unknown>) => ({
  '304': {
    description: 'Not modified: `If-None-Match` names the current ETag. No body.',
    headers: etag,
  },
});
const CONDITIONAL_ERRORS = { '412': 'PreconditionFailed' } as const;
const FEED_PARAMETERS = [
  {
    name: 'after',
    in: 'query',
    description:
      'The seq to read after (a `Changes-Seq` or a `meta.next`); 0 from the start. Not a whole number: a 422; older than what is kept: a 410.',
    schema: { type: 'integer', minimum: 0, default: 0 },
  },
  {
    name: 'limit',
    in: 'query',
    description: `Changes per answer, 1 to ${MAX_CHANGES_LIMIT}; else a 422.`,
    schema: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_CHANGES_LIMIT,
      default: DEFAULT_CHANGES_LIMIT,
    },
  },
];

const HISTORY_PARAMETERS = [
  {
    name: 'before',
    in: 'query',
    description:
      "Only revisions with a seq below it: the previous page's `meta.next`; absent: the newest. Not a whole number: a 422.",
    schema: { type: 'integer', minimum: 1 },
  },
  {
    name: 'limit',
    in: 'query',
    description: `Revisions per answer, 1 to ${MAX_HISTORY_LIMIT}; else a 422.`,
    schema: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_HISTORY_LIMIT,
      default: DEFAULT_HISTORY_LIMIT,
    },
  },
];

/** The path items of one resource route, and the component schemas they refer to. */
export function resourceOperations(route: ResourceRoute): {
  paths: Record<string, PathItem>;
  schemas: Record<string, Schema>;
} {
  const { resource } = route;
  const labels = resourceLabels(route);
  const parameter = parameterName(route);
  const name = pascal(parameter);
  const actions = new Set<Action>(routeActions(route));
  const tag = labels.plural;
  const itemRef = ref(name);
  const listItemRef = ref(`${name}ListItem`);
  const schemas: Record<string, Schema> = {
    [name]: {
      title: labels.singular,
      ...recordSchema(outputFields(resource, 'show'), valueSchema),
    },
    [`${name}ListItem`]: {
      title: `${labels.singular} (list item)`,
      ...recordSchema(outputFields(resource, 'index'), valueSchema),
    },
  };
  if (actions.has('create')) schemas[`${name}Create`] = writeBody(resource, 'create');
  if (actions.has('update')) schemas[`${name}Update`] = writeBody(resource, 'update');

  // Records of an entity with a version column carry a strong ETag (docs/api.md "Conditional requests").
  const versioned = resource.entity.versionColumn !== null;
  const recordEtag = etagHeader(
    versioned
      ? 'The strong ETag of the record: its stored version, changed by every write of it or its detail rows.'
      : 'Not sent: this resource keeps no record version.',
  );
  const listEtag = {
    ...etagHeader('The weak ETag of this page (a digest of its JSON text).'),
    ...changesSeqHeader,
  };
  const shownEtag = { ...recordEtag, ...changesSeqHeader };
  const writeConditions = {
    parameters: [IF_MATCH, IF_NONE_MATCH],
  };
  const writeErrors: Record<string, ErrorResponse> = {
    ...CONDITIONAL_ERRORS,
    ...(resource.requireIfMatch ? { '428': 'PreconditionRequired' as const } : {}),
  };
  const security = (write: boolean) => {
    const specs = write ? route.middleware?.write : route.middleware?.read;
    if (!authenticated(specs)) return {};
    const abilities = abilitiesOf(specs);
    return {
      security: [{ bearer: abilities }, write ? { session: [], csrf: [] } : { session: [] }],
      'x-abilities': abilities,
    };
  };
  const idParameter = {
    name: parameter,
    in: 'path',
    required: true,
    description: `The ${labels.singular.toLowerCase()}'s ${resource.primaryKey}; any other value is a 404.`,
    schema: { type: 'string' },
  };
  const op = (
    id: string,
    summary: string,
    write: boolean,
    errors: Record<string, ErrorResponse>,
    success: Record<string, unknown>,
    extra: Operation = {},
  ): Operation => ({
    operationId: id,
    summary,
    tags: [tag],
    ...security(write),
    ...extra,
    responses: { ...success, ...errorResponses(errors) },
  });
  const body = (schemaName: string) => ({
    requestBody: { required: true, content: json(ref(schemaName)) },
  });
  const collection: PathItem = {};
  const item: PathItem = {};
  const plural = pascal(route.path.split('/').pop() ?? name);

  if (actions.has('list')) {
    const listHeaders = {
      Link: {
        description:
          'RFC 8288 links to the next and previous pages by cursor: `<target>; rel="next", <target>; rel="prev"` (the request\'s query string with `cursor` set and `page` left out); at most 4,096 bytes: a link that would pass that is left out; absent when there is neither.',
        schema: { type: 'string' },
      },
      'Preference-Applied': {
        description: "`count=<strategy>` when the Prefer header's count was applied.",
        schema: { type: 'string' },
      },
    };
    const listResponse = {
      '200': {
        description: `A page of ${labels.plural.toLowerCase()}.`,
        headers: { ...listEtag, ...listHeaders },
        content: json({
          type: 'object',
          properties: { data: { type: 'array', items: listItemRef }, meta: ref('ListMeta') },
          required: ['data', 'meta'],
          additionalProperties: false,
        }),
      },
    };
    const listErrors = {
      ...READ_ERRORS,
      '422': 'ValidationFailed',
      ...CONDITIONAL_ERRORS,
    } as const;
    const parameters = [...listParameters(resource), IF_NONE_MATCH, IF_MATCH];
    collection.get = op(
      `list${plural}`,
      `List ${labels.plural.toLowerCase()}`,
      false,
      listErrors,
      { ...listResponse, ...NOT_MODIFIED(listEtag) },
      {
        description:
          'Filters, sort and page come from the query string or, alike, from a JSON body. Each item carries the list projection, its loaded relations and counts. An answer longer than STREAM_ANSWERS_ABOVE characters (1 MiB by default), as a page of large records can be, is streamed as it is serialised: `Transfer-Encoding: chunked` instead of `Content-Length`, the same JSON, and without an `ETag`.',
        parameters,
      },
    );
    collection.head = op(
      `head${plural}`,
      `List ${labels.plural.toLowerCase()} (headers only)`,
      false,
      listErrors,
      {
        '200': {
          description: 'The headers the list would answer.',
          headers: { ...listEtag, ...listHeaders },
        },
        ...NOT_MODIFIED(listEtag),
      },
      { parameters },
    );
  }
  if (actions.has('create')) {
    collection.post = op(
      `create${name}`,
      `Create a ${labels.singular.toLowerCase()}`,
      true,
      { ...WRITE_ERRORS, '409': 'IdempotencyKeyInUse' },
      {
        '201': {
          description:
            'Created: the record reloaded from storage, detail rows as saved. With `Idempotency-Key`, a retry gets the same answer again.',
          headers: {
            ...recordEtag,
            'Idempotent-Replayed': {
              description:
                '`true` on the stored answer of an earlier request with this `Idempotency-Key`; absent otherwise.',
              schema: { type: 'string', enum: ['true'] },
            },
          },
          content: json(itemRef),
        },
      },
      { ...body(`${name}Create`), parameters: [IDEMPOTENCY_KEY] },
    );
  }
  const notFound = { '404': 'NotFound' } as const;
  if (actions.has('show')) {
    item.get = op(
      `show${name}`,
      `Show a ${labels.singular.toLowerCase()}`,
      false,
      { ...READ_ERRORS, ...notFound, ...CONDITIONAL_ERRORS },
      {
        '200': {
          description: 'The record with its eager-loaded relations and detail rows.',
          headers: shownEtag,
          content: json(itemRef),
        },
        ...NOT_MODIFIED(shownEtag),
      },
      { parameters: [IF_NONE_MATCH, IF_MATCH] },
    );
    item.head = op(
      `head${name}`,
      `Show a ${labels.singular.toLowerCase()} (headers only)`,
      false,
      { ...READ_ERRORS, ...notFound, ...CONDITIONAL_ERRORS },
      {
        '200': { description: 'The headers the show would answer.', headers: shownEtag },
        ...NOT_MODIFIED(shownEtag),
      },
      { parameters: [IF_NONE_MATCH, IF_MATCH] },
    );
  }
  if (actions.has('update')) {
    const updated = {
      '200': {
        description: 'Updated: the record reloaded from storage.',
        headers: recordEtag,
        content: json(itemRef),
      },
    };
    item.put = op(
      `replace${name}`,
      `Update a ${labels.singular.toLowerCase()}`,
      true,
      { ...WRITE_ERRORS, ...notFound, ...writeErrors },
      updated,
      { ...body(`${name}Update`), ...writeConditions },
    );
    item.patch = op(
      `update${name}`,
      `Update a ${labels.singular.toLowerCase()} (same as PUT)`,
      true,
      { ...WRITE_ERRORS, ...notFound, ...writeErrors },
      updated,
      { ...body(`${name}Update`), ...writeConditions },
    );
  }
  if (actions.has('delete')) {
    item.delete = op(
      `delete${name}`,
      `Delete a ${labels.singular.toLowerCase()} with its detail rows`,
      true,
      {
        ...READ_ERRORS,
        '419': 'CsrfMismatch',
        '422': 'ValidationFailed',
        ...notFound,
        ...writeErrors,
      },
      {
        '200': {
          description: 'Deleted, in one transaction with its detail rows.',
          content: json({
            type: 'object',
            properties: { message: { const: 'Resource deleted successfully' } },
            required: ['message'],
            additionalProperties: false,
          }),
        },
      },
      writeConditions,
    );
  }
  const paths: Record<string, PathItem> = {};
  if (actions.has('list')) {
    const feedErrors = { ...READ_ERRORS, '410': 'ChangesGone', '422': 'ValidationFailed' } as const;
    const feed = { parameters: FEED_PARAMETERS };
    paths[`${route.path}/changes`] = {
      get: op(
        `changesOf${plural}`,
        `Changes of ${labels.plural.toLowerCase()}`,
        false,
        feedErrors,
        {
          '200': {
            description: 'The changes after `after`, oldest first.',
            content: json(ref('ChangesPage')),
          },
        },
        {
          ...feed,
          description:
            "The transactional change feed (DESIGN.md 3.9): every committed create, update and delete of this resource's records, in commit order, within the caller's unit and company as the list's. Start from a list's or show's `Changes-Seq`, then send each answer's `meta.next` as `after`.",
        },
      ),
      head: op(
        `headChangesOf${plural}`,
        `Changes of ${labels.plural.toLowerCase()} (headers only)`,
        false,
        feedErrors,
        { '200': { description: 'The headers the feed would answer.' } },
        feed,
      ),
    };
  }
  if (actions.has('list')) {
    // The deleted records (DESIGN.md 3.11), and the revision that brings each back.
    const deletedErrors = { ...READ_ERRORS, '422': 'ValidationFailed' } as const;
    const deleted = { parameters: HISTORY_PARAMETERS };
    const page = json({
      type: 'object',
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: ['integer', 'string'] },
              seq: { type: 'integer', minimum: 1, description: "The delete's seq." },
              at: { type: 'string', format: 'date-time' },
              actor: { $ref: '#/components/schemas/Change/properties/actor' },
              restore_seq: {
                type: ['integer', 'null'],
                description:
                  'The revision before the delete: `POST .../{id}/history/{restore_seq}/restore` brings the record back (null: no longer kept).',
              },
              record: {
                oneOf: [itemRef, { type: 'null' }],
                description: 'The record as show answered it before the delete.',
              },
            },
            required: ['id', 'seq', 'at', 'actor', 'restore_seq', 'record'],
            additionalProperties: false,
          },
        },
        meta: {
          type: 'object',
          properties: {
            before: { type: ['integer', 'null'] },
            next: { type: ['integer', 'null'] },
            has_more: { type: 'boolean' },
          },
          required: ['before', 'next', 'has_more'],
          additionalProperties: false,
        },
      },
      required: ['data', 'meta'],
      additionalProperties: false,
    });
    paths[`${route.path}/deleted`] = {
      get: op(
        `deleted${plural}`,
        `Deleted ${labels.plural.toLowerCase()}`,
        false,
        deletedErrors,
        { '200': { description: 'The deleted records, newest delete first.', content: page } },
        {
          ...deleted,
          description:
            "The records deleted and not restored since, within the list's scope, newest delete first, each with the record before its delete and the revision that restores it. `before`: the previous page's `meta.next`.",
        },
      ),
      head: op(
        `headDeleted${plural}`,
        `Deleted ${labels.plural.toLowerCase()} (headers only)`,
        false,
        deletedErrors,
        { '200': { description: 'The headers the answer would carry.' } },
        deleted,
      ),
    };
  }
  if (actions.has('show')) {
    // History (DESIGN.md 3.11): a revision is a change with the record as show answered it.
    schemas[`${name}HistoryPage`] = {
      type: 'object',
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              seq: { type: 'integer', minimum: 1, description: "The change's seq." },
              version: { type: ['integer', 'null'] },
              action: { type: 'string', enum: ['created', 'updated', 'deleted'] },
              at: { type: 'string', format: 'date-time' },
              actor: { $ref: '#/components/schemas/Change/properties/actor' },
              changes: { $ref: '#/components/schemas/Change/properties/changes' },
              record: {
                oneOf: [itemRef, { type: 'null' }],
                description:
                  'The record as show answered it right after this write; null after a delete.',
              },
            },
            required: ['seq', 'version', 'action', 'at', 'actor', 'changes', 'record'],
            additionalProperties: false,
          },
        },
        meta: {
          type: 'object',
          properties: {
            before: { type: ['integer', 'null'] },
            next: {
              type: ['integer', 'null'],
              description: 'The `before` of the next page; null on the last.',
            },
            has_more: { type: 'boolean' },
          },
          required: ['before', 'next', 'has_more'],
          additionalProperties: false,
        },
      },
      required: ['data', 'meta'],
      additionalProperties: false,
    };
    const historyErrors = { ...READ_ERRORS, ...notFound, '422': 'ValidationFailed' } as const;
    const history = { parameters: [idParameter, ...HISTORY_PARAMETERS] as never };
    paths[`${route.path}/{${parameter}}/history`] = {
      get: op(
        `historyOf${name}`,
        `History of a ${labels.singular.toLowerCase()}`,
        false,
        historyErrors,
        {
          '200': {
            description: 'The revisions, newest first.',
            content: json(ref(`${name}HistoryPage`)),
          },
        },
        {
          ...history,
          description: `Every kept write of the record (HISTORY_RETENTION_DAYS), newest first, with who made it, when, what changed and the record as show answered it right after; a deleted record's too. Show's abilities and scope: a record with no revision the caller may see is a 404.`,
        },
      ),
      head: op(
        `headHistoryOf${name}`,
        `History of a ${labels.singular.toLowerCase()} (headers only)`,
        false,
        historyErrors,
        { '200': { description: 'The headers the history would answer.' } },
        history,
      ),
    };
  }
  if (actions.has('update')) {
    const seqParameter = {
      name: 'seq',
      in: 'path',
      required: true,
      description: "The revision's seq (from the history).",
      schema: { type: 'string' },
    };
    paths[`${route.path}/{${parameter}}/history/{seq}/restore`] = {
      post: op(
        `restore${name}`,
        `Restore a ${labels.singular.toLowerCase()} to a revision`,
        true,
        { ...WRITE_ERRORS, ...notFound, ...writeErrors },
        {
          '200': {
            description: "Restored: the record reloaded, equal to the revision's record.",
            headers: recordEtag,
            content: json(itemRef),
          },
          '201': {
            description: 'A deleted record came back with its id.',
            headers: recordEtag,
            content: json(itemRef),
          },
        },
        {
          parameters: [idParameter, seqParameter, IF_MATCH] as never,
          description:
            "Makes the record equal the revision's record through the ordinary write path: master fields, and detail rows with their ids (rows deleted since come back with their ids, rows added since are deleted); validated as any write (a revision that no longer validates is a 422, as is a delete's revision), with a new change and a new revision. `If-Match` is checked against the current record (required where the resource requires it); a deleted record comes back with its id and a version above every one it had.",
        },
      ),
    };
  }
  if (Object.keys(collection).length > 0) paths[route.path] = collection;
  if (Object.keys(item).length > 0)
    paths[`${route.path}/{${parameter}}`] = { parameters: [idParameter] as never, ...item };
  return { paths, schemas };
}
