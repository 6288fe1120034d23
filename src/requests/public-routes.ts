// The public side of file requests under /api/v2/r/{token}: no key, the URL is the capability.
// Mounted before authentication (see app.ts). A malformed or unknown token is 404
// REQUEST_NOT_FOUND; a closed, expired or full request 410 (REQUEST_CLOSED, REQUEST_EXPIRED,
// REQUEST_FULL) on every path.
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { RAW_BODY_REQUEST } from '../files/raw-upload-routes';
import { addFallbacks, methodNotAllowed, offersHead } from '../http/fallbacks';
import { errorsWith, serveDocumented } from '../http/openapi';
import { origins, storage } from '../http/request-deps';
import { publicRoute } from '../http/route-needs';
import { versionRouter } from '../http/validation';
import { noteReceived, recordVisits } from '../http/visit-log';
import { basicOf, visitOf, visitorDeps } from '../http/visitor';
import type { RequestWithOwner } from '../storage/requests-repo';
import { effectiveMethod } from '../tus/http';
import { offsetStream } from '../tus/schemas';
import type { VisitKind } from '../visitors/service';
import { type RequestEntry, visitRequest } from './access';
import { onRequestReceived, receiptOf } from './hooks';
import { requestConfig } from './limits';
import { requestE2e, requestOwner } from './owner';
import { requestTusUrl, requestUploadUrl } from './records';
import { requestLogs } from './request-counter-client';
import {
  PUBLIC_CODES,
  PUBLIC_ERROR_DESCRIPTIONS,
  ReceiptSchema,
  RequestFilesFormSchema,
  RequestInfoSchema,
  RequestRawUploadParamSchema,
  RequestTokenParamSchema,
  RequestUploadParamSchema,
  TusResumableHeader,
  UploadReceiptSchema,
} from './schemas';
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

/**
 * One visit of the request's URLs (src/requests/access.ts): the token's request, the password
 * (HTTP Basic), the throttles, then `serve`.
 */
function visit<A>(
  c: Context<AppEnv>,
  kind: VisitKind,
  entry: RequestEntry,
  serve: (request: RequestWithOwner) => Promise<A>,
): Promise<A> {
  const deps = { ...visitorDeps(c), db: storage(c).db, counters: c.env.FILE_REQUESTS, config: c.get('config') };
  // A page's own script (fetch, XMLHttpRequest, tus-js-client) is not a navigation.
  const mode = c.req.header('sec-fetch-mode');
  const fromScript = mode !== undefined && mode !== 'navigate';
  return visitRequest(deps, visitOf(c, kind, { password: basicOf(c) }), { ...entry, fromScript }, serve);
}

/**
 * An upload through the request (a form or a raw body): open, the right password, within its
 * throttles. The visit admits it; receiving the files follows.
 */
async function admitUpload(c: Context<AppEnv>) {
  const request = await visit(c, 'upload', { taking: 'open', upload: true }, async (admitted) => admitted);
  const config = c.get('config');
  const deps: ReceiveDeps = {
    ...storage(c),
    counters: c.env.FILE_REQUESTS,
    config: requestConfig(config, request),
    owner: requestOwner(config, request),
    e2e: requestE2e(config, request),
    signal: c.req.raw.signal,
    waitUntil: (promise: Promise<unknown>) => c.executionCtx.waitUntil(promise),
  };
  return { request, deps };
}

async function uploadForm(c: Context<AppEnv>): Promise<Response> {
  const { request, deps } = await admitUpload(c);
  const { rows, failures, counts } = await receiveFiles(deps, request, c.req.raw);
  noteReceived(
    c,
    rows.reduce((sum, row) => sum + row.size, 0),
  );
  if (counts) await onRequestReceived({ db: deps.db, events: deps.events, request, files: rows, counts });
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
  noteReceived(
    c,
    rows.reduce((sum, row) => sum + row.size, 0),
  );
  if (counts) await onRequestReceived({ db: deps.db, events: deps.events, request, files: rows, counts });
  return c.json({ success: true as const, data: { files: rows.map(receiptOf) } }, 201);
}

/** What an uploader may know of the request: its message and limits. Never the owner, the counts or other files. */
const describe = (c: Context<AppEnv>) =>
  visit(c, 'page', { taking: 'open' }, async (request) => answerDescription(c, request));

function answerDescription(c: Context<AppEnv>, request: RequestWithOwner): Response {
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
    e2e: request.e2e === 1,
  };
  return c.json({ success: true as const, data }, 200);
}

