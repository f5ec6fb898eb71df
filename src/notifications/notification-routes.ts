// The notification endpoints: `POST /api/notifications` (DESIGN.md 3.4, 3.6; ability
// notifications.send, session mode too) and the session-only helper endpoints of SPEC.md 4.6
// and DESIGN.md 3.5. Handlers stay thin: the sender and the inbox own the work.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import type { Middleware } from '../kernel/middleware.js';
import '../kernel/request-state.js';
import type { NotificationInbox } from './notification-inbox.js';
import type { NotificationRecord } from './notification-record.js';
import type { NotificationSender } from './notification-sender.js';

/** The send route's middleware; app/routes.ts reads it so `notifications.send` is grantable. */
export const SEND_NOTIFICATIONS_MIDDLEWARE = 'svc.api:notifications.send';

export interface NotificationRouteOptions {
  readonly sender: NotificationSender;
  readonly inbox: NotificationInbox;
  /** Middleware spec -> preHandler (the registry of http/middleware.ts). */
  readonly middleware: (spec: string) => Middleware;
}

function userIdOf(request: FastifyRequest): number {
  const userId = request.svc?.scope.userId;
  if (userId == null) throw errors.sessionUnauthenticated();
  return userId;
}

/** The route's id; anything but digits is nobody's notification. */
function idOf(request: FastifyRequest): number {
  const raw = (request.params as { notification: string }).notification;
  if (!/^\d{1,15}$/.test(raw)) throw errors.resourceNotFound();
  return Number(raw);
}

export function registerNotificationRoutes(
  app: FastifyInstance,
  options: NotificationRouteOptions,
): void {
  const { sender, inbox } = options;
  const session = options.middleware('svc.auth');

  app.post(
    '/api/notifications',
    { preHandler: options.middleware(SEND_NOTIFICATIONS_MIDDLEWARE) },
    async (request, reply) => {
      const body =
        request.body !== null && typeof request.body === 'object' && !Array.isArray(request.body)
          ? request.body
          : {};
      // The sender is the caller, whatever the body says.
      const records = await sender.sendUntyped(
        { ...body, from: userIdOf(request) },
        { tenantId: request.svc?.scope.tenantId ?? null },
      );
      return reply.code(201).send({ data: records });
    },
  );

  const single = async (userId: number, record: NotificationRecord | null) => {
    if (!record) throw errors.resourceNotFound();
    return { data: record, meta: { unread_count: await inbox.unreadCount(userId) } };
  };

  app.get('/app/notifications', { preHandler: session }, async (request) =>
    inbox.list(userIdOf(request), request.query as Record<string, unknown>),
  );

  app.post('/app/notifications/mark-all-read', { preHandler: session }, async (request) => {
    const userId = userIdOf(request);
    const marked = await inbox.markAllRead(userId);
    return { marked, meta: { unread_count: await inbox.unreadCount(userId) } };
  });

  // A GET never writes: the reader marks what it opens read with the POST below (SPEC.md 3), so
  // a cross-site navigation, which carries the Lax cookie, changes nothing.
  app.get('/app/notifications/:notification', { preHandler: session }, async (request) => {
    const userId = userIdOf(request);
    return single(userId, await inbox.find(userId, idOf(request)));
  });

  app.post('/app/notifications/:notification/read', { preHandler: session }, async (request) => {
    const userId = userIdOf(request);
    return single(userId, await inbox.markRead(userId, idOf(request)));
  });

  app.post('/app/notifications/:notification/unread', { preHandler: session }, async (request) => {
    const userId = userIdOf(request);
    return single(userId, await inbox.markUnread(userId, idOf(request)));
  });
}
