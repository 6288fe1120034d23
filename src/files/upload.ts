// The upload service: multipart body → type check → R2 (streamed) → D1 row.
import { UploadFieldsSchema } from '../api/schemas';
import type { Config } from '../config';
import { ApiError, validationError } from '../errors';
import { randomBase64Url } from '../keys/key-material';
import type { QuotaTicket } from '../limiter/client';
import { log } from '../log';
import { blobKey, consumeIntoBlob, SizeLimitError, type StoredBlob } from '../storage/blobs';
import { type FileRow, insertFiles } from '../storage/files-repo';
import { isoNow } from '../time';
import { concat, MultipartError, type MultipartReader, multipartBoundary, type PartInfo } from '../upload/multipart';
import { decideFileType, SNIFF_BYTES } from './file-type';
import { cleanOriginalName, storedFilename } from './names';

export type UploadDeps = { bucket: R2Bucket; db: D1Database; config: Config; keyId: string; quota: QuotaTicket };

/** A file whose bytes are in R2 but whose row is not written yet. */
export type ReceivedFile = {
  id: string;
  originalName: string;
  filename: string;
  mimeType: string;
  blob: StoredBlob;
};

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
  if (error instanceof SizeLimitError)
    return new ApiError('FILE_TOO_LARGE', 'File is larger than the maximum file size');
  return new ApiError('UPLOAD_FAILED', 'The file could not be stored', { cause: error });
}

/** Reads one file part and stores it in R2 under a fresh server-made key. */
export async function receiveFile(deps: UploadDeps, reader: MultipartReader, part: PartInfo): Promise<ReceivedFile> {
  const finish = await readFilePart(deps, reader, part);
  return finish();
}

/**
 * Reads the current part (a file) to its end: decides its type from its first bytes and
 * streams it into R2. Returns the call that finishes the write, so the caller can read the
 * next part meanwhile.
 */
export async function readFilePart(
  deps: UploadDeps,
  reader: MultipartReader,
  part: PartInfo,
): Promise<() => Promise<ReceivedFile>> {
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
  const quota = deps.quota;
  try {
    const finishBlob = await consumeIntoBlob(deps.bucket, blobKey(deps.keyId, id), pull, {
      maxBytes: deps.config.MAX_FILE_SIZE,
      contentType: decision.mimeType,
      customMetadata: { keyId: deps.keyId, fileId: id },
      onBytes: (total) => quota.need(id, total),
    });
    const filename = storedFilename(originalName, id);
    return async () => {
      try {
        return { id, originalName, filename, mimeType: decision.mimeType, blob: await finishBlob() };
      } catch (error) {
        quota.drop(id);
        throw error;
      }
    };
  } catch (error) {
    quota.drop(id);
    throw error;
  }
}

const FIELD_NAMES = new Set(['isPublic', 'expiresIn']);
const MAX_FIELD_BYTES = 1024;

/** Reads a known text field into fields (once each); other parts are skipped. */
export async function readFormField(reader: MultipartReader, part: PartInfo, fields: Record<string, string>) {
  if (!FIELD_NAMES.has(part.name)) return;
  if (part.name in fields) throw validationError(part.name, 'given more than once');
  fields[part.name] = (await reader.readText(MAX_FIELD_BYTES)).trim();
}

/** isPublic and expiresIn, validated once the whole form has been read. */
export function recordOptions(fields: Record<string, string>): RecordOptions {
  const parsed = UploadFieldsSchema.safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw validationError(String(issue?.path[0] ?? 'body'), issue?.message ?? 'invalid');
  }
  return { isPublic: parsed.data.isPublic, expiresInSeconds: parsed.data.expiresIn };
}

export type RecordOptions = { isPublic: boolean; expiresInSeconds: number | undefined; now?: number };

/** The row for a stored file. */
export function fileRow(deps: UploadDeps, file: ReceivedFile, options: RecordOptions): FileRow {
  const now = options.now ?? Date.now();
  const expiresIn = options.expiresInSeconds ?? deps.config.DEFAULT_EXPIRY_SECONDS;
  return {
    id: file.id,
    key_id: deps.keyId,
    filename: file.filename,
    original_name: file.originalName,
    size: file.blob.size,
    mime_type: file.mimeType,
    r2_key: file.blob.key,
    etag: file.blob.etag,
    share_token: randomBase64Url(24),
    is_public: options.isPublic ? 1 : 0,
    download_count: 0,
    uploaded_at: isoNow(now),
    updated_at: isoNow(now),
    expires_at: expiresIn === undefined ? null : isoNow(now + expiresIn * 1000),
  };
}

/**
 * Writes the rows for stored blobs in one batch (one transaction). If they cannot be written
 * the blobs are removed, so no blob outlives a failed request.
 */
export async function recordFiles(deps: UploadDeps, files: ReceivedFile[], options: RecordOptions): Promise<FileRow[]> {
  const rows = files.map((file) => fileRow(deps, file, options));
  try {
    if (rows.length > 0) await insertFiles(deps.db, rows);
  } catch (error) {
    await Promise.all(files.map((file) => discardBlob(deps.bucket, file.blob.key)));
    await deps.quota.release();
    throw new ApiError('UPLOAD_FAILED', 'The file could not be recorded', { cause: error });
  }
  await settleQuota(
    deps,
    rows.reduce((sum, row) => sum + row.size, 0),
  );
  return rows;
}

/** Runs an upload; if it fails as a whole, whatever storage it reserved is given back. */
export async function withQuota<T>(deps: UploadDeps, upload: (deps: UploadDeps) => Promise<T>): Promise<T> {
  try {
    return await upload(deps);
  } catch (error) {
    await deps.quota.release();
    throw error;
  }
}

/** The stored bytes become used. The files exist by now, so a failure here is only logged. */
async function settleQuota(deps: UploadDeps, bytes: number): Promise<void> {
  await deps.quota.settle(bytes).catch((error: unknown) => {
    log('error', 'quota not settled', { keyId: deps.keyId, bytes, error: String(error) });
  });
}

/** Deletes blobs that must not outlive their request; a failure is logged as an orphan. */
export async function discardBlob(bucket: R2Bucket, keys: string | string[]): Promise<void> {
  await bucket.delete(keys).catch((error: unknown) => {
    log('error', 'orphan blob left behind', { keys, error: String(error) });
  });
}
