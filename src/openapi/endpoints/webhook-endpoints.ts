// Webhooks beyond the resource's own operations (DESIGN.md 3.10; src/webhooks): the secret's
// rotation, an endpoint's deliveries and their replay. Admin users only, in either mode.
import { errorResponses, json } from '../components.js';
import type { Operation } from '../operation.js';
import { integer, nullable, object, string, timestamp } from './builders.js';

const delivery = object({
  id: integer,
  webhook_id: integer,
  event: { ...string, description: '`<resource>.<action>` of the change.' },
  change: object({
    database: { ...string, description: "The change's database: '' the main one." },
    seq: integer,
  }),
  status: { type: 'string', enum: ['pending', 'succeeded', 'dead'] },
  attempts: integer,
  next_attempt_at: { ...nullable(timestamp), description: 'While pending: when it is tried next.' },
  last_status: { ...nullable(integer), description: "The last answer's HTTP status." },
  last_duration_ms: nullable(integer),
  last_error: nullable(string),
  created_at: timestamp,
  updated_at: timestamp,
});

const idParameter = (name: string, description: string) => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: string,
});

const webhookOperation = (
  summary: string,
  ability: 'webhooks.read' | 'webhooks.write',
  success: Record<string, unknown>,
  parameters: unknown[],
  extra: Record<string, 'ValidationFailed'> = {},
): Operation => ({
  summary,
  tags: ['Webhooks'],
  security: [
    { bearer: [ability] },
    ability === 'webhooks.read' ? { session: [] } : { session: [], csrf: [] },
  ],
  'x-abilities': [ability],
  parameters,
  responses: {
    ...success,
    ...errorResponses({
      '401': 'Unauthenticated',
      '403': 'Forbidden',
      '404': 'NotFound',
      ...(ability === 'webhooks.write' ? { '419': 'CsrfMismatch' } : {}),
      '429': 'TooManyRequests',
      '500': 'ServerError',
      '503': 'ServiceUnavailable',
      ...extra,
    }),
  },
});

const webhook = idParameter('webhook', "The endpoint's id.");

export const webhookEndpoints: Record<string, Operation> = {
  'POST /api/webhooks/:webhook/rotate-secret': webhookOperation(
    'Issue a new signing secret (answered this once; the old one stops signing)',
    'webhooks.write',
    {
      '200': {
        description: 'The new secret.',
        content: json(
          object({ data: object({ id: integer, secret: { ...string, pattern: '^whsec_' } }) }),
        ),
      },
    },
    [webhook],
  ),
  'GET /api/webhooks/:webhook/deliveries': webhookOperation(
    "The endpoint's deliveries, newest first",
    'webhooks.read',
    {
      '200': {
        description: 'A page; `next_before` is the `before` of the next one (null: no more).',
        content: json(
          object({
            data: { type: 'array', items: delivery },
            meta: object({ next_before: nullable(integer) }),
          }),
        ),
      },
    },
    [
      webhook,
      {
        name: 'status',
        in: 'query',
        schema: { type: 'string', enum: ['pending', 'succeeded', 'dead'] },
      },
      {
        name: 'limit',
        in: 'query',
        schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
      },
      {
        name: 'before',
        in: 'query',
        description: 'Only deliveries with a lower id.',
        schema: { type: 'integer', minimum: 1 },
      },
    ],
    { '422': 'ValidationFailed' },
  ),
  'POST /api/webhooks/:webhook/deliveries/:delivery/replay': webhookOperation(
    'Send a delivery again (a dead or succeeded one starts over; a pending one is left to its attempts)',
    'webhooks.write',
    {
      '202': {
        description: 'The delivery, pending again.',
        content: json(object({ data: delivery })),
      },
    },
    [webhook, idParameter('delivery', "The delivery's id.")],
  ),
  'POST /api/webhooks/:webhook/deliveries/replay-dead': webhookOperation(
    'Send every dead delivery of the endpoint again',
    'webhooks.write',
    { '202': { description: 'How many were dead.', content: json(object({ replayed: integer })) } },
    [webhook],
  ),
};
