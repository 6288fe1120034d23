import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { addFallbacks, createFilesRouter } from './api/files-router';
import type { AppEnv } from './env';
import { ApiError } from './errors';
import { renderError } from './http/errors';
import { createAdminRouter } from './keys/admin-router';
import { apiKeyAuth } from './middleware/auth';
import { rateLimit } from './middleware/rate-limit';
import { requestContext } from './middleware/request-context';
import { createShareRouter } from './share/router';

const FILE_PATHS = {
  '/upload': ['POST'],
  '/files': ['GET'],
  '/files/:id': ['GET', 'HEAD', 'DELETE'],
  '/files/:id/download': ['GET', 'HEAD'],
};

export function createApp() {
  const app = new Hono<AppEnv>();
  app.onError(renderError);
  app.notFound(() => {
    throw new ApiError('NOT_FOUND');
  });

  app.use('*', requestContext());
  app.get('/health', (c) => c.json({ status: 'ok' }));

  app.use('/api/*', async (c, next) => {
    const origins = c.get('config').CORS_ORIGINS;
    return cors({
      origin: origins.includes('*') ? '*' : origins,
      allowMethods: ['GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS'],
      allowHeaders: ['Authorization', 'Content-Type', 'Range', 'If-None-Match', 'X-Request-Id'],
      exposeHeaders: [
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'Retry-After',
        'Content-Disposition',
        'Content-Range',
        'ETag',
        'Server-Timing',
        'X-Request-Id',
      ],
      maxAge: 600,
    })(c, next);
  });
  app.use('/api/*', apiKeyAuth(), rateLimit());

  const v1 = createFilesRouter('v1');
  addFallbacks(v1, FILE_PATHS);
  app.route('/api/v1', v1);

  app.route('/share', createShareRouter());
  app.route('/admin', createAdminRouter());
  return app;
}
