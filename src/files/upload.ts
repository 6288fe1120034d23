// The upload service: multipart body → type check → R2 (streamed) → D1 row.
import { UploadFieldsSchema } from '../api/schemas';
import type { Config } from '../config';
import type { ApiKeyContext } from '../env';
import { ApiError, validationError } from '../errors';
import { formatBytes } from '../http/format';
import { randomBase64Url } from '../keys/key-material';
import { freeFiles, type LimiterNamespace, storageExceeded } from '../limiter/client';
import { blobKey, consumeIntoBlob, SizeLimitError, type StoredBlob } from '../storage/blobs';
import { type FileRow, insertFiles } from '../storage/files-repo';
import { isoNow } from '../time';
import { concat, MultipartError, type MultipartReader, multipartBoundary, type PartInfo } from '../upload/multipart';
import { decideFileType, SNIFF_BYTES } from './file-type';
import { cleanOriginalName, storedFilename } from './names';
import type { UploadSession } from './upload-session';

export type UploadDeps = {
  bucket: R2Bucket;
  db: D1Database;
  limiter: LimiterNamespace;
  config: Config;
  key: ApiKeyContext;
  session: UploadSession;
};

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
  if (error instanceof SizeLimitError) return fileTooLarge(error.maxBytes);
  return new ApiError('UPLOAD_FAILED', 'The file could not be stored', { cause: error });
}

export const fileTooLarge = (maxBytes: number) =>
  new ApiError(
    'FILE_TOO_LARGE',
    `File is larger than the maximum file size of ${maxBytes} bytes (${formatBytes(maxBytes)})`,
  );

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
  const quota = deps.session.quota;
  try {
    const finishBlob = await consumeIntoBlob(deps.bucket, blobKey(deps.key.id, id), pull, {
      maxBytes: deps.config.MAX_FILE_SIZE,
      contentType: decision.mimeType,
      customMetadata: { keyId: deps.key.id, fileId: id },
      onBytes: (total) => quota.need(id, total),
      owner: deps.session,
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
    key_id: deps.key.id,
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
 * Makes stored blobs permanent: the key's account commits the files that fit (the quota and
 * the file limit are enforced there), then their rows go in one batch (one transaction). Files
 * the account refused fail with STORAGE_EXCEEDED; if the rows cannot be written the files are
 * taken off the account again. Blobs without a row are left to the session to delete.
 */
export async function recordFiles(
  deps: UploadDeps,
  files: ReceivedFile[],
  options: RecordOptions,
): Promise<{ rows: FileRow[]; refused: Map<string, ApiError> }> {
  const rows = files.map((file) => fileRow(deps, file, options));
  return deps.session.record(async (recorded) => {
    const refused = new Map<string, ApiError>();
    if (rows.length === 0) return { rows, refused };
    const { accepted, refused: over } = await deps.session.quota.commit(
      rows.map((row) => ({ id: row.id, size: row.size, expiresAt: row.expires_at })),
    );
    for (const [id, exceeded] of over) refused.set(id, storageExceeded(deps.key, exceeded));
    const kept = rows.filter((row) => accepted.has(row.id));
    try {
      if (kept.length > 0) await insertFiles(deps.db, kept);
    } catch (error) {
      await freeFiles(
        deps.limiter,
        kept.map((row) => ({ keyId: row.key_id, id: row.id, size: row.size, expiresAt: row.expires_at })),
      );
      throw new ApiError('UPLOAD_FAILED', 'The file could not be recorded', { cause: error });
    }
    recorded(kept.map((row) => row.r2_key));
    return { rows: kept, refused };
  });
}
