// Webhooks wired into an app (DESIGN.md 3.10): the operators' routes, and (WEBHOOKS_WORKER) the
// delivery worker from the app's start to its close, held back while the app's requests keep
// the event loop busy (delivery-pacing.ts).
import type { FastifyInstance } from 'fastify';
import type { Database } from '../database/database.js';
import { integerKeyOf, type ResourceRoute } from '../engine/routes.js';
import { DeliveryPacing } from './delivery-pacing.js';
import { registerWebhookRoutes, type WebhookRouteOptions } from './webhook-routes.js';
import { sealStoredSecrets, useSealingKey } from './webhook-secret.js';
import { type WebhookSettings, WebhookWorker } from './webhook-worker.js';

export interface WebhookOptions extends Omit<WebhookRouteOptions, 'replayed'> {
  readonly routes: readonly ResourceRoute[];
  /** Every database of records once, each with its name ('' the main one). */
  readonly databases: ReadonlyArray<{ readonly key: string; readonly database: Database }>;
  readonly settings: WebhookSettings;
  /** TENANT_ISOLATION: an endpoint receives only the changes of its creator's company. */
  readonly tenantIsolation: boolean;
  /** The app's secret: the endpoints' signing secrets are stored sealed under a key from it. */
  readonly appSecret: string;
}

export function installWebhooks(app: FastifyInstance, options: WebhookOptions): void {
  const key = useSealingKey(options.system, options.appSecret);
  // Secrets stored in plaintext by an earlier version are sealed at the start.
  app.addHook('onReady', async () => {
    await sealStoredSecrets(options.system, key);
  });
  const pacing = new DeliveryPacing(options.settings.busyShare);
  if (options.settings.worker) pacing.watch(app.server);
  const worker = new WebhookWorker({
    system: options.system,
    databases: options.databases,
    integerKey: integerKeyOf(options.routes),
    tenantIsolation: options.tenantIsolation,
    settings: options.settings,
    secretKey: key,
    log: app.log,
    ...(options.clock ? { clock: options.clock } : {}),
    pacing,
  });
  registerWebhookRoutes(app, { ...options, replayed: () => worker.replayed() });
  if (!options.settings.worker) return;
  app.addHook('onReady', async () => worker.start());
  app.addHook('preClose', async () => worker.stop());
}
