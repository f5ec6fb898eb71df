// Operations and descriptions: /health, /ready, this document and its page, and the signed-request
// driver's routes (docs/rest-driver.md; only while REST_DRIVER_ENABLED=true).
import { BODY_ERRORS, errorResponses, json, ref } from '../components.js';
import type { Operation } from '../operation.js';
import { body, integer, object, ok, string } from './builders.js';

const driverErrors = {
  ...errorResponses({
    '401': 'Unauthenticated',
    '422': 'ValidationFailed',
    '429': 'TooManyRequests',
    '500': 'ServerError',
    '503': 'ServiceUnavailable',
  }),
};
const DRIVER = [{ driverSignature: [] }];

export const operationEndpoints: Record<string, Operation> = {
  'GET /health': {
    summary: 'Liveness: the process answers',
    tags: ['Operations'],
    security: [],
    responses: {
      ...ok('Alive.', object({ status: { const: 'ok' } })),
      ...errorResponses(BODY_ERRORS),
    },
  },
  'GET /ready': {
    summary: 'Readiness: the database answers and its migrations are applied',
    tags: ['Operations'],
    security: [],
    responses: {
      ...ok('Ready.', ref('Readiness')),
      ...errorResponses(BODY_ERRORS),
      '503': { description: 'Not ready.', content: json(ref('Readiness')) },
    },
  },
  'GET /api/openapi.json': {
    summary: 'This document',
    tags: ['Descriptions'],
    security: [],
    responses: { ...ok('OpenAPI 3.1.', { type: 'object' }), ...errorResponses(BODY_ERRORS) },
  },
  'GET /docs': {
    summary: 'The API reference page for this document',
    tags: ['Descriptions'],
    security: [],
    responses: {
      '200': { description: 'An HTML page.', content: { 'text/html': { schema: string } } },
      ...errorResponses(BODY_ERRORS),
    },
  },
  'POST /_mad/rest-driver/query': {
    summary: 'Signed-request driver: run one SQL statement (REST_DRIVER_ENABLED)',
    tags: ['Signed-request driver'],
    security: DRIVER,
    ...body({
      type: 'object',
      properties: {
        sql: string,
        bindings: { type: 'array' },
        connection: { type: ['string', 'null'] },
      },
      required: ['sql'],
    }),
    responses: {
      ...ok(
        'The rows.',
        object({
          columns: { type: 'array', items: string },
          rows: { type: 'array' },
          row_count: integer,
          truncated: { type: 'boolean' },
        }),
      ),
      ...driverErrors,
    },
  },
  'GET /_mad/rest-driver/tables': {
    summary: 'Signed-request driver: the tables',
    tags: ['Signed-request driver'],
    security: DRIVER,
    parameters: [{ name: 'connection', in: 'query', schema: string }],
    responses: { ...ok('The tables.', object({ tables: { type: 'array' } })), ...driverErrors },
  },
  'GET /_mad/rest-driver/tables/:name': {
    summary: "Signed-request driver: a table's columns",
    tags: ['Signed-request driver'],
    security: DRIVER,
    parameters: [
      { name: 'name', in: 'path', required: true, schema: string },
      { name: 'connection', in: 'query', schema: string },
    ],
    responses: {
      ...ok('The columns.', object({ name: string, columns: { type: 'array' } })),
      '404': { description: 'No such table.', content: json(ref('Error')) },
      ...driverErrors,
    },
  },
};
