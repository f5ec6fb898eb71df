// Notifications and real time (SPEC.md 4.6 and 6, DESIGN.md 3.5-3.6; src/notifications,
// src/realtime): the send API, the reader's endpoints, the client settings, channel auth and the
// Pusher HTTP API of the embedded server (the last two only while real time is on).
import { errorResponses, json, ref } from '../components.js';
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

/** What pusher-js posts to a channel auth endpoint, as a form or as JSON. */
const CHANNEL_AUTH_BODY = {
  required: true,
  content: {
    'application/x-www-form-urlencoded': {
      schema: object({ socket_id: string, channel_name: string }),
    },
    'application/json': { schema: object({ socket_id: string, channel_name: string }) },
  },
};

export const notificationEndpoints: Record<string, Operation> = {
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
    'One notification; changes nothing (the reader marks it read with POST …/read)',
    'Notifications',
    {
      ...ok('The notification.', ref('OneNotification')),
      ...errorResponses({ '404': 'NotFound' }),
    },
    pathId('notification', "Another user's id is a 404."),
  ),
  'POST /app/notifications/:notification/read': sessionWrite(
    'Mark a notification read (the reader, when it opens one)',
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
        resource_auth_endpoint: {
          type: ['string', 'null'],
          description:
            'Where `private-resource.<resource>` channels are authorized (POST); null when they are not offered (real time off, or PUSHER_HOST): follow `GET /api/<resource>/changes`.',
        },
      }),
    ),
  ),
  'POST /broadcasting/auth-notifications': sessionWrite(
    "Authorize the caller's private notification channel (real time on)",
    'Notifications',
    ok('The channel signature.', object({ auth: string })),
    { requestBody: CHANNEL_AUTH_BODY },
    { '403': 'Forbidden', '422': 'ValidationFailed' },
  ),
  'POST /broadcasting/auth': sessionWrite(
    "Authorize a resource's change channel `private-resource.<resource>` (real time on, embedded server)",
    'Notifications',
    ok(
      "The channel signature, over the socket, the channel and `channel_data`: the subscriber's scope (database, unit, company), which the subscription sends back.",
      object({ auth: string, channel_data: string }),
    ),
    {
      description:
        "For a user whose authorization allows the resource's `list`; its `SvcResourceChanged` events carry the changes `GET /api/<resource>/changes` answers that user.",
      requestBody: CHANNEL_AUTH_BODY,
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
};
