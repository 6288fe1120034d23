// PUT /upload/{filename} (v2): the file is the raw request body, as `curl -T` sends it.
import { admitUpload } from '../e2e/age-checks';
import { validationError } from '../errors';
import { DigestFieldError, parseDigestField } from '../lib/digest';
import type { FileRow } from '../storage/files-repo';
import { fileTooLarge } from './upload-errors';
import type { RecordOptions } from './upload-fields';
import type { UploadDeps } from './upload-session';
import { storeStream, streamSource } from './upload-stream';

export type RawUpload = {
  /** The `filename` path segment, percent-decoded: the original name (cleaned like a form's). */
  name: string;
  /** isPublic and expiresIn from the query, validated by the form's schema. */
  options: RecordOptions;
};

/**
 * Stores a raw body (storeStream). With a Content-Length the bytes stream into one R2 put as they
 * arrive (the fastest path); without one (chunked) they go through the multipart writer the form
 * uses. The type is decided from the first bytes against the declared Content-Type, the digest
 * computed on the way and compared with a Repr-Digest/Content-Digest the client sent, all before
 * the quota commit and the row: a refused file leaves nothing behind.
 */
export async function uploadRawFile(deps: UploadDeps, request: Request, upload: RawUpload): Promise<FileRow> {
  if (upload.name.trim() === '') throw validationError('filename', 'name the file in the path: PUT /upload/{filename}');
  const length = declaredLength(request);
  if (length !== undefined && length > deps.config.MAX_FILE_SIZE) throw fileTooLarge(deps.config.MAX_FILE_SIZE);
  const asserted = assertedDigest(request.headers);
  // An age file says so in the query (`?encryption=age`), its meta in a header: judged before any byte.
  const e2e = admitUpload(
    deps.e2e,
    {
      encryption: new URL(request.url).searchParams.get('encryption') ?? undefined,
      meta: request.headers.get('edgeshare-meta') ?? undefined,
    },
    { encryption: 'encryption', meta: 'Edgeshare-Meta' },
  );
  const stream = {
    source: streamSource(request.body, length),
    filename: upload.name,
    contentType: request.headers.get('content-type') ?? undefined,
    length,
    asserted,
    e2e,
  };
  return storeStream(deps, stream, upload.options);
}

/** The body's Content-Length, if it states one (400 when it is not a length). */
export function declaredLength(request: Request): number | undefined {
  const header = request.headers.get('content-length');
  if (header === null) return undefined;
  const length = Number(header);
  if (!/^\d+$/.test(header.trim()) || !Number.isSafeInteger(length)) {
    throw validationError('Content-Length', 'must be a non-negative integer');
  }
  return length;
}

/** The SHA-256 a raw upload's Repr-Digest and/or Content-Digest state (they must agree). */
function assertedDigest(headers: Headers): { sha256: string; field: string } | undefined {
  let found: { sha256: string; field: string } | undefined;
  for (const header of ['Repr-Digest', 'Content-Digest']) {
    const value = headers.get(header);
    if (value === null) continue;
    let sha256: string | undefined;
    try {
      sha256 = parseDigestField(value);
    } catch (error) {
      if (error instanceof DigestFieldError)
        throw validationError(header, `${error.message} (expected sha-256=:<base64>:)`);
      throw error;
    }
    if (sha256 === undefined) continue;
    if (found && found.sha256 !== sha256) {
      throw validationError(header, 'Repr-Digest and Content-Digest name different SHA-256 digests');
    }
    found ??= { sha256, field: header };
  }
  return found;
}
