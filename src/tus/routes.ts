// The tus 1.0.0 routes at /api/v2/uploads: creation (with upload), HEAD, PATCH, termination, and
// GET of the file a completed upload became. Mounted under /api/v2 (see app.ts).
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { fileRecord } from '../files/records';
import { keyOwner } from '../files/upload-owner';
import { addFallbacks, allowedMethods, methodNotAllowed, offersHead } from '../http/fallbacks';
import { origins, storage } from '../http/request-deps';
import { requires } from '../http/route-needs';
import { countRequest, keyStillActive, rateLimited } from '../limiter/key-limiter-client';
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
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    keyStillActive: () => keyStillActive(c.env.KEY_LIMITER, c.env.DB, c.get('apiKey').id),
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
    if (!admission.allowed) throw rateLimited(state);
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

export function createUploadsRouter() {
  const router = new Hono<AppEnv>();
  const tus = requires(TUS_NEEDS);

  // Creation, and creation with upload when the body carries the first bytes.
  router.post('/uploads', tus, async (c) => {
    const concat = parseUploadConcat(c.req.header('upload-concat'));
    if (concat?.kind === 'final') return createFinal(c, concat.urls);
    const { length, metadata, first } = creationRequest(c);
    const upload = await createUpload(deps(c), { length, metadata, concat: concat && 'partial' });
    // An empty upload is complete at once; otherwise the body (if any) is the first PATCH.
    const append = first && (() => appendToOwnUpload(deps(c), upload.id, first));
    return created(c, upload, uploadUrl(c, upload.id), append);
  });

  // Hono answers HEAD with the GET route (it dispatches HEAD as GET): one handler for both.
  router.get('/uploads/:id', tus, async (c) => {
    const id = c.req.param('id');
    if (c.req.method === 'HEAD') return head(c, id);
    const row = await uploadedFile(deps(c), id);
    return c.json({ success: true as const, data: fileRecord(row, 'v2', origins(c)) }, 200);
  });
  router.patch('/uploads/:id', tus, (c) => patch(c, c.req.param('id')));
  router.delete('/uploads/:id', tus, (c) => terminate(c, c.req.param('id')));
  // X-HTTP-Method-Override: a POST that means PATCH, DELETE or HEAD.
  router.post('/uploads/:id', tus, async (c) => {
    const id = c.req.param('id');
    const method = effectiveMethod(c.req.raw);
    if (method === 'PATCH') return patch(c, id);
    if (method === 'DELETE') return terminate(c, id);
    if (method === 'HEAD') {
      const response = await head(c, id);
      return new Response(null, { status: response.status, headers: response.headers });
    }
    // A POST that means none of them: the same 405 as any other method here.
    throw methodNotAllowed('POST', allowedMethods(router, '/uploads/:id', ANSWERED_BEFORE));
  });
  offersHead(router, '/uploads/:id');

  addFallbacks(router, { also: ANSWERED_BEFORE });
  return router;
}
