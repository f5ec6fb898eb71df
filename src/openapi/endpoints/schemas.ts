// Component schemas of the answers of svc's own endpoints (sessions, tokens, notifications,
// readiness), referred to as #/components/schemas/<name>.
import { ref } from '../components.js';
import type { Schema } from '../json-schema.js';
import { integer, nullable, object, string, timestamp } from './builders.js';

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

serviceSchemas.Readiness = object({
  status: { type: 'string', enum: ['ok', 'unavailable'] },
  checks: object({
    database: { type: 'string', enum: ['ok', 'unavailable'] },
    migrations: { type: 'string', enum: ['ok', 'pending', 'unknown'] },
  }),
});
