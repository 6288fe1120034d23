// The upload service: multipart body → type check → R2 (streamed) → D1 row.

import type { Config } from '../config';
import type { ApiKeyContext } from '../env';
import { ApiError, validationError } from '../errors';
import { formatBytes } from '../http/format';
import { randomBase64Url } from '../keys/key-material';
import { freeFiles, type LimiterNamespace, storageExceeded } from '../limiter/client';
import { BodyLengthError, blobKey, consumeIntoBlob, SizeLimitError, type StoredBlob } from '../storage/blobs';
import { type FileRow, insertFiles } from '../storage/files-repo';
import { isoNow } from '../time';
import { concat, MultipartError, type MultipartReader, multipartBoundary, type PartInfo } from '../upload/multipart';
import { decideFileType, SNIFF_BYTES } from './file-type';
import { cleanOriginalName, storedFilename } from './names';
import { UploadFieldsSchema } from './upload-fields';
import type { UploadSession } from './upload-session';

export type UploadDeps = {
  bucket: R2Bucket;
  db: D1Database;
  limiter: LimiterNamespace;
  config: Config;
  key: ApiKeyContext;
  session: UploadSession;
};

/**
 * A file read to its end: its size is known, its write to R2 may still be finishing (`stored`),
 * and it has no row yet.
 */
export type PendingFile = {
  id: string;
  originalName: string;
  filename: string;
  mimeType: string;
  size: number;
  /** Lowercase hex SHA-256 of the bytes, hashed as they streamed (null: a tus upload begun before digests). */
  sha256: string | null;
  stored: Promise<StoredBlob>;
};

/** Where a file's bytes come from: a multipart part, or a raw request body. */
export type ChunkSource = { read(): Promise<Uint8Array | null> };

/** What is known of a file before its bytes: its name and declared type (and, raw, its length). */
export type IncomingFile = { filename: string | undefined; contentType: string | undefined; length?: number };

export const newFileId = () => randomBase64Url(16);
export const FILE_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** The boundary of a multipart request, or a 400 when the request is not one. */
export function requireMultipart(request: Request): { body: ReadableStream<Uint8Array>; boundary: string } {
  const boundary = multipartBoundary(request.headers.get('content-type') ?? undefined);
  if (!boundary) throw validationError('body', 'expected multipart/form-data with a boundary');
  if (!request.body) throw validationError('file', 'the file part is required');
  return { body: request.body, boundary };
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

/**
 * Reads the current part (a file) to its end: decides its type from its first bytes and
 * streams it into R2. The write's last step (the put, or the last part and the completion)
 * runs on while the caller reads the next part or commits the file to the quota.
 */
export async function readFilePart(deps: UploadDeps, reader: ChunkSource, part: IncomingFile): Promise<PendingFile> {
  const originalName = cleanOriginalName(part.filename);
  const head: Uint8Array[] = [];
  let headBytes = 0;
  while (headBytes < SNIFF_BYTES) {
    const chunk = await reader.read();
    if (!chunk) break;
    head.push(chunk);
    headBytes += chunk.length;
  }
  const sample = concat(head, headBytes);
  const decision = decideFileType(
    sample.subarray(0, SNIFF_BYTES),
    part.contentType,
    originalName,
    deps.config.ALLOWED_FILE_TYPES,
  );
  if (!decision.ok) throw new ApiError('INVALID_FILE_TYPE', `File type not allowed: ${decision.reason}`);

  const id = newFileId();
  let queued: Uint8Array | undefined = sample;
  const pull = async () => {
    if (queued) {
      const chunk = queued;
      queued = undefined;
      return chunk;
    }
    return reader.read();
  };
  // Each file's bytes count against the key's quota as they arrive (see docs/limits.md).
  const quota = deps.session.quota;
  try {
    const consumed = await consumeIntoBlob(deps.bucket, blobKey(deps.key.id, id), pull, {
      maxBytes: deps.config.MAX_FILE_SIZE,
      contentType: decision.mimeType,
      customMetadata: { keyId: deps.key.id, fileId: id },
      onBytes: (total) => quota.need(id, total),
      owner: deps.session,
      knownLength: part.length,
    });
    const stored = consumed.finish().catch((error: unknown) => {
      quota.drop(id);
      throw error;
    });
    // Awaited by whoever records the file; a failure here is reported there.
    stored.catch(() => undefined);
    const filename = storedFilename(originalName, id);
    return {
      id,
      originalName,
      filename,
      mimeType: decision.mimeType,
      size: consumed.size,
      sha256: consumed.sha256,
      stored,
    };
  } catch (error) {
    quota.drop(id);
    throw error;
  }
}

const FIELD_NAMES = new Set(['isPublic', 'expiresIn', 'sha256']);
const MAX_FIELD_BYTES = 1024;

/** Reads a known text field into fields (once each); other parts are skipped. */
export async function readFormField(reader: MultipartReader, part: PartInfo, fields: Record<string, string>) {
  if (!FIELD_NAMES.has(part.name)) return;
  if (part.name in fields) throw validationError(part.name, 'given more than once');
  fields[part.name] = (await reader.readText(MAX_FIELD_BYTES)).trim();
}

/** isPublic, expiresIn (and a client's sha256), validated once the whole form has been read. */
export function recordOptions(fields: Record<string, string>): RecordOptions {
  const parsed = UploadFieldsSchema.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw validationError(String(issue?.path[0] ?? 'body'), issue?.message ?? 'invalid');
  }
  return { isPublic: parsed.data.isPublic, expiresInSeconds: parsed.data.expiresIn, sha256: parsed.data.sha256 };
}

