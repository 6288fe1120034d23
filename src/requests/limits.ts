// The rules an upload through a request obeys, as the upload code reads them: the server's
// configuration narrowed to the request's limits.
import type { Config } from '../config';
import type { RequestWithOwner } from '../storage/requests-repo';
import type { RequestLimits } from './request-counter-contract';
import { allowedTypesOf, effectiveTypes } from './service';

/**
 * The configuration the shared upload code runs with: MAX_FILE_SIZE the smaller of the server's
 * and the request's, ALLOWED_FILE_TYPES the request's patterns AND the server's (runnable types
 * are refused by the upload code whatever the patterns say).
 */
export function requestConfig(config: Config, request: RequestWithOwner): Config {
  return {
    ...config,
    MAX_FILE_SIZE: Math.min(config.MAX_FILE_SIZE, request.max_file_size ?? config.MAX_FILE_SIZE),
    ALLOWED_FILE_TYPES: effectiveTypes(allowedTypesOf(request), config.ALLOWED_FILE_TYPES),
  };
}

export const requestLimits = (request: RequestWithOwner): RequestLimits => ({
  maxFiles: request.max_files,
  maxBytes: request.max_bytes,
});
