// The rules an upload through a request obeys, as the upload code reads them: the server's
// configuration narrowed to the request's limits, and the exact size of a one-file upload URL.
import type { Config } from '../config';
import { validationError } from '../errors';
import { fileTooLarge } from '../files/upload-errors';
import type { RequestWithOwner } from '../storage/requests-repo';
import type { RequestLimits } from './request-counter-contract';
import { allowedTypesOf, effectiveTypes } from './service';

/**
 * The configuration the shared upload code runs with: MAX_FILE_SIZE the smallest of the server's,
 * the request's and its exact size (so a larger file is cut off as it streams, 413, as any file
 * over a request's maxFileSize is), ALLOWED_FILE_TYPES the request's patterns AND the server's
 * (runnable types are refused by the upload code whatever the patterns say).
 */
export function requestConfig(config: Config, request: RequestWithOwner): Config {
  return {
    ...config,
    MAX_FILE_SIZE: Math.min(
      config.MAX_FILE_SIZE,
      request.max_file_size ?? config.MAX_FILE_SIZE,
      request.exact_bytes ?? config.MAX_FILE_SIZE,
    ),
    ALLOWED_FILE_TYPES: effectiveTypes(allowedTypesOf(request), config.ALLOWED_FILE_TYPES),
  };
}

export const requestLimits = (request: RequestWithOwner): RequestLimits => ({
  maxFiles: request.max_files,
  maxBytes: request.max_bytes,
});

/**
 * The one size rule of a request with an exact size (MCP's create_upload_url): each file is
 * exactly `exact_bytes`, checked where its size is first known (a raw PUT's Content-Length, a tus
 * Upload-Length: before any byte) or else once it is read, before anything of it counts. Larger
 * is 413 FILE_TOO_LARGE, as over any request's maxFileSize; smaller is 400 naming `file`, the
 * field every upload path names its file by. Requests without one take any size up to their
 * bounds.
 */
export function checkExactSize(request: Pick<RequestWithOwner, 'exact_bytes'>, size: number): void {
  const exact = request.exact_bytes;
  if (exact === null || size === exact) return;
  if (size > exact) throw fileTooLarge(exact);
  throw validationError('file', `must be exactly ${exact} bytes, as this upload URL states; it is ${size}`);
}