export type RecordOptions = {
  isPublic: boolean;
  expiresInSeconds: number | undefined;
  /** The SHA-256 (lowercase hex) the client says the file has; checked before anything is committed. */
  sha256?: string | undefined;
  now?: number;
};

/**
 * Refuses a file whose bytes do not hash to what the client asserted: 400 DIGEST_MISMATCH. Called
 * after the bytes are read and before the quota commit and the row, so a refused file leaves
 * nothing (its blob is its session's to delete, its hold is released).
 */
export function checkDigest(file: Pick<PendingFile, 'sha256'>, expected: string | undefined, source: string): void {
  if (expected === undefined || file.sha256 === null || expected.toLowerCase() === file.sha256) return;
  throw new ApiError('DIGEST_MISMATCH', `The file's SHA-256 is ${file.sha256}, not the ${source} sent; nothing was stored`, {
    details: [{ field: source, message: `expected ${expected.toLowerCase()}, got ${file.sha256}` }],
  });
}

/** The row for a stored file. */
export function fileRow(deps: UploadDeps, file: PendingFile, blob: StoredBlob, options: RecordOptions): FileRow {
  const now = options.now ?? Date.now();
  return {
    id: file.id,
    key_id: deps.key.id,
    filename: file.filename,
    original_name: file.originalName,
    size: blob.size,
    mime_type: file.mimeType,
    r2_key: blob.key,
    etag: blob.etag,
    share_token: randomBase64Url(24),
    is_public: options.isPublic ? 1 : 0,
    download_count: 0,
    uploaded_at: isoNow(now),
    updated_at: isoNow(now),
    expires_at: expiresAt(deps, options, now),
    sha256: file.sha256,
  };
}

function expiresAt(deps: UploadDeps, options: RecordOptions, now: number): string | null {
  const expiresIn = options.expiresInSeconds ?? deps.config.DEFAULT_EXPIRY_SECONDS;
  return expiresIn === undefined ? null : isoNow(now + expiresIn * 1000);
}

/**
 * Makes files permanent. The key's account commits the files that fit (the quota and the file
 * limit are enforced there) while their writes to R2 finish; then the rows of the files both
 * committed and stored go in one batch (one transaction). A file the account refused fails
 * with STORAGE_EXCEEDED, one whose write failed with its storage error (and is taken off the
 * account again); if the rows cannot be written, the files are taken off the account too.
 * Blobs without a row are left to the session to delete.
 */
export async function recordFiles(
  deps: UploadDeps,
  files: PendingFile[],
  options: RecordOptions,
): Promise<{ rows: FileRow[]; failures: Map<string, ApiError> }> {
  const now = options.now ?? Date.now();
  const expiry = expiresAt(deps, options, now);
  return deps.session.record(async (recorded) => {
    const failures = new Map<string, ApiError>();
    if (files.length === 0) return { rows: [], failures };
    const committing = deps.session.quota.commit(
      files.map((file) => ({ id: file.id, size: file.size, expiresAt: expiry })),
    );
    committing.catch(() => undefined);
    const stored = await Promise.all(
      files.map((file) =>
        file.stored.then(
          (blob) => ({ file, blob }),
          (error: unknown) => ({ file, error: uploadError(error) }),
        ),
      ),
    );
    const { accepted, refused } = await committing;
    const rows: FileRow[] = [];
    const unstored: typeof files = [];
    for (const result of stored) {
      const { id } = result.file;
      const exceeded = refused.get(id);
      if (exceeded) failures.set(id, storageExceeded(deps.key, exceeded));
      else if ('error' in result) {
        failures.set(id, result.error);
        if (accepted.has(id)) unstored.push(result.file);
      } else rows.push(fileRow(deps, result.file, result.blob, { ...options, now }));
    }
    const giveBack = (gone: { id: string; size: number }[]) =>
      freeFiles(
        deps.limiter,
        gone.map((file) => ({ keyId: deps.key.id, id: file.id, size: file.size, expiresAt: expiry })),
      );
    if (unstored.length > 0) await giveBack(unstored);
    try {
      if (rows.length > 0) await insertFiles(deps.db, rows);
    } catch (error) {
      await giveBack(rows);
      throw new ApiError('UPLOAD_FAILED', 'The file could not be recorded', { cause: error });
    }
    recorded(rows.map((row) => row.r2_key));
    return { rows, failures };
  });
}
