// The admin front end (DESIGN.md 3.7, issue 18) as svc serves it: the single-page app that
// scripts/build-web.mjs builds into dist/web. Hashed assets under /admin/assets/ with a year of
// caching (their names change with their content), index.html never cached and answered for
// every other GET under /admin/ (the app routes in the browser: history mode), a strict
// Content-Security-Policy (no inline script or style; WebSocket for the Pusher-protocol socket),
// GET / sent to /admin/, and the XSRF-TOKEN cookie of an expired session dropped with the page.
// Unknown /api/* routes are untouched: still the JSON 404.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { XSRF_COOKIE } from '../auth/session/session-auth.js';

export interface AdminRouteOptions {
  /** The built app: index.html and assets/ (dist/web). */
  readonly root: string;
  /** Whether the request's session cookie names a live session (SessionAuth.isLive). */
  readonly sessionLive?: (request: FastifyRequest) => Promise<boolean>;
}

/** dist/web of this checkout: src/http/ and dist/http/ are both two folders below the root. */
export const DEFAULT_ADMIN_ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'dist',
  'web',
);

export const ADMIN_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  // The Pusher-protocol socket: this service's own, or PUSHER_HOST's.
  "connect-src 'self' ws: wss:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT =
  'The admin front end is not built: run `npm run build` (npm install and npm start do it).\n';

function documentHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', ADMIN_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-cache');
}

export function registerAdminRoutes(app: FastifyInstance, options: AdminRouteOptions): void {
  const index = path.join(options.root, 'index.html');

  app.get('/', (_request, reply) => reply.redirect('/admin/', 302));

  // Read at each request (a small file): a rebuild is served without a restart.
  const sendIndex = async (request: FastifyRequest, reply: FastifyReply) => {
    const html = await readFile(index, 'utf8').catch(() => null);
    if (html === null)
      return documentHeaders(reply).code(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
    // The app asks GET /app/session only while the readable XSRF-TOKEN cookie is there; one left
    // by a session that expired goes with the page, so the visit meets no 401.
    const { sessionLive } = options;
    if (request.cookies[XSRF_COOKIE] !== undefined && sessionLive && !(await sessionLive(request)))
      reply.clearCookie(XSRF_COOKIE, { path: '/' });
    return documentHeaders(reply).type('text/html; charset=utf-8').send(html);
  };
  app.get('/admin', sendIndex);
  app.get('/admin/*', sendIndex);

  app.register(fastifyStatic, {
    root: path.join(options.root, 'assets'),
    prefix: '/admin/assets/',
    decorateReply: false,
    index: false,
    // The folder may not exist before the first build; /admin/ says so then.
    suppressWarning: true,
    preCompressed: true,
    cacheControl: false,
    setHeaders(reply) {
      reply.header('cache-control', 'public, max-age=31536000, immutable');
      reply.header('x-content-type-options', 'nosniff');
    },
  });
}
