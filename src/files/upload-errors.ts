// What an upload request can fail with, mapped to the API's error set.
import { ApiError, validationError } from '../errors';
import { formatBytes } from '../lib/format';
import { MultipartError, MultipartReader, multipartBoundary } from '../lib/multipart';
import { BodyLengthError, SizeLimitError } from '../storage/blobs';

/**
 * A reader of a multipart request's body, or a 400 when the request is not one. Its
 * Content-Length (when sent) sizes the reader's source reads.
 */
export function openMultipart(request: Request): MultipartReader {
  const boundary = multipartBoundary(request.headers.get('content-type') ?? undefined);
  if (!boundary) throw validationError('body', 'expected multipart/form-data with a boundary');
  if (!request.body) throw validationError('file', 'the file part is required');
  const length = Number(request.headers.get('content-length') ?? Number.NaN);
  return new MultipartReader(request.body, boundary, Number.isSafeInteger(length) ? length : undefined);
}

/** Maps a failure while reading the request body or writing R2 to the API's error set. */
export function uploadError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof MultipartError) return validationError('body', error.message);
  if (error instanceof SizeLimitError) return fileTooLarge(error.maxBytes);
  if (error instanceof BodyLengthError) return validationError('body', error.message);
  return new ApiError('UPLOAD_FAILED', 'The file could not be stored', { cause: error });
}

export const fileTooLarge = (maxBytes: number) =>
  new ApiError(
    'FILE_TOO_LARGE',
    `File is larger than the maximum file size of ${maxBytes} bytes (${formatBytes(maxBytes)})`,
  );
