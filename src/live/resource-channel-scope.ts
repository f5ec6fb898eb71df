// Who may follow a resource's channel, and what they are told (DESIGN.md 3.9): a session user
// whose resource authorization allows `list` (the feed's rule), scoped as their feed is: the
// database of their records, their unit and company where the resource is bound by them.
import type { FastifyRequest } from 'fastify';
import type { Database } from '../database/database.js';
import { feedScopeOf } from '../engine/changes/change-feed.js';
import type { EngineContext } from '../engine/context.js';
import type { Resource } from '../engine/definition/define-resource.js';
import type { ResourceRoute } from '../engine/routes.js';
import type { ScopedChannels } from '../realtime/scoped-channels.js';
import { channelDataOf, RESOURCE_CHANNEL_PREFIX, resourceOfChannel } from './resource-channels.js';

export interface ResourceChannelScopeOptions {
  /** The service's resource routes: those that list have a channel. */
  readonly routes: readonly ResourceRoute[];
  readonly contextOf: (request: FastifyRequest) => EngineContext;
  /** A database's name in channel data, the same on every instance ('' the main one). */
  readonly databaseKey: (database: Database) => string;
}

export function resourceChannelScope(options: ResourceChannelScopeOptions): ScopedChannels {
  const listed = new Map<string, Resource>();
  for (const route of options.routes)
    if (route.only === undefined || route.only.includes('list'))
      listed.set(route.resource.name, route.resource);
  return {
    prefix: RESOURCE_CHANNEL_PREFIX,
    async channelData(request, channel) {
      const resource = listed.get(resourceOfChannel(channel) ?? '');
      if (!resource) return null;
      const context = options.contextOf(request);
      if (resource.authorize && !(await resource.authorize('list', context))) return null;
      const { unit, company } = feedScopeOf(resource, context.scope);
      const database = resource.entity.storage === 'data' ? context.data : context.system;
      return channelDataOf({ db: options.databaseKey(database), unit, company });
    },
  };
}
