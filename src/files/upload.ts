// The upload service: a file's bytes → type check → R2 (streamed) → the owner's account → D1 row.

import { freeFiles, storageExceeded } from '../accounts/account-storage-client';
import { checkPayloadLength, splitHeader } from '../e2e/age-checks';
import { ApiError, contentBlocked } from '../errors';
import { emitEvents } from '../events/emit';
import { concat } from '../lib/bytes';
import { blockedFiles } from '../moderation/blocklist';
import { scanOnArrival } from '../scanning/scan-queue';
import { blobKey, consumeIntoBlob, type StoredBlob } from '../storage/blobs';
import { type FileRow, insertFiles } from '../storage/files-repo';
import { decideFileType, SNIFF_BYTES } from './file-type';
import { newFileId } from './ids';
import { cleanOriginalName, storedFilename } from './names';
import { expiryOf, type FileDraft, fileEventData, fileRow } from './records';
import { uploadError } from './upload-errors';
import type { RecordOptions } from './upload-fields';
import { blobMetadata } from './upload-owner';
import { startScans } from './upload-scans';
import type { UploadDeps } from './upload-session';

/**
 * A file read to its end: its size is known, its write to R2 may still be finishing (`stored`),
 * and it has no row yet.
 */
export type PendingFile = FileDraft & { size: number; stored: Promise<StoredBlob> };

/**
 * Where a file's bytes come from (a multipart part, a raw body): chunks of one file's bytes, null
 * at the end. A `transient` source reuses one buffer: a chunk is valid only until the next read,
 * so whoever keeps one past that copies it.
 */
export type ChunkSource = { read(): Promise<Uint8Array | null>; readonly transient?: boolean };

/**
 * What is known of a file before its bytes: its name and declared type (and, raw, its length), and
 * whether it is an age file (`e2e`, with its `meta`; see src/e2e/).
 */
export type IncomingFile = {
  filename: string | undefined;
  contentType: string | undefined;
  length?: number;
  e2e?: { meta: string | null };
};

/**
 * Reads the current part (a file) to its end: decides its type from its first bytes and
 * streams it into R2. The write's last step (the put, or the last part and the completion)
 * runs on while the caller reads the next part or commits the file to the quota.
 */
