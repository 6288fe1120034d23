// The tus 1.0.0 routes at /api/v2/uploads: creation (with upload), HEAD, PATCH, termination, and
// GET of the file a completed upload became. Each route's definition is served and documented:
// v2's table of contents (api/v2.ts) mounts them.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { ApiError, rateLimited } from '../errors';
import { fileRecord } from '../files/records';
import { FileIdParamSchema, FileRecordV2 } from '../files/schemas';
import { keyOwner } from '../files/upload-owner';
import { addFallbacks, allowedMethods, methodNotAllowed, offersHead } from '../http/fallbacks';
import { E2E_UPLOAD_ERRORS, errors, ok, RATE_LIMIT_HEADERS, serveDocumented } from '../http/openapi';
import { origins, storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { versionRouter } from '../http/validation';
import { countRequest, keyStillActive, rateLimitHeaders } from '../limiter/key-limiter-client';
import { uploadE2e, uploadRules } from '../policy/routes';
import { successV2 } from '../schemas';
import { createFinalUpload } from './concat';
import { effectiveMethod, isUncountedTransfer, UPLOADS_PATH } from './http';
import {
  appendHeaders,
  created,
  creationRequest,
  finalCreationRequest,
  patchBody,
  statusHeaders,
  untilDone,
} from './messages';
import { parseUploadConcat } from './protocol';
import {
  APPENDED_HEADERS,
  CHECKSUM,
  CREATED_HEADERS,
  DISCOVERY_HEADERS,
  OVERRIDDEN_HEADERS,
  offsetStream,
  requestHeader,
  STATUS_HEADERS,
  TUS_ERROR_DESCRIPTIONS,
  TUS_REQUEST,
  TUS_RESUMABLE,
  type TusHeader,
  text,
} from './schemas';
import {
  type AppendBody,
  type AppendOutcome,
  appendToOwnUpload,
  createUpload,
  terminateUpload,
  type UploadsDeps,
  uploadedFile,
  uploadStatus,
} from './service';

function deps(c: Context<AppEnv>): UploadsDeps {
  return {
    ...storage(c),
    uploads: c.env.TUS_UPLOADS,
    config: c.get('config'),
    owner: keyOwner(c.get('apiKey')),
    e2e: uploadE2e(c),
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    keyStillActive: () => keyStillActive(c.env.KEY_LIMITER, storage(c).db, c.get('apiKey').id),
    rules: uploadRules(c),
  };
}

// tusProtocol (tus/http.ts) answers OPTIONS on every tus path before this router: discovery.
const ANSWERED_BEFORE = ['OPTIONS'];
const uploadUrl = (c: Context<AppEnv>, id: string) => `${origins(c).api}/api/v2/uploads/${id}`;

/**
 * A PATCH is admitted without counting against the rate limit (see http.ts), and counted here
 * once it is known to have stored no byte: refused (an upload the key does not have, a wrong
 * offset, another PATCH writing, a malformed request), empty, or failed. Only a PATCH that moves
 * its upload's offset goes uncounted; past the limit any other is answered 429.
 */
async function countAfterAll(c: Context<AppEnv>): Promise<void> {
  try {
    const admission = await countRequest(c.env.KEY_LIMITER, c.get('apiKey'));
    const state = { limit: admission.limit, remaining: admission.remaining, reset: admission.reset };
    c.set('rateLimit', state);
    if (!admission.allowed) throw rateLimited(state.reset, undefined, rateLimitHeaders(state));
  } catch (countError) {
    if (countError instanceof ApiError) throw countError;
  }
}

async function head(c: Context<AppEnv>, id: string): Promise<Response> {
  const status = await uploadStatus(deps(c), id);
  return c.body(null, 204, statusHeaders(status));
}

async function patch(c: Context<AppEnv>, id: string): Promise<Response> {
  let request: AppendBody | undefined;
  let outcome: AppendOutcome;
  try {
    request = patchBody(c);
    outcome = await untilDone(c, appendToOwnUpload(deps(c), id, request));
  } catch (error) {
    // A key revoked while its PATCH streamed is no key any more: nothing to count it against.
    if (!(error instanceof ApiError && error.code === 'UNAUTHORIZED')) await countAfterAll(c);
    throw error;
  }
  if (outcome.offset === request.offset) await countAfterAll(c);
  return c.body(null, 204, appendHeaders(outcome));
}

async function terminate(c: Context<AppEnv>, id: string): Promise<Response> {
  await terminateUpload(deps(c), c.get('apiKey'), id);
  return c.body(null, 204);
}

/**
 * A final upload (tus concatenation): 201 with its Location and, at once, X-File-Id: it is a
 * complete file from the start (its digest follows a moment later).
 */
async function createFinal(c: Context<AppEnv>, urls: string[]): Promise<Response> {
  const { metadata } = finalCreationRequest(c);
  const row = await createFinalUpload(deps(c), { urls, metadata, uploadsPath: UPLOADS_PATH });
  return c.body(null, 201, {
    Location: uploadUrl(c, row.id),
    'Upload-Length': String(row.size),
    'Upload-Offset': String(row.size),
    'X-File-Id': row.id,
  });
}

/** Every tus route: an upload is files:write; a PATCH is counted only if it stores nothing (see http.ts). */
const TUS_NEEDS = { scope: 'files:write', uncounted: isUncountedTransfer } as const;

/** The error responses of a tus operation: the shared envelope, described for tus. */
function tusErrors(...statuses: number[]) {
  const responses = errors(...statuses) as Record<string, { description: string; headers?: object }>;
  for (const status of statuses) {
    const response = responses[status];
    const description = TUS_ERROR_DESCRIPTIONS[status];
    if (response && description) response.description = description;
  }
  const tooOld = responses[412];
  if (tooOld) tooOld.headers = { ...tooOld.headers, 'Tus-Version': text('Supported versions', true) };
  return responses;
}

const noContent = (description: string, headers: Record<string, TusHeader>) => ({
  description,
  headers: { ...RATE_LIMIT_HEADERS, ...TUS_RESUMABLE, ...headers },
});

// Answered by tusProtocol (http.ts) before any route: documented here, served by none.
const discover = createRoute({
  method: 'options',
  path: '/uploads',
  operationId: 'discoverUploads',
  summary: 'tus discovery (no key needed; CORS preflights get the same headers)',
  security: [],
  responses: { 204: { description: 'The server’s tus capabilities', headers: DISCOVERY_HEADERS } },
});

const create = createRoute({
  method: 'post',
  path: '/uploads',
  operationId: 'createUpload',
  summary: 'Create a resumable upload (tus creation, creation-with-upload, concatenation)',
  description:
    'Checks Upload-Length against MAX_FILE_SIZE and the key’s quota and file limit (413 before any byte) and ' +
    'reserves it until the upload ends; the metadata is checked after that. Upload-Metadata (optional) keys: ' +
    'filename, filetype, isPublic, expiresIn, as the multipart upload’s parts, and sha256 (the whole file’s, ' +
    'checked at the last byte: 400 DIGEST_MISMATCH ends the upload); without a filename the file is ' +
    'named `upload` plus the usual extension of filetype. A body (Content-Type: application/offset+octet-stream) is the first PATCH. ' +
    'Concatenation (parallel uploads): `Upload-Concat: partial` makes a partial upload (reserved and sent like any ' +
    'other, but never a file); `Upload-Concat: final;<url> <url> …` (no Upload-Length, no body) makes one file of ' +
    'complete partial uploads of the same account, in order, without copying their bytes: 201 with X-File-Id at once. ' +
    'The final’s sha256 is computed a moment after its creation. An expiresIn the account’s policy does not allow ' +
    '(or none, where it requires one and no default is configured), or isPublic true while a link bound applies ' +
    'that a default link cannot keep, is 422 POLICY_VIOLATION before any byte is kept (a partial upload’s ' +
    'metadata is not judged: its final’s is). `encryption age` (and `meta`, opaque base64url ≤ 4 KiB): ' +
    'the upload is an age file (docs/e2e.md): its header (which may arrive across PATCHes) is kept apart and its ' +
    'payload stored; a header or payload length that breaks the format is 422 E2E_INVALID and ends the upload. ' +
    'A final upload with `encryption age` takes the header from its first partial’s first bytes.',
  request: {
    headers: [
      TUS_REQUEST,
      requestHeader('Upload-Length', 'Size of the whole file in bytes (not for a final upload: 400)', false),
      requestHeader(
        'Upload-Concat',
        '`partial`, or `final;<url> <url> …` naming complete partial uploads (absolute URLs or paths) in order',
        false,
      ),
      requestHeader(
        'Upload-Metadata',
        'Optional comma-separated `key base64(value)` pairs (filename, filetype, isPublic, expiresIn, sha256, ' +
          'encryption, meta)',
      ),
      CHECKSUM,
    ],
    body: offsetStream(false),
  },
  responses: {
    201: noContent('Created', CREATED_HEADERS),
    ...tusErrors(400, 401, 404, 409, 410, 412, 413, 415, 429, 460, 503),
    ...E2E_UPLOAD_ERRORS,
  },
});

const params = FileIdParamSchema;

// Hono answers HEAD through the GET route (it dispatches HEAD as GET): documented as its own operation.
const offset = createRoute({
  method: 'head',
  path: '/uploads/{id}',
  operationId: 'getUploadOffset',
  summary: 'Where to resume: the upload’s offset',
  request: { params, headers: [TUS_REQUEST] },
  responses: {
    204: noContent('The upload’s state; `Cache-Control: no-store`', STATUS_HEADERS),
    ...tusErrors(401, 404, 410, 412, 429),
  },
});

const append = createRoute({
  method: 'patch',
  path: '/uploads/{id}',
  operationId: 'appendToUpload',
  summary: 'Append the body at Upload-Offset (not counted against the rate limit when it stores bytes)',
  description:
    'Any size up to the platform’s body limit (100 MB on Free/Pro). The last byte makes the file an ordinary ' +
    'file: the answer carries X-File-Id, and GET /uploads/{id} gives its record.',
  request: {
    params,
    headers: [
      TUS_REQUEST,
      requestHeader('Upload-Offset', 'Must be the upload’s offset (else 409)'),
      requestHeader('Content-Type', '`application/offset+octet-stream` (else 415)'),
      CHECKSUM,
    ],
    body: offsetStream(true),
  },
  responses: {
    204: noContent('Stored', APPENDED_HEADERS),
    ...tusErrors(400, 401, 403, 404, 409, 410, 412, 413, 415, 429, 460),
    ...E2E_UPLOAD_ERRORS,
  },
});

const remove = createRoute({
  method: 'delete',
  path: '/uploads/{id}',
  operationId: 'terminateUpload',
  summary: 'Terminate the upload (tus termination); a completed one is deleted like its file',
  request: { params, headers: [TUS_REQUEST] },
  description:
    'A final upload is deleted like its file (with its partial uploads’ objects); a partial upload that a final ' +
    'upload took answers 409 UPLOAD_CONFLICT (delete the final instead).',
  responses: {
    204: noContent('Terminated: everything it held is freed', {}),
    ...tusErrors(401, 404, 409, 410, 412, 429),
  },
});

const override = createRoute({
  method: 'post',
  path: '/uploads/{id}',
  operationId: 'overrideUploadMethod',
  summary: 'PATCH, HEAD or DELETE for clients that cannot send them (X-HTTP-Method-Override)',
  description: 'Answers exactly as the method named in X-HTTP-Method-Override; 405 for any other.',
  request: {
    params,
    headers: [
      TUS_REQUEST,
      requestHeader('X-HTTP-Method-Override', '`PATCH`, `HEAD` or `DELETE`'),
      requestHeader('Upload-Offset', 'For PATCH', false),
      requestHeader('Content-Type', 'For PATCH: `application/offset+octet-stream`', false),
      CHECKSUM,
    ],
    body: offsetStream(false),
  },
  responses: {
    204: noContent('As the overriding method answers', OVERRIDDEN_HEADERS),
    ...tusErrors(400, 401, 403, 404, 405, 409, 410, 412, 413, 415, 429, 460),
  },
});

const get = createRoute({
  method: 'get',
  path: '/uploads/{id}',
  operationId: 'getUploadedFile',
  summary: 'The file a completed upload became (the same record as GET /files/{id})',
  description: 'While bytes are missing: 409 UPLOAD_INCOMPLETE (HEAD tells the offset). Needs no Tus-Resumable.',
  request: { params },
  responses: {
    200: ok(successV2(FileRecordV2), 'The file record'),
    ...tusErrors(401, 404, 409, 410, 429),
  },
});

/**
 * The tus routes, served and documented from their definitions, with their own 405s (which name
 * OPTIONS, answered before them). Handlers read tus's headers themselves (messages.ts): nothing
 * is validated by zod.
 */
export function createUploadsRouter() {
  const router = versionRouter();
  const tus = requires(TUS_NEEDS);
  const id = (c: Context<AppEnv>) => c.req.param('id') ?? '';

  router.openAPIRegistry.registerPath(discover);
  // Creation, and creation with upload when the body carries the first bytes.
  serveDocumented(router, create, tus, async (c) => {
    const concat = parseUploadConcat(c.req.header('upload-concat'));
    if (concat?.kind === 'final') return createFinal(c, concat.urls);
    const { length, metadata, first } = creationRequest(c);
    const upload = await createUpload(deps(c), { length, metadata, concat: concat && 'partial' });
    // An empty upload is complete at once; otherwise the body (if any) is the first PATCH.
    const append = first && (() => appendToOwnUpload(deps(c), upload.id, first));
    return created(c, upload, uploadUrl(c, upload.id), append);
  });

  router.openAPIRegistry.registerPath(offset);
  serveDocumented(router, append, tus, (c) => patch(c, id(c)));
  serveDocumented(router, remove, tus, (c) => terminate(c, id(c)));
  // X-HTTP-Method-Override: a POST that means PATCH, DELETE or HEAD.
  serveDocumented(router, override, tus, async (c) => {
    const method = effectiveMethod(c.req.raw);
    if (method === 'PATCH') return patch(c, id(c));
    if (method === 'DELETE') return terminate(c, id(c));
    if (method === 'HEAD') {
      const response = await head(c, id(c));
      return new Response(null, { status: response.status, headers: response.headers });
    }
    // A POST that means none of them: the same 405 as any other method here.
    throw methodNotAllowed('POST', allowedMethods(router, '/uploads/:id', ANSWERED_BEFORE));
  });
  // One handler for GET and HEAD (Hono dispatches HEAD as GET).
  serveDocumented(router, get, tus, async (c) => {
    if (c.req.method === 'HEAD') return head(c, id(c));
    const row = await uploadedFile(deps(c), id(c));
    return c.json({ success: true as const, data: fileRecord(row, 'v2', origins(c)) }, 200);
  });
  offersHead(router, offset.path);

  addFallbacks(router, { also: ANSWERED_BEFORE });
  return router;
}

/** tus at v2's /uploads: its router mounted on v2's, so v2's document holds its definitions. */
export function addUploadRoutes(router: OpenAPIHono<AppEnv>) {
  router.route('/', createUploadsRouter());
}
