// The small builders the descriptions of svc's own endpoints share: JSON Schema shorthands and
// the operation shapes of session-mode routes (a session cookie; writes add X-CSRF-TOKEN). A
// session route never answers 429: the per-address limit blocks bearer requests and logins.
import { BODY_ERRORS, errorResponses, json } from '../components.js';
import type { Schema } from '../json-schema.js';
import type { Operation } from '../operation.js';

export const string = { type: 'string' };
export const integer = { type: 'integer' };
export const timestamp = { type: 'string', format: 'date-time' };
export const object = (
  properties: Record<string, Schema>,
  required = Object.keys(properties),
): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
export const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });

export const SESSION = [{ session: [] }];
export const SESSION_WRITE = [{ session: [], csrf: [] }];
export const ok = (description: string, schema?: Schema) => ({
  '200': schema ? { description, content: json(schema) } : { description },
});
export const sessionRead = (
  summary: string,
  tag: string,
  success: Record<string, unknown>,
  more: Operation = {},
): Operation => ({
  summary,
  tags: [tag],
  security: SESSION,
  ...more,
  responses: {
    ...success,
    ...errorResponses({
      ...BODY_ERRORS,
      '401': 'Unauthenticated',
      '500': 'ServerError',
      '503': 'ServiceUnavailable',
    }),
  },
});
export const sessionWrite = (
  summary: string,
  tag: string,
  success: Record<string, unknown>,
  more: Operation = {},
  extra: Record<string, 'NotFound' | 'Forbidden' | 'ValidationFailed'> = {},
): Operation => ({
  summary,
  tags: [tag],
  security: SESSION_WRITE,
  ...more,
  responses: {
    ...success,
    ...errorResponses({
      ...BODY_ERRORS,
      '401': 'Unauthenticated',
      '419': 'CsrfMismatch',
      '500': 'ServerError',
      '503': 'ServiceUnavailable',
      ...extra,
    }),
  },
});
export const body = (schema: Schema) => ({
  requestBody: { required: true, content: json(schema) },
});
export const pathId = (name: string, description: string) => ({
  parameters: [{ name, in: 'path', required: true, description, schema: string }],
});