/** A request to an upload of the request: the request must be known and the password right. */
const onUpload = (c: Context<AppEnv>, method: string) =>
  visit(c, 'upload', { taking: 'any' }, (request) => answerUpload(c, request, method));

async function answerUpload(c: Context<AppEnv>, request: RequestWithOwner, method: string): Promise<Response> {
  const id = c.req.param('id') ?? '';
  if (method === 'PATCH') return patchRequestUpload(c, request, id);
  if (method === 'DELETE') return terminateRequestUpload(c, request, id);
  if (method === 'HEAD') {
    const response = await headRequestUpload(c, request, id);
    return new Response(null, { status: response.status, headers: response.headers });
  }
  throw methodNotAllowed(c.req.method, ['GET', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS']);
}

type RouteConfig = Parameters<typeof createRoute>[0];

const tags = ['File requests (public, no key)'];
const receipt = (schema: typeof ReceiptSchema | typeof UploadReceiptSchema, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

const ERRORS = [400, 401, 404, 410, 413, 415, 422, 429, 503];

/** The error responses of a public path: the shared envelope, described for uploaders. */
const described = (statuses: number[]) => {
  const responses = errorsWith(PUBLIC_CODES, ...statuses) as Record<string, { description: string }>;
  for (const status of statuses) {
    const response = responses[status];
    const description = PUBLIC_ERROR_DESCRIPTIONS[status];
    if (response && description) response.description = description;
  }
  const unauthorized = responses[401] as { headers?: object } | undefined;
  if (unauthorized)
    unauthorized.headers = {
      'WWW-Authenticate': {
        description: '`Basic realm="file request", charset="UTF-8"`, except to a page’s own script',
        schema: { type: 'string' as const },
      },
    };
  return responses;
};

/** A public path's definition: no key (`security: []`), in the uploaders' group. */
const uploaderRoute = <R extends RouteConfig>(route: R) => createRoute({ ...route, security: [], tags });

const describeRoute = uploaderRoute({
  method: 'get',
  path: '/r/{token}',
  operationId: 'describeFileRequest',
  summary: 'What an uploader may know of a request: its message and limits',
  request: { params: RequestTokenParamSchema },
  responses: {
    200: {
      description: 'The message and the limits (never the owner, the counts or other files)',
      content: { 'application/json': { schema: RequestInfoSchema } },
    },
    ...described([401, 404, 410, 429]),
  },
});

const formRoute = uploaderRoute({
  method: 'post',
  path: '/r/{token}/upload',
  operationId: 'uploadToFileRequest',
  summary: 'Send files to a request (multipart, parts named file; the URL is the capability)',
  description:
    'All or nothing while the body is read: a file refused (type, size, the request full, the owner’s quota) ' +
    'fails the request and nothing of it is kept. The answer is the uploader’s receipt: names, sizes, types.',
  request: {
    params: RequestTokenParamSchema,
    body: { required: true, content: { 'multipart/form-data': { schema: RequestFilesFormSchema } } },
  },
  responses: { 201: receipt(ReceiptSchema, 'Received'), ...described(ERRORS) },
});

const rawRoute = uploaderRoute({
  method: 'put',
  path: '/r/{token}/upload/{filename}',
  operationId: 'uploadRawToFileRequest',
  summary: 'Send one file to a request as the raw body (`curl -T file {uploadUrl}/`)',
  description:
    'Every rule of POST {uploadUrl} (limits, types, password, throttles, nothing kept when refused) and of ' +
    'PUT /upload/{filename}: with Content-Length one streamed R2 put, a chunked body the streamed multipart ' +
    'writer; Content-Type is the declared type; a `Repr-Digest`/`Content-Digest` (`sha-256=:<base64>:`) is ' +
    'checked, a mismatch is 400 DIGEST_MISMATCH. The answer is the uploader’s receipt.',
  request: { params: RequestRawUploadParamSchema, ...RAW_BODY_REQUEST },
  responses: { 201: receipt(ReceiptSchema, 'Received'), ...described([...ERRORS, 408]) },
});

const tusCreateRoute = uploaderRoute({
  method: 'post',
  path: '/r/{token}/tus',
  operationId: 'createFileRequestUpload',
  summary:
    'tus creation through a request (the extensions of /uploads but concatenation: Upload-Concat is 400; no key)',
  description:
    'Upload-Length is checked against the request’s limits and the owner’s quota, and held, before any byte ' +
    'is kept. Upload-Metadata: filename, filetype (isPublic and expiresIn are the request’s).',
  request: { params: RequestTokenParamSchema, headers: [TusResumableHeader], body: offsetStream(false) },
  responses: {
    201: {
      description: 'Created',
      headers: {
        Location: { description: 'The upload’s URL (under the tusUrl)', schema: { type: 'string' as const } },
      },
    },
    ...described([...ERRORS, 412, 460]),
  },
});

const upload = { params: RequestUploadParamSchema, headers: [TusResumableHeader] };

const receiptRoute = uploaderRoute({
  method: 'get',
  path: '/r/{token}/tus/{id}',
  operationId: 'getFileRequestUploadReceipt',
  summary: 'The uploader’s receipt of a completed upload: name, size, type (nothing else of the account)',
  request: { params: RequestUploadParamSchema },
  responses: { 200: receipt(UploadReceiptSchema, 'The receipt'), ...described([401, 404, 409, 410]) },
});

// Hono answers HEAD through the GET route (it dispatches HEAD as GET): documented as its own operation.
const offsetRoute = uploaderRoute({
  method: 'head',
  path: '/r/{token}/tus/{id}',
  operationId: 'getFileRequestUploadOffset',
  summary: 'Where to resume an upload made through the request',
  request: upload,
  responses: { 204: { description: 'Upload-Offset, Upload-Length' }, ...described([401, 404, 410, 412]) },
});

const appendRoute = uploaderRoute({
  method: 'patch',
  path: '/r/{token}/tus/{id}',
  operationId: 'appendToFileRequestUpload',
  summary: 'Append bytes; once the request is closed or expired, the upload ends (410) and all it held is freed',
  request: { ...upload, body: offsetStream(true) },
  responses: { 204: { description: 'Stored: Upload-Offset' }, ...described([...ERRORS, 409, 412, 460]) },
});

const terminateRoute = uploaderRoute({
  method: 'delete',
  path: '/r/{token}/tus/{id}',
  operationId: 'terminateFileRequestUpload',
  summary: 'End an unfinished upload made through the request',
  request: upload,
  responses: { 204: { description: 'Terminated' }, ...described([401, 404, 410, 412]) },
});

const overrideRoute = uploaderRoute({
  method: 'post',
  path: '/r/{token}/tus/{id}',
  operationId: 'overrideFileRequestUploadMethod',
  summary: 'PATCH, HEAD or DELETE for clients that cannot send them (X-HTTP-Method-Override)',
  request: { ...upload, body: offsetStream(false) },
  responses: {
    204: { description: 'As the overriding method answers' },
    ...described([...ERRORS, 405, 409, 412]),
  },
});

/**
 * The public paths, served and documented from their definitions (app.ts mounts them before
 * authentication and adds their definitions to v2's document). Their handlers read the token,
 * the password and tus's headers themselves: nothing is validated by zod.
 */
export function createRequestPublicRouter() {
  const router = versionRouter();
  // Every visit of the request's URLs goes to its access log once answered.
  router.use('/r/*', recordVisits(requestLogs));
  serveDocumented(router, describeRoute, publicRoute, describe);
  serveDocumented(router, formRoute, publicRoute, uploadForm);
  serveDocumented(router, rawRoute, publicRoute, uploadRaw);
  serveDocumented(router, tusCreateRoute, publicRoute, (c) =>
    visit(c, 'upload', { taking: 'open', upload: true }, (request) => createRequestUpload(c, request)),
  );
  // Hono dispatches HEAD as GET: one route for both. GET is the uploader's receipt.
  serveDocumented(router, receiptRoute, publicRoute, (c) => {
    if (c.req.method === 'HEAD') return onUpload(c, 'HEAD');
    return visit(c, 'upload', { taking: 'any' }, async (request) => {
      const row = await receivedFile(c, request, c.req.param('id') ?? '');
      return c.json({ success: true as const, data: receiptOf(row) }, 200);
    });
  });
  router.openAPIRegistry.registerPath(offsetRoute);
  serveDocumented(router, appendRoute, publicRoute, (c) => onUpload(c, 'PATCH'));
  serveDocumented(router, terminateRoute, publicRoute, (c) => onUpload(c, 'DELETE'));
  // X-HTTP-Method-Override: a POST that means PATCH, DELETE or HEAD.
  serveDocumented(router, overrideRoute, publicRoute, (c) => onUpload(c, effectiveMethod(c.req.raw)));
  offersHead(router, '/r/:token');
  offersHead(router, '/r/:token/tus/:id');
  // Other methods on these paths: 405 with Allow (OPTIONS is answered before: CORS, tus discovery).
  addFallbacks(router, { also: ['OPTIONS'] });
  return router;
}
