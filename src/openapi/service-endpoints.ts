// The operations of the routes outside the resource engine (session, tokens, notifications, real
// time, health, the driver, these descriptions themselves), keyed by `METHOD <Fastify path>`.
// Their handlers have no definition to generate from, so they are described here, in one place;
// test/openapi checks that every registered route has its entry and every entry its route.
import { BODY_ERRORS, errorResponses, json, ref } from './components.js';
import type { Schema } from './json-schema.js';
import type { Operation } from './resource-operations.js';

const string = { type: 'string' };
const integer = { type: 'integer' };
const timestamp = { type: 'string', format: 'date-time' };
const object = (
  properties: Record<string, Schema>,
  required = Object.keys(properties),
): Schema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });

const TOKEN: Record<string, Schema> = {
  id: integer,
  user_id: integer,
  unit_id: integer,
  name: string,
  abilities: { type: 'array', items: string },
  expires_at: { type: ['string', 'null'], format: 'date-time' },
  last_used_at: { type: ['string', 'null'], format: 'date-time' },
  revoked_at: { type: ['string', 'null'], format: 'date-time' },
  created_at: { type: ['string', 'null'], format: 'date-time' },
};

export const serviceSchemas: Record<string, Schema> = {
  SessionUser: object({
    id: integer,
    login: string,
    name: string,
    email: { type: ['string', 'null'] },
    admin: { type: 'string', enum: ['Y', 'N'] },
    active: { type: 'string', enum: ['Y', 'N'] },
    created_at: { type: ['string', 'null'], format: 'date-time' },
    updated_at: { type: ['string', 'null'], format: 'date-time' },
  }),
  Session: {
    type: 'object',
    properties: {
      user: ref('SessionUser'),
      unit: nullable(object({ id: integer, name: { type: ['string', 'null'] } })),
      csrf_token: { type: 'string', description: 'Send it as `X-CSRF-TOKEN` on every write.' },
      units: {
        type: 'array',
        description: 'The units the user may switch to.',
        items: object({ id: integer, name: string }),
      },
    },
    required: ['user', 'unit', 'csrf_token'],
    additionalProperties: false,
  },
  Token: object(TOKEN),
  TokenListItem: object({
    ...TOKEN,
    user: nullable(object({ id: integer, login: string, name: string })),
    unit: nullable(object({ id: integer, name: string })),
  }),
  NotificationAction: {
    oneOf: [
      object(
        {
          kind: { const: 'go' },
          screen: string,
          method: { type: ['string', 'null'] },
          parameters: { type: 'object' },
          label: { type: ['string', 'null'] },
        },
        ['kind', 'screen'],
      ),
      object({ kind: { const: 'navigate' }, url: string, label: { type: ['string', 'null'] } }, [
        'kind',
        'url',
      ]),
      object(
        {
          kind: { const: 'url' },
          url: { type: 'string', format: 'uri' },
          label: { type: ['string', 'null'] },
        },
        ['kind', 'url'],
      ),
    ],
  },
  Notification: object({
    id: integer,
    user_to_id: integer,
    user_from_id: { type: ['integer', 'null'] },
    type: string,
    data: {
      type: 'object',
      description: "title, message, icon and level, plus the sender's extra keys.",
      properties: {
        title: string,
        message: string,
        icon: string,
        level: { type: 'string', enum: ['info', 'success', 'warning', 'danger'] },
      },
      required: ['title', 'message', 'icon', 'level'],
    },
    action: nullable(ref('NotificationAction')),
    read_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: timestamp,
  }),
  NotificationSend: {
    type: 'object',
    properties: {
      to: { oneOf: [integer, { type: 'array', items: integer, minItems: 1 }] },
      title: string,
      message: string,
      icon: string,
      level: { type: 'string', enum: ['info', 'success', 'warning', 'danger'], default: 'info' },
      type: { type: 'string', default: 'generic' },
      data: { type: 'object' },
      action: ref('NotificationAction'),
    },
    required: ['to', 'title', 'message'],
  },
  OneNotification: object({
    data: ref('Notification'),
    meta: object({ unread_count: integer }),
  }),
  Metadata: {
    type: 'object',
    description: 'See src/engine/description/metadata-types.ts for every key.',
    properties: { data: { type: 'array', items: { type: 'object' } } },
    required: ['data'],
  },
};

const SESSION = [{ session: [] }];
const SESSION_WRITE = [{ session: [], csrf: [] }];
const ok = (description: string, schema?: Schema) => ({
  '200': schema ? { description, content: json(schema) } : { description },
});
const sessionRead = (
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
      '429': 'TooManyRequests',
      '500': 'ServerError',
      '503': 'ServiceUnavailable',
    }),
  },
});
const sessionWrite = (
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
      '429': 'TooManyRequests',
      '500': 'ServerError',
      '503': 'ServiceUnavailable',
      ...extra,
    }),
  },
});
const body = (schema: Schema) => ({ requestBody: { required: true, content: json(schema) } });
const pathId = (name: string, description: string) => ({
  parameters: [{ name, in: 'path', required: true, description, schema: string }],
});
const notificationPage = object({
  data: { type: 'array', items: ref('Notification') },
  meta: object({
    total: integer,
    per_page: integer,
    current_page: integer,
    last_page: integer,
    unread_count: integer,
  }),
});
const pusherErrors = {
  '400': { description: 'The event is malformed.', content: json(ref('Error')) },
  '401': {
    description: 'The signature, key or timestamp is refused.',
    content: json(ref('Error')),
  },
  '404': { description: 'Unknown app id.', content: json(ref('Error')) },
  '413': { description: 'The event data is too large.', content: json(ref('Error')) },
};
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

