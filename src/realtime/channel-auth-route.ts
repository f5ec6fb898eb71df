// POST /broadcasting/auth-notifications (SPEC.md 4.6, 6; DESIGN.md 3.5): the session user
// (with the CSRF header, like every session write) gets the signature of their own
// `private-notifications.{id}` for their socket, and a 403 for any other channel. pusher-js
// posts form-urlencoded; JSON is accepted too. Form bodies are parsed on this route only, so the
// resource routes stay JSON-only (415).
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { type ErrorBag, errors } from '../errors.js';
import type { Middleware } from '../kernel/middleware.js';
import '../kernel/request-state.js';
import { channelAuth, type PusherCredentials } from './pusher-signatures.js';

export const AUTH_ENDPOINT = '/broadcasting/auth-notifications';
const SOCKET_ID = /^\d+\.\d+$/;

export interface ChannelAuthOptions {
  readonly credentials: PusherCredentials;
  /** The `svc.auth` middleware: session and CSRF. */
  readonly authenticated: Middleware;
  /** The one private channel a user may subscribe to (the notifications' own, SPEC.md 6). */
  readonly channelOf: (userId: number) => string;
}

export function registerChannelAuthRoute(app: FastifyInstance, options: ChannelAuthOptions): void {
  app.register(async (scope) => {
    await scope.register(fastifyFormbody);
    scope.post(AUTH_ENDPOINT, { preHandler: options.authenticated }, async (request) => {
      const body = (
        request.body !== null && typeof request.body === 'object' ? request.body : {}
      ) as Record<string, unknown>;
      const socketId = body.socket_id;
      const channel = body.channel_name;
      const bag: ErrorBag = {};
      if (typeof socketId !== 'string' || socketId === '')
        bag.socket_id = ['The socket id field is required.'];
      else if (!SOCKET_ID.test(socketId))
        bag.socket_id = ['The socket id field format is invalid.'];
      if (typeof channel !== 'string' || channel === '')
        bag.channel_name = ['The channel name field is required.'];
      if (Object.keys(bag).length > 0) throw errors.validation(bag);
      const userId = request.svc?.scope.userId;
      if (userId == null || channel !== options.channelOf(userId)) throw errors.unauthorized();
      return { auth: channelAuth(options.credentials, String(socketId), channel) };
    });
  });
}
