import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { addFallbacks, createFilesRouter } from './api/files-router';
import { openApiDocument } from './api/openapi';
import type { AppEnv } from './env';
import { ApiError } from './errors';
import { renderError } from './http/errors';
import { createAdminRouter } from './keys/admin-router';
import { authenticate } from './middleware/auth';
import { perf } from './middleware/perf';
import { loadConfig, requestContext } from './middleware/request-context';
import { createPagesRouter } from './pages/router';
import { createShareRouter } from './share/router';

const FILE_PATHS = {
  '/upload': ['POST'],
  '/files': ['GET'],
  '/files/:id': ['GET', 'HEAD', 'DELETE'],
  '/files/:id/download': ['GET', 'HEAD'],
};
const V2_PATHS = { '/upload/bulk': ['POST'], '/files/bulk': ['DELETE'], ...FILE_PATHS };

export function createApp() {
  const app = new Hono<AppEnv>();
  app.onError(renderError);
  // Returned, not thrown: a throw from notFound skips the middleware's after-steps (X-Request-Id, log line).
  app.notFound((c) => renderError(new ApiError('NOT_FOUND'), c));

  // perf runs before config is parsed, so even a configuration error carries v2's _perf.
  app.use('*', requestContext());
  app.use('/api/v2/*', perf());
  app.use('*', loadConfig());
  app.get('/health', (c) => c.json({ status: 'ok' }));

  app.use('/api/*', async (c, next) => {
    const origins = c.get('config').CORS_ORIGINS;
    return cors({
      origin: origins.includes('*') ? '*' : origins,
      allowMethods: ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'],
      // Every request header the API honours, so a browser's preflight lets them through.
      allowHeaders: [
        'Authorization',
        'Content-Type',
        'Range',
        'If-None-Match',
        'If-Modified-Since',
        'If-Range',
        'X-Request-Id',
      ],
      // Beyond the safelisted ones (Content-Length, Content-Type, Last-Modified, …): what clients read.
      exposeHeaders: [
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'Retry-After',
        'Content-Disposition',
        'Content-Range',
        'Accept-Ranges',
        'ETag',
        'Content-Length',
        'Last-Modified',
        'Allow',
        'WWW-Authenticate',
        'Server-Timing',
        'X-Request-Id',
      ],
      maxAge: 600,
    })(c, next);
  });

  const v1 = createFilesRouter('v1');
  const v2 = createFilesRouter('v2');
  // The API descriptions are public: registered before auth (and _perf), so neither reaches them.
  for (const [version, router] of [
    ['v1', v1],
    ['v2', v2],
  ] as const) {
    app.get(`/api/${version}/openapi.json`, (c) => c.json(openApiDocument(router, version, new URL(c.req.url).origin)));
  }

  app.use('/api/*', authenticate());
  addFallbacks(v1, FILE_PATHS);
  addFallbacks(v2, V2_PATHS);
  app.route('/api/v1', v1);
  app.route('/api/v2', v2);

  app.route('/share', createShareRouter());
  app.route('/admin', createAdminRouter());
  // Pages for people (/keys, /docs); their static files are Workers static assets (public/).
  app.route('/', createPagesRouter());
  return app;
}
