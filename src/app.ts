import { Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { createReportRouter } from './abuse/report-routes';
import { documentBeside, openApiDocument } from './api/openapi';
import { createV1Router } from './api/v1';
import { createV2Router } from './api/v2';
import type { Config } from './config';
import type { AppEnv } from './env';
import { ApiError } from './errors';
import { RAW_UPLOAD_HEADERS } from './files/raw-upload-routes';
import { renderError } from './http/errors';
import { notFound } from './http/fallbacks';
import { createAdminRouter } from './keys/admin-routes';
import { createMcpRouter, MCP_PATH, mcpRefusals, RESOURCE_METADATA_PATHS } from './mcp/routes';
import { authenticate } from './middleware/auth';
import { idempotency } from './middleware/idempotency';
import { perf } from './middleware/perf';
import { loadConfig, requestContext } from './middleware/request-context';
import { createOAuthRouter } from './oauth/routes';
import { createPagesRouter } from './pages/routes';
import { createRequestPageRouter } from './requests/page-routes';
import { createRequestPublicRouter, REQUEST_TUS_PATHS } from './requests/public-routes';
import { createShareRouter } from './share/routes';
import { TUS_REQUEST_HEADERS, TUS_RESPONSE_HEADERS, tusProtocol, UPLOADS_PATH } from './tus/http';
import { REQUEST_TUS_EXTENSIONS } from './tus/protocol';

// One CORS middleware per configuration (parsed once per env), not one per request.
const corsFor = new WeakMap<Config, MiddlewareHandler>();
const answered = async () => {};

function apiCors(config: Config): MiddlewareHandler {
  const cached = corsFor.get(config);
  if (cached) return cached;
  const origins = config.CORS_ORIGINS;
  const handler = cors({
    origin: origins.includes('*') ? '*' : origins,
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    // Every request header the API honours, so a browser's preflight lets them through.
    allowHeaders: [
      'Authorization',
      'Content-Type',
      'Range',
      'If-None-Match',
      'If-Modified-Since',
      'If-Range',
      'X-Request-Id',
      'Idempotency-Key',
      // MCP clients send the protocol version they speak on every POST /mcp.
      'Mcp-Protocol-Version',
      ...RAW_UPLOAD_HEADERS,
      ...TUS_REQUEST_HEADERS,
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
      'Idempotency-Replayed',
      'Repr-Digest',
      ...TUS_RESPONSE_HEADERS,
    ],
    maxAge: 600,
  });
  corsFor.set(config, handler);
  return handler;
}

/** A preflight (OPTIONS) under /api, answered by Hono's cors; any other request goes on. */
const corsPreflight: MiddlewareHandler<AppEnv> = async function corsPreflight(c, next) {
  if (c.req.method !== 'OPTIONS') return next();
  return apiCors(c.get('config'))(c, next);
};

/**
 * The CORS headers of an actual request under /api, added by Hono's cors once the answer exists
 * (errors included: they are rendered into c.res before this runs on). Run before the route,
 * as cors does, they would go on a placeholder response Hono then copies into the route's own
 * (two responses more per request). Mounted outside perf, so their time is not in `_perf`'s
 * gap to Server-Timing. An answer given before the configuration was parsed (a configuration
 * error) gets none, as before.
 */
const corsHeaders: MiddlewareHandler<AppEnv> = async function corsHeaders(c, next) {
  await next();
  const config = c.get('config');
  if (c.req.method === 'OPTIONS' || !config) return;
  await apiCors(config)(c, answered);
};

export function createApp() {
  const app = new Hono<AppEnv>();
  app.onError(renderError);
  // Returned, not thrown: a throw from notFound skips the middleware's after-steps (X-Request-Id, log line).
  app.notFound((c) => renderError(new ApiError('NOT_FOUND'), c));

  // perf runs before config is parsed, so even a configuration error carries v2's _perf.
  app.use('*', requestContext());
  app.use('/api/*', corsHeaders);
  app.use(MCP_PATH, corsHeaders);
  // The protected-resource documents, read by browser-based MCP clients (the authorization
  // server's own endpoints answer CORS themselves, src/oauth/).
  for (const path of RESOURCE_METADATA_PATHS) app.use(path, corsHeaders);
  app.use('/api/v2/*', perf());
  app.use('*', loadConfig());
  app.get('/health', (c) => c.json({ status: 'ok' }));
  // tus: Tus-Resumable on every answer, 412 for another version, discovery on OPTIONS (before CORS answers it).
  app.use(UPLOADS_PATH, tusProtocol());
  app.use(`${UPLOADS_PATH}/*`, tusProtocol());
  for (const path of REQUEST_TUS_PATHS) app.use(path, tusProtocol(REQUEST_TUS_EXTENSIONS));

  app.use('/api/*', corsPreflight);
  app.use(MCP_PATH, corsPreflight);
  for (const path of RESOURCE_METADATA_PATHS) app.use(path, corsPreflight);

  const v1 = createV1Router();
  const v2 = createV2Router();
  const requestPublic = createRequestPublicRouter();
  const reports = createReportRouter();
  documentBeside(v2, requestPublic);
  documentBeside(v2, reports);
  // The API descriptions are public: registered before auth, and without _perf.
  // Each documents what its version's router registers (routers mounted on it included); a route
  // mounted under /api/vN some other way (the public file-request paths) must add its operations
  // to that router's (documentBeside), or test/api/openapi-document.node.test.ts fails.
  for (const [version, router] of [
    ['v1', v1],
    ['v2', v2],
  ] as const) {
    // A document, not an API answer: serialised here, so v2's _perf (added by c.json) stays out.
    app.get(`/api/${version}/openapi.json`, (c) =>
      c.body(JSON.stringify(openApiDocument(router, version, new URL(c.req.url).origin)), 200, {
        'Content-Type': 'application/json',
      }),
    );
  }

  // File requests' public paths carry no key (the URL is the capability): before authentication,
  // each declared PUBLIC (route-needs.ts), which authentication refuses should one ever reach it.
  app.route('/api/v2', requestPublic);
  // Abuse reports: anyone, no key (docs/abuse.md).
  app.route('/api/v2', reports);
  app.use('/api/*', authenticate());
  // After authentication (it needs the account); before every v2 route, tus creation included.
  app.use('/api/v2/*', idempotency());
  app.route('/api/v1', v1);
  app.route('/api/v2', v2);
  // Any other /api path (another version): 404 for a valid key.
  app.all('/api/*', notFound);

  // MCP (agents): POST /mcp with a key, counted once by the key's rate limit whatever it calls; other
  // methods are 405 without one. The protected-resource metadata its 401 points to is public.
  // An OAuth client's access token works there too (src/oauth/), as the key it was granted with.
  const authenticateMcp = authenticate({ oauth: true });
  app.use(MCP_PATH, mcpRefusals());
  app.use(MCP_PATH, (c, next) => (c.req.method === 'POST' ? authenticateMcp(c, next) : next()));
  app.route('/', createMcpRouter());
  // OAuth 2.1 for MCP clients: metadata, registration, token and the /authorize page, without a key.
  app.route('/', createOAuthRouter());

  app.route('/share', createShareRouter());
  app.route('/r', createRequestPageRouter());
  app.route('/admin', createAdminRouter());
  // Pages for people (/keys, /docs); their static files are Workers static assets (public/).
  app.route('/', createPagesRouter());
  return app;
}
