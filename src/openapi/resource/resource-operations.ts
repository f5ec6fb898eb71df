// The operations of one resource route (SPEC.md 4.1: list, create, show, update, delete, HEAD
// with GET), generated from its definition: parameters from the whitelists, item schemas from
// the projections (engine/description/output-fields.ts), write bodies from the fillable fields
// and rules, abilities from the route's middleware. The operations about a resource's past
// (changes, deleted records, history, restore) are in past-operations.ts.
import type { Action } from '../../engine/definition/resource-config.js';
import { outputFields } from '../../engine/description/output-fields.js';
import {
  parameterName,
  resourceLabels,
  routeActions,
} from '../../engine/description/route-names.js';
import type { ResourceRoute } from '../../engine/routes.js';
import {
  changesSeqHeader,
  type ErrorResponse,
  errorResponses,
  etagHeader,
  json,
  ref,
} from '../components.js';
import { recordSchema, type Schema } from '../json-schema.js';
import type { Operation, PathItem } from '../operation.js';
import { listParameters } from './list-parameters.js';
import {
  CONDITIONAL_ERRORS,
  IDEMPOTENCY_KEY,
  IF_MATCH,
  IF_NONE_MATCH,
  NOT_MODIFIED,
  READ_ERRORS,
  WRITE_ERRORS,
} from './operation-parts.js';
import { pastOperations } from './past-operations.js';
import { pascal, valueSchema, writeBody } from './resource-schemas.js';
import { routeSecurity } from './route-security.js';

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
    ...routeSecurity(route, write),
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
  const paths: Record<string, PathItem> = pastOperations({
    route,
    actions,
    op,
    labels,
    name,
    plural,
    parameter,
    itemRef,
    idParameter,
    recordEtag,
    writeErrors,
    notFound,
    schemas,
  });
  if (Object.keys(collection).length > 0) paths[route.path] = collection;
  if (Object.keys(item).length > 0)
    paths[`${route.path}/{${parameter}}`] = { parameters: [idParameter] as never, ...item };
  return { paths, schemas };
}
