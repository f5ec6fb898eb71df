// /api/webhooks (DESIGN.md 3.10): admin users only. A create answers the new endpoint's signing
// secret, written (sealed, webhook-secret.ts) in the create's transaction; no other answer ever
// holds it.
import { defineResource } from '../../engine/definition/define-resource.js';
import { newWebhookSecret, sealingKeyOf, sealSecret } from '../../webhooks/webhook-secret.js';
import { webhook } from '../entities/webhook.js';
import { adminOnly } from './admin-only.js';

export const webhooks = defineResource({
  model: webhook,
  searchable: ['url', 'active', 'description'],
  sortable: ['url', 'created_at', 'updated_at'],
  defaultOrder: 'id asc',
  listColumns: ['url', 'events', 'active', 'description', 'updated_at'],
  authorize: adminOnly,
  // The form lists the endpoint's deliveries, with Replay.
  adminPanels: ['deliveries'],
  answerOnCreate: async (db, id, system) => {
    const secret = newWebhookSecret();
    const sealed = sealSecret(secret, sealingKeyOf(system), id);
    await db.updateTable('webhooks').set({ secret: sealed }).where('id', '=', id).execute();
    return { secret };
  },
});
