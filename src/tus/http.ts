// tus over HTTP: the effective method, the headers every tus response carries, discovery
// (OPTIONS), and which requests the rate limit counts only after the fact.
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { CHECKSUM_ALGORITHMS, maxUploadLength, TUS_EXTENSIONS, TUS_VERSION } from './protocol';

/** Where the tus routes live (v2 only). */
export const UPLOADS_PATH = '/api/v2/uploads';
const UPLOAD_PATH = /^\/api\/v2\/uploads\/[^/]+$/;

/** The request headers tus clients send, for CORS. */
export const TUS_REQUEST_HEADERS = [
  'Tus-Resumable',
  'Upload-Length',
  'Upload-Offset',
  'Upload-Metadata',
  'Upload-Checksum',
  'Upload-Defer-Length',
  'Upload-Concat',
  'X-HTTP-Method-Override',
];

/** The response headers tus clients read, for CORS. */
export const TUS_RESPONSE_HEADERS = [
  'Location',
  'Upload-Offset',
  'Upload-Length',
  'Upload-Metadata',
  'Upload-Expires',
  'Tus-Resumable',
  'Tus-Version',
  'Tus-Extension',
  'Tus-Max-Size',
  'Tus-Checksum-Algorithm',
  'Upload-Concat',
  'X-File-Id',
];

const OVERRIDABLE = new Set(['PATCH', 'DELETE', 'HEAD']);

/**
 * The method a tus request means: a POST may carry `X-HTTP-Method-Override` (PATCH, DELETE or
 * HEAD) for clients whose environment cannot send those methods.
 */
export function effectiveMethod(request: Request): string {
  const override = request.headers.get('x-http-method-override')?.trim().toUpperCase();
  return request.method === 'POST' && override && OVERRIDABLE.has(override) ? override : request.method;
}

/**
 * A PATCH of an upload authenticates without counting against the key's rate limit: a 5 GiB
 * upload in 50 MiB chunks is over a hundred PATCHes, and an upload under way must never be
 * refused for requests the key made elsewhere. PATCHes that store bytes are bounded by the
 * upload's length; one that stores none is counted after all, once that is known (see the
 * router). HEAD counts like any request.
 */
export function isUncountedTransfer(c: Context<AppEnv>): boolean {
  return UPLOAD_PATH.test(c.req.path) && effectiveMethod(c.req.raw) === 'PATCH';
}

/**
 * Every response under /api/v2/uploads carries `Tus-Resumable`; OPTIONS answers (without a key,
 * and for CORS preflights alike) with the server's tus capabilities. A tus request whose
 * `Tus-Resumable` is missing or another version is refused with 412 before anything else.
 * The record lookup (GET) is ours, not tus's: it needs no `Tus-Resumable`.
 */
export const tusProtocol = (extensions: readonly string[] = TUS_EXTENSIONS) =>
  createMiddleware<AppEnv>(async function tusProtocol(c, next) {
    const method = effectiveMethod(c.req.raw);
    if (method === 'OPTIONS') {
      await next();
      const headers = c.res.headers;
      headers.set('Tus-Resumable', TUS_VERSION);
      headers.set('Tus-Version', TUS_VERSION);
      headers.set('Tus-Extension', extensions.join(','));
      headers.set('Tus-Max-Size', String(maxUploadLength(c.get('config').MAX_FILE_SIZE)));
      headers.set('Tus-Checksum-Algorithm', Object.keys(CHECKSUM_ALGORITHMS).join(','));
      return;
    }
    if (method !== 'GET' && c.req.header('tus-resumable')?.trim() !== TUS_VERSION) {
      throw new ApiError('UNSUPPORTED_TUS_VERSION', `Send Tus-Resumable: ${TUS_VERSION}`, {
        headers: { 'Tus-Version': TUS_VERSION, 'Tus-Resumable': TUS_VERSION },
      });
    }
    await next();
    c.res.headers.set('Tus-Resumable', TUS_VERSION);
  });