export const serviceEndpoints: Record<string, Operation> = {
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
        'At most 20 records, by title.',
        object({
          data: {
            type: 'array',
            items: object({ id: { type: ['integer', 'string'] }, label: string }),
          },
        }),
      ),
      ...errorResponses({ '404': 'NotFound' }),
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
  'POST /api/notifications': {
    summary: 'Send a notification to one or more users',
    tags: ['Notifications'],
    security: [{ bearer: ['notifications.send'] }, { session: [], csrf: [] }],
    'x-abilities': ['notifications.send'],
    ...body(ref('NotificationSend')),
    responses: {
      '201': {
        description: 'One record per recipient.',
        content: json(object({ data: { type: 'array', items: ref('Notification') } })),
      },
      ...errorResponses({
        '400': 'BadRequest',
        '401': 'Unauthenticated',
        '403': 'Forbidden',
        '413': 'PayloadTooLarge',
        '415': 'UnsupportedMediaType',
        '419': 'CsrfMismatch',
        '422': 'ValidationFailed',
        '429': 'TooManyRequests',
        '500': 'ServerError',
        '503': 'ServiceUnavailable',
      }),
    },
  },
  'GET /app/notifications': sessionRead(
    "The caller's notifications, newest first",
    'Notifications',
    ok('A page, with the unread count.', notificationPage),
    {
      parameters: [
        { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
        {
          name: 'per_page',
          in: 'query',
          schema: { type: 'integer', minimum: 1, maximum: 200, default: 15 },
        },
      ],
    },
  ),
  'POST /app/notifications/mark-all-read': sessionWrite(
    'Mark every unread notification of the caller read',
    'Notifications',
    ok('How many changed.', object({ marked: integer, meta: object({ unread_count: integer }) })),
  ),
  'GET /app/notifications/:notification': sessionRead(
    'Open a notification (the reader): marks it read',
    'Notifications',
    {
      ...ok('The notification.', ref('OneNotification')),
      ...errorResponses({ '404': 'NotFound' }),
    },
    pathId('notification', "Another user's id is a 404."),
  ),
  'POST /app/notifications/:notification/read': sessionWrite(
    'Mark a notification read',
    'Notifications',
    ok('The notification.', ref('OneNotification')),
    pathId('notification', "Another user's id is a 404."),
    { '404': 'NotFound' },
  ),
  'POST /app/notifications/:notification/unread': sessionWrite(
    'Mark a notification unread',
    'Notifications',
    ok('The notification.', ref('OneNotification')),
    pathId('notification', "Another user's id is a 404."),
    { '404': 'NotFound' },
  ),
  'GET /app/realtime': sessionRead(
    'What a Pusher client needs to connect',
    'Notifications',
    ok(
      'The settings (`enabled: false` and nulls when real time is off).',
      object({
        enabled: { type: 'boolean' },
        key: { type: ['string', 'null'] },
        cluster: { type: ['string', 'null'] },
        host: { type: ['string', 'null'] },
        port: { type: ['integer', 'null'] },
        path: { type: ['string', 'null'] },
        force_tls: { type: 'boolean' },
        auth_endpoint: { type: ['string', 'null'] },
        channel: { type: ['string', 'null'] },
      }),
    ),
  ),
  'POST /broadcasting/auth-notifications': sessionWrite(
    "Authorize the caller's private notification channel (real time on)",
    'Notifications',
    ok('The channel signature.', object({ auth: string })),
    {
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: object({ socket_id: string, channel_name: string }),
          },
          'application/json': { schema: object({ socket_id: string, channel_name: string }) },
        },
      },
    },
    { '403': 'Forbidden', '422': 'ValidationFailed' },
  ),
  'POST /apps/:appId/events': {
    summary: 'Pusher HTTP API: trigger an event (embedded real-time server)',
    tags: ['Real time'],
    security: [],
    description:
      'Signed with PUSHER_APP_SECRET as the Pusher HTTP API signs: `auth_key`, `auth_timestamp`, `auth_version`, `body_md5` and `auth_signature` in the query.',
    ...pathId('appId', 'PUSHER_APP_ID.'),
    ...body({
      type: 'object',
      properties: {
        name: string,
        data: string,
        channels: { type: 'array', items: string },
        channel: string,
        socket_id: string,
      },
      required: ['name', 'data'],
    }),
    responses: { ...ok('Delivered.', { type: 'object' }), ...pusherErrors },
  },
  'POST /apps/:appId/batch_events': {
    summary: 'Pusher HTTP API: trigger a batch of events (embedded real-time server)',
    tags: ['Real time'],
    security: [],
    ...pathId('appId', 'PUSHER_APP_ID.'),
    ...body(object({ batch: { type: 'array', items: { type: 'object' }, minItems: 1 } })),
    responses: { ...ok('Delivered, all or none.', { type: 'object' }), ...pusherErrors },
  },
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

serviceSchemas.Readiness = object({
  status: { type: 'string', enum: ['ok', 'unavailable'] },
  checks: object({
    database: { type: 'string', enum: ['ok', 'unavailable'] },
    migrations: { type: 'string', enum: ['ok', 'pending', 'unknown'] },
  }),
});
