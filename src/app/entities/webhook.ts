// Webhook endpoints (DESIGN.md 3.10): where svc POSTs the changes an endpoint subscribes to.
// The signing secret is kept (HMAC needs it; sealed with the app's key, webhook-secret.ts) and
// hidden: a create answers it once, and the rotation route a new one. In isolation mode an
// endpoint is its creator's company's.
import { sql } from 'kysely';
import { defineEntity } from '../../model/entity.js';
import { webhookEventNames } from '../../webhooks/webhook-events.js';

/** The event names endpoints may list: set once the routes are declared (app/routes.ts). */
let eventNames: readonly string[] = ['*'];

export function declareWebhookResources(resources: Iterable<string>): void {
  eventNames = webhookEventNames(resources);
}

export const webhook = defineEntity({
  name: 'Webhook',
  table: 'webhooks',
  columns: [
    'id',
    'url',
    'events',
    'active',
    'description',
    'secret',
    'company_id',
    'created_by',
    'created_at',
    'updated_at',
  ],
  casts: {
    id: 'integer',
    events: 'json',
    company_id: 'integer',
    created_by: 'integer',
    created_at: 'datetime',
    updated_at: 'datetime',
  },
  fillable: ['url', 'events', 'active', 'description'],
  hidden: ['secret'],
  titleColumns: ['url'],
  tenantColumn: 'company_id',
  tenantMember: (tenantId) => sql<boolean>`webhooks.company_id = ${sql.lit(tenantId)}`,
  ownerColumn: 'created_by',
  labels: { url: 'URL', created_by: 'Created by', company_id: 'Company' },
  rules: () => ({
    url: ['required', 'string', 'max:2000', 'url'],
    events: ['required', 'array', 'min:1', `in:${eventNames.join(',')}`],
    active: ['nullable', 'in:Y,N'],
    description: ['nullable', 'string', 'max:1000'],
  }),
});
