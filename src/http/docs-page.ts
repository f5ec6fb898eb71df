// GET /docs: the API reference page, Swagger UI from the swagger-ui-dist package served by svc
// itself (no CDN: svc runs on networks without internet access), reading /api/openapi.json.
// The page and its start-up script are files of their own, so the policy allows no inline script.
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

export const DOCS_PATH = '/docs';
const ASSETS = '/docs/assets/';

// Swagger UI sets inline styles on its elements, so styles allow 'unsafe-inline'; scripts do not.
const POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc API reference</title>
<link rel="stylesheet" href="${ASSETS}swagger-ui.css">
<link rel="icon" type="image/png" href="${ASSETS}favicon-32x32.png">
</head>
<body>
<main id="swagger-ui"></main>
<script src="${ASSETS}swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/start.js"></script>
</body>
</html>
`;

// Tags start collapsed: expanded all at once (Swagger UI's 'list'), a document of 139 operations
// rendered the first tag's first 8 and then nothing more, with no error; each tag expanded on
// its own renders whole.
const START = `window.ui = SwaggerUIBundle({
  url: '/api/openapi.json',
  dom_id: '#swagger-ui',
  docExpansion: 'none',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  withCredentials: true,
});
`;

function swaggerUiRoot(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  const secure = { 'content-security-policy': POLICY, 'x-content-type-options': 'nosniff' };
  app.get(DOCS_PATH, async (_request, reply) =>
    reply
      .headers({ ...secure, 'cache-control': 'no-cache' })
      .type('text/html; charset=utf-8')
      .send(PAGE),
  );
  app.get(`${DOCS_PATH}/start.js`, async (_request, reply) =>
    reply
      .headers({ ...secure, 'cache-control': 'no-cache' })
      .type('text/javascript; charset=utf-8')
      .send(START),
  );
  await app.register(fastifyStatic, {
    root: swaggerUiRoot(),
    prefix: ASSETS,
    decorateReply: false,
    index: false,
    allowedPath: (pathName) => /^\/[\w.-]+\.(js|css|png)$/.test(pathName),
    setHeaders: (res) => {
      res.header('x-content-type-options', 'nosniff');
      res.header('cache-control', 'public, max-age=86400');
    },
  });
}