export async function readFilePart(deps: UploadDeps, reader: ChunkSource, part: IncomingFile): Promise<PendingFile> {
  if (part.e2e) return readAgeFile(deps, reader, part, part.e2e);
  const originalName = cleanOriginalName(part.filename);
  const head: Uint8Array[] = [];
  let headBytes = 0;
  while (headBytes < SNIFF_BYTES) {
    // A transient chunk kept while the next one is read must be copied first.
    const last = head.length - 1;
    if (reader.transient && last >= 0) head[last] = (head[last] as Uint8Array).slice();
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

  let queued: Uint8Array | undefined = sample;
  const pull = async () => {
    if (queued) {
      const chunk = queued;
      queued = undefined;
      return chunk;
    }
    return reader.read();
  };
  return storeFile(deps, { pull, transient: reader.transient }, part.length, {
    originalName,
    mimeType: decision.mimeType,
  });
}

/**
 * Reads an age file (src/e2e/): its header split off as the bytes stream and checked, then its
 * payload stored as the file's bytes, its length checked before the write completes (at once when
 * the body's length is known). No type is sniffed: an age payload is opaque bytes.
 */
async function readAgeFile(
  deps: UploadDeps,
  reader: ChunkSource,
  part: IncomingFile,
  e2e: { meta: string | null },
): Promise<PendingFile> {
  const { header, rest } = await splitHeader(() => reader.read());
  const length = part.length === undefined ? undefined : part.length - header.length;
  if (length !== undefined) checkPayloadLength(length);
  let queued: Uint8Array | undefined = rest.length > 0 ? rest : undefined;
  let total = 0;
  const pull = async () => {
    const chunk = queued ?? (await reader.read());
    queued = undefined;
    // The last read of a body of unknown length: a payload no age file has is refused before its write completes.
    if (chunk === null && length === undefined) checkPayloadLength(total);
    total += chunk?.length ?? 0;
    return chunk;
  };
  return storeFile(deps, { pull, transient: reader.transient }, length, {
    originalName: cleanOriginalName(part.filename),
    mimeType: AGE_MEDIA_TYPE,
    e2e: { header, meta: e2e.meta },
  });
}

/** An age file is served as what it is to the server: bytes of no known type. */
const AGE_MEDIA_TYPE = 'application/octet-stream';

/** Streams a file's bytes (`pull`) into R2 as a new file of the owner, counted against the quota as they arrive. */
async function storeFile(
  deps: UploadDeps,
  source: { pull: () => Promise<Uint8Array | null>; transient?: boolean },
  knownLength: number | undefined,
  draft: Pick<FileDraft, 'originalName' | 'mimeType' | 'e2e'>,
): Promise<PendingFile> {
  const id = newFileId();
  // Each file's bytes count against the owner's quota as they arrive (see docs/limits.md).
  const quota = deps.session.quota;
  try {
    const consumed = await consumeIntoBlob(deps.bucket, blobKey(deps.owner.accountId, id), source.pull, {
      maxBytes: deps.config.MAX_FILE_SIZE,
      contentType: draft.mimeType,
      customMetadata: blobMetadata(deps.owner, id),
      onBytes: (total) => quota.need(id, total),
      owner: deps.session,
      knownLength,
      transientChunks: source.transient,
    });
    const stored = consumed.finish().catch((error: unknown) => {
      quota.drop(id);
      throw error;
    });
    // Awaited by whoever records the file; a failure here is reported there.
    stored.catch(() => undefined);
    return {
      id,
      ...draft,
      filename: storedFilename(draft.originalName, id),
      size: consumed.size,
      sha256: consumed.sha256,
      crc32: consumed.crc32,
      stored,
    };
  } catch (error) {
    quota.drop(id);
    throw error;
  }
}

/**
 * Refuses a file whose bytes do not hash to what the client asserted: 400 DIGEST_MISMATCH. Called
 * after the bytes are read and before the quota commit and the row, so a refused file leaves
 * nothing (its blob is its session's to delete, its hold is released).
 */
export function checkDigest(file: Pick<PendingFile, 'sha256'>, expected: string | undefined, source: string): void {
  if (expected === undefined || file.sha256 === null || expected.toLowerCase() === file.sha256) return;
  throw new ApiError(
    'DIGEST_MISMATCH',
    `The file's SHA-256 is ${file.sha256}, not the ${source} sent; nothing was stored`,
    {
      details: [{ field: source, message: `expected ${expected.toLowerCase()}, got ${file.sha256}` }],
    },
  );
}

/**
 * Makes files permanent. Files whose SHA-256 is on the blocklist are refused first (451
 * CONTENT_BLOCKED, an `upload.blocked` event for the owner): they never count, and their blobs are
 * the session's to delete. The owner's account then commits the other files that fit (the quota
 * and the file limit are enforced there) while their writes to R2 finish; then the rows of the
 * files both committed and stored go in one batch (one transaction). A file the account refused
 * fails with STORAGE_EXCEEDED, one whose write failed with its storage error (and is taken off the
 * account again); if the rows cannot be written, the files are taken off the account too.
 * Blobs without a row are left to the session to delete. `alongside`: statements that go in
 * the rows' batch (a tus final upload's segments).
 */
export async function recordFiles(
  deps: UploadDeps,
  files: PendingFile[],
  options: RecordOptions & { alongside?: D1PreparedStatement[] },
): Promise<{ rows: FileRow[]; failures: Map<string, ApiError> }> {
  const now = options.now ?? Date.now();
  const expiry = expiryOf(options.expiresInSeconds, deps.config.DEFAULT_EXPIRY_SECONDS, now);
  return deps.session.record(async (recorded) => {
    const failures = new Map<string, ApiError>();
    if (files.length === 0) return { rows: [], failures };
    const storing = Promise.all(
      files.map((file) =>
        file.stored.then(
          (blob) => ({ file, blob }),
          (error: unknown) => ({ file, error: uploadError(error) }),
        ),
      ),
    );
    // The blocklist's one read runs while the last writes finish, and ends before anything counts.
    // An age file's SHA-256 is its ciphertext's, unique to its file key: not looked up (docs/e2e.md).
    const blocked = await blockedFiles(
      deps.db,
      files.map((file) => ({ id: file.id, sha256: file.sha256, encrypted: file.e2e !== undefined })),
    ).catch(async (error: unknown) => {
      await storing;
      throw error;
    });
    if (blocked.size > 0) refuseBlocked(deps, files, blocked, failures, options.requestId);
    const admitted = files.filter((file) => !blocked.has(file.id));
    if (admitted.length === 0) {
      // Every write ends before the session deletes the blobs.
      await storing;
      return { rows: [], failures };
    }
    const committing = deps.session.quota.commit(
      admitted.map((file) => ({ id: file.id, size: file.size, expiresAt: expiry })),
    );
    committing.catch(() => undefined);
    const stored = (await storing).filter((result) => !blocked.has(result.file.id));
    const { accepted, refused } = await committing;
    const rows: FileRow[] = [];
    const unstored: typeof files = [];
    for (const result of stored) {
      const { id } = result.file;
      const exceeded = refused.get(id);
      if (exceeded) failures.set(id, storageExceeded(deps.owner.limits, exceeded));
      else if ('error' in result) {
        failures.set(id, result.error);
        if (accepted.has(id)) unstored.push(result.file);
      } else
        rows.push(
          fileRow(deps.owner.accountId, result.file, result.blob, {
            isPublic: options.isPublic,
            expiresAt: expiry,
            now,
            requestId: options.requestId,
            scan: scanOnArrival(deps.config, {
              requestId: options.requestId,
              encrypted: result.file.e2e !== undefined,
            }),
          }),
        );
    }
    const giveBack = (gone: { id: string; size: number }[]) =>
      freeFiles(
        deps.accounts,
        gone.map((file) => ({ accountId: deps.owner.accountId, id: file.id, size: file.size, expiresAt: expiry })),
      );
    if (unstored.length > 0) await giveBack(unstored);
    try {
      if (rows.length > 0) await insertFiles(deps.db, rows, options.alongside);
    } catch (error) {
      await giveBack(rows);
      throw new ApiError('UPLOAD_FAILED', 'The file could not be recorded', { cause: error });
    }
    recorded(rows.map((row) => row.r2_key));
    startScans(deps, rows);
    emitEvents(
      deps.events,
      rows.map((row) => ({ accountId: row.account_id, type: 'file.uploaded', data: { file: fileEventData(row) } })),
    );
    return { rows, failures };
  });
}

/**
 * Blocked files fail alone (451 CONTENT_BLOCKED): nothing of them counts or is kept, and their
 * owner hears of each (`upload.blocked`, with the hash, the name, the size and the file request).
 */
function refuseBlocked(
  deps: UploadDeps,
  files: PendingFile[],
  blocked: Set<string>,
  failures: Map<string, ApiError>,
  requestId: string | undefined,
): void {
  const refused = files.filter((file) => blocked.has(file.id));
  for (const file of refused) failures.set(file.id, contentBlocked());
  emitEvents(
    deps.events,
    refused.map((file) => ({
      accountId: deps.owner.accountId,
      type: 'upload.blocked',
      data: {
        sha256: file.sha256 ?? '',
        originalName: file.originalName,
        size: file.size,
        requestId: requestId ?? null,
      },
    })),
  );
}

/** Makes one file permanent (see recordFiles): its row, or the error that refused it. */
export async function recordFile(
  deps: UploadDeps,
  file: PendingFile,
  options: RecordOptions & { alongside?: D1PreparedStatement[] },
): Promise<FileRow> {
  const { rows, failures } = await recordFiles(deps, [file], options);
  const row = rows[0];
  if (!row) throw failures.get(file.id) ?? new ApiError('UPLOAD_FAILED', 'The file could not be recorded');
  return row;
}
