// Wires real time into the app. Off (the default): only GET /app/realtime, answering
// `enabled: false`; nothing is broadcast and the auth route does not exist. On: the embedded
// Pusher server on the app's own HTTP server, its HTTP events API, the channel auth route, and
// the broadcaster notifications go through (the external server's HTTP API with PUSHER_HOST).
// With Redis, what this instance delivers to its sockets also reaches every other instance's.
// Scoped channels (resource changes, DESIGN.md 3.9) need the embedded server, which tests each
// event against the scope signed into each subscription: with PUSHER_HOST they are not offered.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { RealtimeConfig } from '../config/config.js';
import type { Middleware } from '../kernel/middleware.js';
import type { SharedRedis } from '../kernel/shared-redis.js';
import type { Broadcaster } from './broadcaster.js';
import { registerChannelAuthRoute } from './channel-auth-route.js';
import { registerEventsApi } from './events-api-routes.js';
import { httpBroadcaster } from './http-broadcaster.js';
import { PusherServer } from './pusher-server.js';
import { registerRealtimeSettingsRoute } from './realtime-settings-route.js';
import { RedisFanout } from './redis-fanout.js';
import type { ScopedChannels } from './scoped-channels.js';

export interface RealtimeOptions {
  readonly config: RealtimeConfig;
  /** PUSHER_APP_SECRET, or the one generated into DATA_DIR. */
  readonly secret: string;
  readonly clock: () => number;
  /** The `svc.auth` middleware. */
  readonly authenticated: Middleware;
  /** A user's private channel: the notifications' one, passed in so real time knows none. */
  readonly channelOf: (userId: number) => string;
  /** REDIS_URL's connections: fan-out to the other instances; null for this instance alone. */
  readonly redis?: SharedRedis | null;
  /** Who a WebSocket upgrade comes from, as TRUST_PROXY says (kernel/client-address.ts). */
  readonly clientAddress: (request: IncomingMessage) => string;
  /** Channels whose events only some subscribers may see (live/ resource changes). */
  readonly scopedChannels?: ScopedChannels;
}

export interface Realtime {
  /** Null when real time is off. */
  readonly broadcaster: Broadcaster | null;
  /** The embedded server, null when real time is off. */
  readonly server: PusherServer | null;
  /** Whether scoped channels are offered (on, with the embedded server the clients use). */
  readonly scoped: boolean;
}

export function installRealtime(app: FastifyInstance, options: RealtimeOptions): Realtime {
  const { config, authenticated, clock, channelOf } = options;
  const scoped = config.enabled && !config.external ? options.scopedChannels : undefined;
  registerRealtimeSettingsRoute(app, {
    config,
    authenticated,
    channelOf,
    scopedChannels: scoped !== undefined,
  });
  if (!config.enabled) return { broadcaster: null, server: null, scoped: false };

  const credentials = { appId: config.appId, key: config.key, secret: options.secret };
  const server = new PusherServer({
    credentials,
    activityTimeout: config.activityTimeout,
    authTimeoutMs: config.authTimeoutMs,
    maxConnections: config.maxConnections,
    maxConnectionsPerAddress: config.maxConnectionsPerAddress,
    clientAddress: options.clientAddress,
  });
  server.attach(app.server);
  // Before the HTTP server closes: open WebSockets would otherwise keep it waiting.
  app.addHook('preClose', async () => {
    if (server.connectionCount > 0)
      app.log.info(
        { clients: server.connectionCount },
        'closing WebSocket clients (4200: reconnect)',
      );
    await server.close();
  });
  let local: Broadcaster = server;
  if (options.redis) {
    const fanout = new RedisFanout({ redis: options.redis, local: server, log: app.log });
    // Subscribed before the app listens: no event published after start is missed.
    app.addHook('onReady', async () => fanout.start());
    local = fanout;
  }
  registerEventsApi(app, { credentials, local, clock });
  registerChannelAuthRoute(app, {
    credentials,
    authenticated,
    channelOf,
    ...(scoped ? { scoped } : {}),
  });
  const broadcaster = config.external
    ? httpBroadcaster({ endpoint: config.external, credentials, clock })
    : local;
  return { broadcaster, server, scoped: scoped !== undefined };
}
