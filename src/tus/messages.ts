// tus requests and answers over HTTP, shared by the tus routes (routes.ts) and the file
// requests' tus paths (src/requests/tus-routes.ts): what a creation and a PATCH send, and the headers
// of their answers.
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { ApiError, validationError } from '../errors';
import { httpDate, isOffsetStream, parseChecksum, parseSize } from './protocol';
import type { AppendBody, AppendOutcome } from './service';
import type { UploadView } from './tus-upload-contract';

/** Content-Length when the request states it (a chunked body has none). */
export function contentLength(c: Context<AppEnv>): number | undefined {
  const value = c.req.header('content-length');
  return value === undefined ? undefined : parseSize(value, 'Content-Length');
}

/** Headers of a PATCH (or creation-with-upload) answer: the new offset, and the file once complete. */
export function appendHeaders(outcome: AppendOutcome): Record<string, string> {
  const headers: Record<string, string> = { 'Upload-Offset': String(outcome.offset) };
  if (outcome.complete) headers['X-File-Id'] = outcome.fileId;
  else headers['Upload-Expires'] = httpDate(outcome.expiresAt);
  return headers;
}

/** The headers of a HEAD answer; 410 for an upload that ended without a file. */
export function statusHeaders(status: UploadView): Record<string, string> {
  if (status.status === 'terminated' || status.status === 'expired') throw new ApiError('UPLOAD_GONE');
  const headers: Record<string, string> = {
    'Upload-Offset': String(status.offset),
    'Upload-Length': String(status.length),
    'Cache-Control': 'no-store',
  };
  if (status.metadata) headers['Upload-Metadata'] = status.metadata;
  if (status.concat) headers['Upload-Concat'] = status.concat;
  // A partial upload is no file: it expires until a final upload takes it.
  if (status.concat === 'partial') {
    if (!status.claimed) headers['Upload-Expires'] = httpDate(status.expiresAt);
  } else if (status.status === 'active') headers['Upload-Expires'] = httpDate(status.expiresAt);
  else headers['X-File-Id'] = status.id;
  return headers;
}

/** What a PATCH sends: its offset, its body and checksum (415 without the tus content type). */
export function patchBody(c: Context<AppEnv>): AppendBody {
  if (!isOffsetStream(c.req.header('content-type'))) {
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      'A PATCH must be sent with Content-Type: application/offset+octet-stream',
    );
  }
  return {
    offset: parseSize(c.req.header('upload-offset'), 'Upload-Offset'),
    body: c.req.raw.body,
    contentLength: contentLength(c),
    checksum: parseChecksum(c.req.header('upload-checksum')),
    signal: c.req.raw.signal,
  };
}

/** Runs an append so that it finishes (or keeps what arrived) even when its client goes away mid-body. */
export function untilDone<T>(c: Context<AppEnv>, work: Promise<T>): Promise<T> {
  c.executionCtx.waitUntil(work.catch(() => undefined));
  return work;
}

/**
 * A creation's headers: its length, and the first bytes when the body carries them (an empty
 * upload counts as sent at once). 400 for a deferred length, 415 for bytes of another type.
 */
export function creationRequest(c: Context<AppEnv>): { length: number; metadata?: string; first?: AppendBody } {
  if (c.req.header('upload-defer-length') !== undefined) {
    throw validationError('Upload-Defer-Length', 'deferred length is not supported: send Upload-Length');
  }
  const length = parseSize(c.req.header('upload-length'), 'Upload-Length');
  const bodyLength = contentLength(c);
  const withBody = bodyLength !== 0 && c.req.raw.body !== null;
  if (withBody && !isOffsetStream(c.req.header('content-type'))) {
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Bytes sent at creation need Content-Type: application/offset+octet-stream',
    );
  }
  const checksum = parseChecksum(c.req.header('upload-checksum'));
  const metadata = c.req.header('upload-metadata');
  if (!withBody && length !== 0) return { length, metadata };
  const body = withBody ? c.req.raw.body : null;
  return {
    length,
    metadata,
    first: { offset: 0, body, contentLength: bodyLength, checksum, signal: c.req.raw.signal },
  };
}

/**
 * A final upload's creation (Upload-Concat: final;…): its length is its partials', so it
 * carries no Upload-Length (400, as tus says), no deferred length and no bytes.
 */
export function finalCreationRequest(c: Context<AppEnv>): { metadata?: string } {
  for (const header of ['Upload-Length', 'Upload-Defer-Length']) {
    if (c.req.header(header) !== undefined) {
      throw validationError(header, 'a final upload (Upload-Concat: final) takes its length from its partial uploads');
    }
  }
  if ((contentLength(c) ?? 0) > 0) {
    throw validationError('body', 'a final upload (Upload-Concat: final) carries no bytes: its partial uploads do');
  }
  return { metadata: c.req.header('upload-metadata') };
}

/**
 * The 201 of a creation: Location, and when the first bytes came with it, the append's outcome.
 * An error of that append carries Location too: the upload exists, and a client can still find
 * it (and resume, unless the error ended it).
 */
export async function created(
  c: Context<AppEnv>,
  upload: UploadView,
  location: string,
  append?: () => Promise<AppendOutcome>,
): Promise<Response> {
  const headers: Record<string, string> = { Location: location, 'Upload-Expires': httpDate(upload.expiresAt) };
  if (append) {
    const outcome = await untilDone(c, append()).catch((error: unknown) => {
      if (error instanceof ApiError) error.headers.Location = location;
      throw error;
    });
    Object.assign(headers, appendHeaders(outcome));
    if (outcome.complete) delete headers['Upload-Expires'];
  }
  return c.body(null, 201, headers);
}
