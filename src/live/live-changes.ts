// Resource changes pushed live (DESIGN.md 3.9 "Real time"), wired in two steps because real
// time is built in between: first the channels (who may follow which resource, handed to real
// time's auth route), then, once the embedded server exists and offers them, the relay from
// every database's change log to its sockets.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../database/database.js';
import type { EngineContext } from '../engine/context.js';
import { integerKeyOf, type ResourceRoute } from '../engine/routes.js';
import type { SharedRedis } from '../kernel/shared-redis.js';
import type { ScopedChannels, ScopedDelivery } from '../realtime/scoped-channels.js';
import { ChangeRelay, type RelayedDatabase } from './change-relay.js';
import { resourceChannelScope } from './resource-channel-scope.js';

export interface LiveChangesOptions {
  readonly routes: readonly ResourceRoute[];
  readonly contextOf: (request: FastifyRequest) => EngineContext;
  /** Every database of records once, each with its name on every instance ('' the main one). */
  readonly databases: readonly RelayedDatabase[];
}

export interface LiveChanges {
  readonly channels: ScopedChannels;
  /** Relays the changes to `sockets` from the app's start to its close. */
  relay(app: FastifyInstance, sockets: ScopedDelivery, redis: SharedRedis | null): void;
}

export function liveChanges(options: LiveChangesOptions): LiveChanges {
  const keys = new Map<Database, string>(options.databases.map((d) => [d.database, d.key]));
  const channels = resourceChannelScope({
    routes: options.routes,
    contextOf: options.contextOf,
    // A database not among them (none is) names no subscriber's: it is told nothing.
    databaseKey: (database) => keys.get(database) ?? '?',
  });
  return {
    channels,
    relay(app, sockets, redis) {
      const relay = new ChangeRelay({
        databases: options.databases,
        sockets,
        integerKey: integerKeyOf(options.routes),
        redis,
        log: app.log,
      });
      app.addHook('onReady', async () => relay.start());
      app.addHook('preClose', async () => relay.stop());
    },
  };
}
