// The channel auth routes: the session user (with the CSRF header, like every session write)
// gets the signature of a private channel for their socket, or a 403.
// - POST /broadcasting/auth-notifications (SPEC.md 4.6, 6; DESIGN.md 3.5): their own
//   `private-notifications.{id}`, and no other channel.
// - POST /broadcasting/auth (DESIGN.md 3.9): a scoped channel (`private-resource.<resource>`)
//   when the scoped feature's callback allows it; the answer's `channel_data`, signed with the
//   channel, is what the subscription may be told (scoped-channels.ts).
// pusher-js posts form-urlencoded; JSON is accepted too. Form bodies are parsed on these routes
// only, so the resource routes stay JSON-only (415).
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ErrorBag, errors } from '../errors.js';
import type { Middleware } from '../kernel/middleware.js';
import '../kernel/request-state.js';
import { channelAuth, type PusherCredentials } from './pusher-signatures.js';
import { SCOPED_AUTH_ENDPOINT, type ScopedChannels } from './scoped-channels.js';

export const AUTH_ENDPOINT = '/broadcasting/auth-notifications';
const SOCKET_ID = /^\d+\.\d+$/;

export interface ChannelAuthOptions {
  readonly credentials: PusherCredentials;
  /** The `svc.auth` middleware: session and CSRF. */
  readonly authenticated: Middleware;
  /** The one private channel a user may subscribe to (the notifications' own, SPEC.md 6). */
  readonly channelOf: (userId: number) => string;
  /** Scoped channels; absent: POST /broadcasting/auth is not offered. */
  readonly scoped?: ScopedChannels;
}

/** The socket and channel a client asks for; a 422 names what is missing or malformed. */
function subscriptionAsked(request: FastifyRequest): { socketId: string; channel: string } {
  const body = (
    request.body !== null && typeof request.body === 'object' ? request.body : {}
  ) as Record<string, unknown>;
  const socketId = body.socket_id;
  const channel = body.channel_name;
  const bag: ErrorBag = {};
  if (typeof socketId !== 'string' || socketId === '')
    bag.socket_id = ['The socket id field is required.'];
  else if (!SOCKET_ID.test(socketId)) bag.socket_id = ['The socket id field format is invalid.'];
  if (typeof channel !== 'string' || channel === '')
    bag.channel_name = ['The channel name field is required.'];
  if (Object.keys(bag).length > 0) throw errors.validation(bag);
  return { socketId: String(socketId), channel: String(channel) };
}

export function registerChannelAuthRoute(app: FastifyInstance, options: ChannelAuthOptions): void {
  const { credentials, scoped } = options;
  app.register(async (scope) => {
    await scope.register(fastifyFormbody);
    const preHandler = options.authenticated;
    scope.post(AUTH_ENDPOINT, { preHandler }, async (request) => {
      const { socketId, channel } = subscriptionAsked(request);
      const userId = request.svc?.scope.userId;
      if (userId == null || channel !== options.channelOf(userId)) throw errors.unauthorized();
      return { auth: channelAuth(credentials, socketId, channel) };
    });
    if (!scoped) return;
    scope.post(SCOPED_AUTH_ENDPOINT, { preHandler }, async (request) => {
      const { socketId, channel } = subscriptionAsked(request);
      const channelData = channel.startsWith(scoped.prefix)
        ? await scoped.channelData(request, channel)
        : null;
      if (channelData === null) throw errors.unauthorized();
      return {
        auth: channelAuth(credentials, socketId, channel, channelData),
        channel_data: channelData,
      };
    });
  });
}
