// The operations of the routes outside the resource engine, keyed by `METHOD <Fastify path>`.
// Their handlers have no definition to generate from, so they are described by hand, by area in
// endpoints/; test/openapi checks that every registered route has its entry and every entry its
// route, and that real answers match.
import { notificationEndpoints } from './endpoints/notification-endpoints.js';
import { operationEndpoints } from './endpoints/operation-endpoints.js';
import { sessionEndpoints } from './endpoints/session-endpoints.js';
import { webhookEndpoints } from './endpoints/webhook-endpoints.js';
import type { Operation } from './operation.js';

export { serviceSchemas } from './endpoints/schemas.js';

export const serviceEndpoints: Readonly<Record<string, Operation>> = {
  ...sessionEndpoints,
  ...notificationEndpoints,
  ...operationEndpoints,
  ...webhookEndpoints,
};
