// The operations of a resource about its past: the change feed (DESIGN.md 3.9), the deleted
// records, a record's history and the restore of a revision (DESIGN.md 3.11).
import { DEFAULT_CHANGES_LIMIT, MAX_CHANGES_LIMIT } from '../../engine/changes/change-feed.js';
import type { Action } from '../../engine/definition/resource-config.js';
import { DEFAULT_HISTORY_LIMIT, MAX_HISTORY_LIMIT } from '../../engine/history/history.js';
import type { ResourceRoute } from '../../engine/routes.js';
import { type ErrorResponse, json, ref } from '../components.js';
import type { Schema } from '../json-schema.js';
import type { Operation, PathItem } from '../operation.js';
import { IF_MATCH, READ_ERRORS, WRITE_ERRORS } from './operation-parts.js';

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

/** What the resource's operations are built with (resource-operations.ts). */
export interface OperationKit {
  readonly route: ResourceRoute;
  readonly actions: ReadonlySet<Action>;
  readonly op: (
    id: string,
    summary: string,
    write: boolean,
    errors: Record<string, ErrorResponse>,
    success: Record<string, unknown>,
    extra?: Operation,
  ) => Operation;
  readonly labels: { readonly singular: string; readonly plural: string };
  /** The record's schema name (`ImportTemplate`) and the collection's (`ImportTemplates`). */
  readonly name: string;
  readonly plural: string;
  /** The route's id parameter and its description. */
  readonly parameter: string;
  readonly idParameter: Operation;
  readonly itemRef: Schema;
  readonly recordEtag: Record<string, unknown>;
  readonly writeErrors: Record<string, ErrorResponse>;
  readonly notFound: Record<string, ErrorResponse>;
  /** The component schemas, which the history page is added to. */
  readonly schemas: Record<string, Schema>;
}

/** The path items of the change feed, the deleted records, the history and the restore. */
export function pastOperations(kit: OperationKit): Record<string, PathItem> {
  const { route, actions, op, labels, name, plural, parameter, itemRef, idParameter } = kit;
  const { recordEtag, writeErrors, notFound, schemas } = kit;
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
  return paths;
}
