// GET /app/realtime (DESIGN.md 3.6): what the session user's client needs to connect. With
// PUSHER_HOST the clients connect to that server; otherwise to this service, at the host and
// port the request came to (so it also holds behind a proxy with TRUST_PROXY).
import type { FastifyInstance } from 'fastify';
import type { RealtimeConfig } from '../config/config.js';
import { errors } from '../errors.js';
import type { Middleware } from '../kernel/middleware.js';
import '../kernel/request-state.js';
import { AUTH_ENDPOINT } from './channel-auth-route.js';
import { SCOPED_AUTH_ENDPOINT } from './scoped-channels.js';

/** pusher-js 8 requires a cluster even when wsHost points elsewhere; any value does. */
export const CLUSTER = 'mt1';

export interface RealtimeSettingsOptions {
  readonly config: RealtimeConfig;
  /** The `svc.auth` middleware. */
  readonly authenticated: Middleware;
  /** The session user's private channel. */
  readonly channelOf: (userId: number) => string;
  /** Whether scoped channels (`private-resource.<resource>`, DESIGN.md 3.9) are offered. */
  readonly scopedChannels: boolean;
}

export function registerRealtimeSettingsRoute(
  app: FastifyInstance,
  options: RealtimeSettingsOptions,
): void {
  const { config } = options;
  app.get('/app/realtime', { preHandler: options.authenticated }, async (request) => {
    const userId = request.svc?.scope.userId;
    if (userId == null) throw errors.sessionUnauthenticated();
    if (!config.enabled) {
      return {
        enabled: false,
        key: null,
        cluster: null,
        host: null,
        port: null,
        path: null,
        force_tls: false,
        auth_endpoint: null,
        channel: null,
        resource_auth_endpoint: null,
      };
    }
    const external = config.external;
    const tls = external ? external.scheme === 'https' : request.protocol === 'https';
    return {
      enabled: true,
      key: config.key,
      cluster: CLUSTER,
      host: external?.host ?? request.hostname,
      port: external?.port ?? request.port ?? (tls ? 443 : 80),
      path: `/app/${config.key}`,
      force_tls: tls,
      auth_endpoint: AUTH_ENDPOINT,
      channel: options.channelOf(userId),
      // Where a client authorizes `private-resource.<resource>`; null: follow GET .../changes.
      resource_auth_endpoint: options.scopedChannels ? SCOPED_AUTH_ENDPOINT : null,
    };
  });
}
