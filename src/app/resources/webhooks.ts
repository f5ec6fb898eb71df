// /api/webhooks (DESIGN.md 3.10): admin users only. A create answers the new endpoint's signing
// secret, written in the create's transaction; no other answer ever holds it.
import { defineResource } from '../../engine/definition/define-resource.js';
import { newWebhookSecret } from '../../webhooks/webhook-secret.js';
import { webhook } from '../entities/webhook.js';
import { adminOnly } from './admin-only.js';

export const webhooks = defineResource({
  model: webhook,
  searchable: ['url', 'active', 'description'],
  sortable: ['url', 'created_at', 'updated_at'],
  defaultOrder: 'id asc',
  listColumns: ['url', 'events', 'active', 'description', 'updated_at'],
  authorize: adminOnly,
  answerOnCreate: async (db, id) => {
    const secret = newWebhookSecret();
    await db.updateTable('webhooks').set({ secret }).where('id', '=', id).execute();
    return { secret };
  },
});
