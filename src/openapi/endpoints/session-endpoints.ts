// Sessions, the admin front end's metadata and lookups, and the token admin API (DESIGN.md 3.5,
// 3.8; src/auth/session, src/auth/tokens, src/http/description-routes.ts).
import { BODY_ERRORS, errorResponses, json, ref } from '../components.js';
import type { Operation } from '../operation.js';
import {
  body,
  integer,
  object,
  ok,
  pathId,
  sessionRead,
  sessionWrite,
  string,
} from './builders.js';

export const sessionEndpoints: Record<string, Operation> = {
  'POST /app/login': {
    summary: 'Sign in (session mode)',
    tags: ['Session'],
    security: [],
    description:
      'Starts a session: an HttpOnly session cookie, and the CSRF token to send on writes. A failure counts toward the per-address limit.',
    ...body(object({ login: string, password: { type: 'string', format: 'password' } })),
    responses: {
      ...ok('Signed in.', ref('Session')),
      ...errorResponses({
        ...BODY_ERRORS,
        '422': 'ValidationFailed',
        '429': 'TooManyRequests',
        '500': 'ServerError',
        '503': 'ServiceUnavailable',
      }),
    },
  },
  'POST /app/logout': sessionWrite(
    'Sign out',
    'Session',
    ok('Signed out.', object({ message: { const: 'Logged out.' } })),
  ),
  'GET /app/session': sessionRead(
    'The session: user, unit, CSRF token',
    'Session',
    ok('The session.', ref('Session')),
  ),
  'POST /app/session/unit': sessionWrite(
    "Switch the session to another of the user's units",
    'Session',
    ok('Switched.', ref('Session')),
    body(object({ unit_id: integer })),
    { '403': 'Forbidden', '422': 'ValidationFailed' },
  ),
  'GET /app/resources': sessionRead(
    'Metadata of every resource, for the admin front end',
    'Admin front end',
    ok('The resources.', ref('Metadata')),
  ),
  'GET /app/lookups/:resource': sessionRead(
    'Records of a resource as a picker shows them',
    'Admin front end',
    {
      ...ok(
        'At most 20 records, by title; in isolation mode only the caller company’s.',
        object({
          data: {
            type: 'array',
            items: object({ id: { type: ['integer', 'string'] }, label: string }),
          },
        }),
      ),
      // A caller the resource does not let list (companies and units: admins only).
      ...errorResponses({ '403': 'Forbidden', '404': 'NotFound' }),
    },
    {
      parameters: [
        { name: 'resource', in: 'path', required: true, schema: string },
        {
          name: 'search',
          in: 'query',
          description: 'Text the title columns contain (case-insensitive).',
          schema: string,
        },
        {
          name: 'ids',
          in: 'query',
          description: 'Comma-separated ids to label instead.',
          schema: string,
        },
      ],
    },
  ),
  'GET /app/tokens-api/abilities': sessionRead('The grantable abilities (admins)', 'Tokens', {
    ...ok('Every ability a route declares.', object({ data: { type: 'array', items: string } })),
    ...errorResponses({ '403': 'Forbidden' }),
  }),
  'GET /app/tokens-api': sessionRead('Every API token, never its secret (admins)', 'Tokens', {
    ...ok(
      'The tokens.',
      object({
        data: { type: 'array', items: ref('TokenListItem') },
      }),
    ),
    ...errorResponses({ '403': 'Forbidden' }),
  }),
  'POST /app/tokens-api': sessionWrite(
    'Issue an API token (admins)',
    'Tokens',
    {
      '201': {
        description: 'Issued: `token` is the plain token, shown this once.',
        content: json(object({ token: string, data: ref('Token') })),
      },
    },
    body({
      type: 'object',
      properties: {
        user_id: integer,
        unit_id: integer,
        name: string,
        abilities: { type: 'array', items: string },
        expires_at: { type: ['string', 'null'], format: 'date-time' },
      },
      required: ['user_id', 'unit_id', 'name'],
    }),
    { '403': 'Forbidden', '422': 'ValidationFailed' },
  ),
  'DELETE /app/tokens-api/:token': sessionWrite(
    'Revoke an API token (admins)',
    'Tokens',
    ok('Revoked.', object({ message: string, data: ref('Token') })),
    pathId('token', "The token's id."),
    { '403': 'Forbidden', '404': 'NotFound' },
  ),
};
