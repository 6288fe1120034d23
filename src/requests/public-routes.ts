// The public side of file requests under /api/v2/r/{token}: no key, the URL is the capability.
// Mounted before authentication (see app.ts). A malformed or unknown token is 404
// REQUEST_NOT_FOUND; a closed, expired or full request 410 (REQUEST_CLOSED, REQUEST_EXPIRED,
// REQUEST_FULL) on every path.
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { addFallbacks, methodNotAllowed, offersHead } from '../http/fallbacks';
import { origins, storage } from '../http/request-deps';
import { publicRoute } from '../http/route-needs';
import { effectiveMethod } from '../tus/http';
import { anyRequest, checkPassword, countUpload, openRequest } from './access';
import { onRequestReceived, receiptOf } from './hooks';
import { requestConfig } from './limits';
import { requestOwner } from './owner';
import { requestTusUrl, requestUploadUrl } from './records';
import {
  createRequestUpload,
  headRequestUpload,
  patchRequestUpload,
  receivedFile,
  terminateRequestUpload,
} from './tus-routes';
import { type ReceiveDeps, receiveFiles, receiveRawFile } from './upload';

/** Where the public paths live: the tus ones get the tus protocol middleware (app.ts). */
export const REQUEST_TUS_PATHS = ['/api/v2/r/:token/tus', '/api/v2/r/:token/tus/*'];

/** An upload through the request (a form or a raw body): open, the right password, within its throttles. */
async function admitUpload(c: Context<AppEnv>) {
  const request = await openRequest(c);
  await checkPassword(c, request);
  await countUpload(c, request);
  const config = c.get('config');
  const deps: ReceiveDeps = {
    ...storage(c),
    counters: c.env.FILE_REQUESTS,
    config: requestConfig(config, request),
    owner: requestOwner(config, request),
    signal: c.req.raw.signal,
    waitUntil: (promise: Promise<unknown>) => c.executionCtx.waitUntil(promise),
  };
  return { request, deps };
}

async function uploadForm(c: Context<AppEnv>): Promise<Response> {
  const { request, deps } = await admitUpload(c);
  const { rows, failures, counts } = await receiveFiles(deps, request, c.req.raw);
  if (counts) await onRequestReceived({ db: c.env.DB, events: deps.events, request, files: rows, counts });
  const first = failures[0];
  if (rows.length === 0 && first) throw first.error;
  const refused = failures.map(({ name, error }) => ({
    success: false as const,
    name,
    error: error.message,
    code: error instanceof ApiError ? error.code : 'UPLOAD_FAILED',
  }));
  return c.json({ success: true as const, data: { files: [...rows.map(receiptOf), ...refused] } }, 201);
}

/** `PUT {uploadUrl}/{filename}`: one file as the raw body (`curl -T file {uploadUrl}/`), the form's rules. */
async function uploadRaw(c: Context<AppEnv>): Promise<Response> {
  const { request, deps } = await admitUpload(c);
  const { rows, counts } = await receiveRawFile(deps, request, c.req.raw, c.req.param('filename') ?? '');
  if (counts) await onRequestReceived({ db: c.env.DB, events: deps.events, request, files: rows, counts });
  return c.json({ success: true as const, data: { files: rows.map(receiptOf) } }, 201);
}

/** What an uploader may know of the request: its message and limits. Never the owner, the counts or other files. */
async function describe(c: Context<AppEnv>): Promise<Response> {
  const request = await openRequest(c);
  await checkPassword(c, request);
  const config = requestConfig(c.get('config'), request);
  const base = origins(c);
  const data = {
    message: request.message,
    maxFiles: request.max_files,
    maxFileSize: config.MAX_FILE_SIZE,
    maxBytes: request.max_bytes,
    allowedTypes: config.ALLOWED_FILE_TYPES,
    expiresAt: request.expires_at,
    uploadUrl: requestUploadUrl(base, request.token),
    tusUrl: requestTusUrl(base, request.token),
  };
  return c.json({ success: true as const, data }, 200);
}

/** A request to an upload of the request: the request must be known and the password right. */
async function onUpload(c: Context<AppEnv>, method: string): Promise<Response> {
  const request = await anyRequest(c);
  await checkPassword(c, request);
  const id = c.req.param('id') ?? '';
  if (method === 'PATCH') return patchRequestUpload(c, request, id);
  if (method === 'DELETE') return terminateRequestUpload(c, request, id);
  if (method === 'HEAD') {
    const response = await headRequestUpload(c, request, id);
    return new Response(null, { status: response.status, headers: response.headers });
  }
  throw methodNotAllowed(c.req.method, ['GET', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS']);
}

export function createRequestPublicRouter() {
  const router = new Hono<AppEnv>();
  router.get('/r/:token', publicRoute, describe);
  router.post('/r/:token/upload', publicRoute, uploadForm);
  router.put('/r/:token/upload/:filename', publicRoute, uploadRaw);
  router.post('/r/:token/tus', publicRoute, async (c) => {
    const request = await openRequest(c);
    await checkPassword(c, request);
    await countUpload(c, request);
    return createRequestUpload(c, request);
  });
  // Hono dispatches HEAD as GET: one route for both. GET is the uploader's receipt.
  router.get('/r/:token/tus/:id', publicRoute, async (c) => {
    if (c.req.method === 'HEAD') return onUpload(c, 'HEAD');
    const request = await anyRequest(c);
    await checkPassword(c, request);
    const row = await receivedFile(c, request, c.req.param('id'));
    return c.json({ success: true as const, data: receiptOf(row) }, 200);
  });
  router.patch('/r/:token/tus/:id', publicRoute, (c) => onUpload(c, 'PATCH'));
  router.delete('/r/:token/tus/:id', publicRoute, (c) => onUpload(c, 'DELETE'));
  // X-HTTP-Method-Override: a POST that means PATCH, DELETE or HEAD.
  router.post('/r/:token/tus/:id', publicRoute, (c) => onUpload(c, effectiveMethod(c.req.raw)));
  offersHead(router, '/r/:token');
  offersHead(router, '/r/:token/tus/:id');
  // Other methods on these paths: 405 with Allow (OPTIONS is answered before: CORS, tus discovery).
  addFallbacks(router, { also: ['OPTIONS'] });
  return router;
}
