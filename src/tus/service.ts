// The tus upload service: create, append, look up, terminate. R2, D1 and the two Durable Objects
// together; no HTTP here (the router turns results into tus responses).

import { type AccountsNamespace, QuotaTicket, releaseHold, reserveStorage } from '../accounts/account-storage-client';
import type { Config } from '../config';
import { admitUpload, type E2eAdmission } from '../e2e/age-checks';
import type { ApiKeyContext } from '../env';
import { ApiError, forbidden, unauthorized } from '../errors';
import type { EventSink } from '../events/emit';
import { extensionFor, normalizeMediaType } from '../files/file-type';
import { FILE_ID_PATTERN, newFileId } from '../files/ids';
import { cleanOriginalName, storedFilename } from '../files/names';
import { isRunnableType, runnableExtension } from '../files/runnable';
import { deleteFile, getOwnedFile } from '../files/service';
import { checkDigest, recordFile } from '../files/upload';
import { fileTooLarge, uploadError } from '../files/upload-errors';
import { recordOptions } from '../files/upload-fields';
import type { UploadOwner } from '../files/upload-owner';
import { inSession, openUpload } from '../files/upload-session';
import type { LimiterNamespace } from '../limiter/key-limiter-client';
import { hasScope } from '../limiter/scopes';
import { log } from '../log';
import { AS_ASKED, type UploadRules } from '../policy/service';
import type { ScanQueue } from '../scanning/scan-queue';
import { blobKey, type StoredBlob } from '../storage/blobs';
import type { FileRow } from '../storage/files-repo';
import { isSegmented, segmentKey, segmentsOf } from '../storage/segments';
import { isSegmentedFileOf } from '../storage/segments-repo';
import { type AppendResult, appendToUpload, UploadEnded } from './part-writer';
import { type Checksum, finalConcat, maxUploadLength, parseMetadata, partSizeFor } from './protocol';
import { MAX_UPLOAD_LIFETIME_MS, type UploadNamespace, uploadObject } from './tus-upload-client';
import type { UploadMeta, UploadSnapshot, UploadView } from './tus-upload-contract';

export type UploadsDeps = {
  bucket: R2Bucket;
  db: D1Database;
  limiter: LimiterNamespace;
  accounts: AccountsNamespace;
  uploads: UploadNamespace;
  config: Config;
  /** Whose uploads these are: a key's account (and the key), or a file request's account. */
  owner: UploadOwner;
  /** Whether uploads may be age files here, and must be (an e2e file request): judged at creation. */
  e2e: E2eAdmission;
  waitUntil: (promise: Promise<unknown>) => void;
  events: EventSink;
  scans: ScanQueue;
  /** Set for an upload through a file request (src/requests/): its file records the request. */
  requestId?: string;
  /**
   * Whether the key that sends this request is still active and unexpired, asked right before a
   * completed upload's file is recorded. Unset where no key sends it (a file request's uploads).
   */
  keyStillActive?: () => Promise<boolean>;
  /**
   * How a new upload's expiry and visibility are decided (the account's policy, src/policy/),
   * judged when it is created, before any byte. Unset: the metadata's as they are (a file
   * request's uploads, whose options the request decides).
   */
  rules?: UploadRules;
};

// A reservation outlives its upload's deadline a little: the upload's object releases it first.
const RESERVATION_MARGIN_MS = 60 * 60 * 1000;

export const uploadNotFound = () => new ApiError('FILE_NOT_FOUND', 'Upload not found');
const uploadGone = () => new ApiError('UPLOAD_GONE');

/** The name of an upload created without one: `upload`, with the declared type's extension. */
export const UNNAMED_UPLOAD = 'upload';

/**
 * filename, filetype, isPublic, expiresIn: as the multipart upload's parts. All are optional
 * (tus 1.0: "The Client MAY supply the Upload-Metadata header"): without a filename the file is
 * named `upload` plus the usual extension of the declared filetype (`upload.png`), or just
 * `upload`.
 */
export function uploadMeta(
  header: string | undefined,
  rules: UploadRules = AS_ASKED,
  e2e: E2eAdmission | undefined = undefined,
): UploadMeta {
  const pairs = parseMetadata(header);
  const declared = pairs.get('filename');
  const filetype = pairs.get('filetype');
  const filename =
    declared === undefined || declared.trim() === ''
      ? UNNAMED_UPLOAD + extensionFor(normalizeMediaType(filetype))
      : declared;
  const fields: Record<string, string> = {};
  for (const name of ['isPublic', 'expiresIn', 'sha256']) {
    const value = pairs.get(name);
    if (value !== undefined) fields[name] = value.trim();
  }
  const options = recordOptions(fields, rules);
  // `encryption age` (and its `meta`): an age file, judged by the way in (src/e2e/).
  const age = e2e && admitUpload(e2e, { encryption: pairs.get('encryption'), meta: pairs.get('meta') });
  return {
    originalName: cleanOriginalName(filename),
    declaredType: filetype === undefined || filetype.trim() === '' ? undefined : filetype,
    isPublic: options.isPublic,
    expiresInSeconds: options.expiresInSeconds,
    sha256: options.sha256,
    ...(age ? { e2e: age } : {}),
  };
}

/**
 * Creates an upload: checks its length against MAX_FILE_SIZE and the owner's quota (reserving
 * the length and one file until the upload ends), then its metadata, refusing a name or
 * declared type that runs when opened, and creates the upload's object. Nothing is written to R2
 * yet. Size and quota come first: a client told 413 need not fix its metadata to learn it.
 */
export async function createUpload(
  deps: UploadsDeps,
  request: { length: number; metadata: string | undefined; concat?: 'partial'; now?: number },
): Promise<UploadView> {
  const { config, owner } = deps;
  const max = maxUploadLength(config.MAX_FILE_SIZE);
  if (request.length > max) throw fileTooLarge(max);

  const now = request.now ?? Date.now();
  const deadline = now + MAX_UPLOAD_LIFETIME_MS;
  const holdId = await reserveStorage(deps.accounts, owner, request.length, deadline + RESERVATION_MARGIN_MS);
  let meta: UploadMeta;
  try {
    // A partial upload is no file: its options (and whether it is an age file) are its final upload's to decide.
    meta = request.concat ? checkedMeta(request.metadata) : checkedMeta(request.metadata, deps.rules, deps.e2e);
  } catch (error) {
    await releaseHold(deps.accounts, owner.accountId, holdId);
    throw error;
  }
  const id = newFileId();
  try {
    return await uploadObject(deps.uploads, id).create({
      id,
      accountId: owner.accountId,
      length: request.length,
      metadata: request.metadata,
      meta,
      // A partial's object is no file's until a final takes it: outside files/ (see segments.ts).
      r2Key: request.concat ? segmentKey(owner.accountId, id) : blobKey(owner.accountId, id),
      concat: request.concat,
      partSize: partSizeFor(request.length),
      holdId,
      expiresAt: Math.min(now + config.TUS_EXPIRY_SECONDS * 1000, deadline),
      deadline,
      now,
    });
  } catch (error) {
    await releaseHold(deps.accounts, owner.accountId, holdId);
    throw new ApiError('SERVICE_UNAVAILABLE', 'The upload could not be created, try again', { cause: error });
  }
}

/**
 * The metadata of a new upload, refused when its name or declared type runs when opened, or its
 * options break the policy (`rules`).
 */
export function checkedMeta(header: string | undefined, rules?: UploadRules, e2e?: E2eAdmission): UploadMeta {
  const meta = uploadMeta(header, rules, e2e);
  // An age file is opaque bytes to the server: no type rule applies to it.
  if (meta.e2e) return meta;
  const runnable = runnableExtension(meta.originalName);
  if (runnable) throw new ApiError('INVALID_FILE_TYPE', `File type not allowed: .${runnable} files are not allowed`);
  const declared = normalizeMediaType(meta.declaredType);
  if (isRunnableType(declared))
    throw new ApiError('INVALID_FILE_TYPE', `File type not allowed: ${declared} files are not allowed`);
  return meta;
}

export type AppendOutcome =
  | { complete: false; offset: number; expiresAt: number }
  | { complete: true; offset: number; fileId: string };

export type AppendBody = {
  offset: number;
  body: ReadableStream<Uint8Array> | null;
  contentLength: number | undefined;
  checksum: Checksum | undefined;
  signal?: AbortSignal;
};

/**
 * A PATCH: takes the upload's lease at `offset` (409 when the upload is elsewhere or another
 * PATCH holds it), streams the bytes into R2, and either moves the offset or, at the last byte,
 * makes the file an ordinary file (commit to the owner's account, then the row). A type refused at
 * the first bytes ends the upload.
 */
export async function appendToOwnUpload(deps: UploadsDeps, id: string, request: AppendBody): Promise<AppendOutcome> {
  if (!FILE_ID_PATTERN.test(id)) throw uploadNotFound();
  const stub = uploadObject(deps.uploads, id);
  const begun = await stub.begin({ accountId: deps.owner.accountId, offset: request.offset });
  if (begun.status === 'not-found') {
    // tus: "The Server MUST respond with the 403 Forbidden status to PATCH requests against a final upload".
    if (await isSegmentedFileOf(deps.db, id, deps.owner.accountId)) throw finalNotPatchable();
    throw uploadNotFound();
  }
  if (begun.status === 'gone') throw uploadGone();
  // A client resuming a finished upload with nothing left to send (a chunked body is read, not trusted).
  if (begun.status === 'completed' && request.offset === begun.length && (await isEmpty(request))) {
    if (begun.partial) return { complete: false, offset: begun.length, expiresAt: begun.expiresAt ?? 0 };
    return { complete: true, offset: begun.length, fileId: id };
  }
  if (begun.status !== 'ok') {
    const why =
      begun.status === 'busy'
        ? 'another request is writing to this upload'
        : `the upload is at offset ${begun.offset}, not ${request.offset}`;
    throw new ApiError('UPLOAD_CONFLICT', `Upload-Offset conflict: ${why}`);
  }

  let result: AppendResult;
  try {
    result = await appendToUpload({
      bucket: deps.bucket,
      stub,
      lease: begun.lease,
      upload: begun.upload,
      body: request.body,
      contentLength: request.contentLength,
      checksum: request.checksum,
      allowedTypes: deps.config.ALLOWED_FILE_TYPES,
      expiryMs: deps.config.TUS_EXPIRY_SECONDS * 1000,
      signal: request.signal,
      waitUntil: deps.waitUntil,
    });
  } catch (error) {
    // A refused type, bytes that are no age file, or a last part R2 could not complete, end the upload and free
    // everything it held.
    if (
      error instanceof UploadEnded ||
      (error instanceof ApiError && (error.code === 'INVALID_FILE_TYPE' || error.code === 'E2E_INVALID'))
    )
      await stub.terminate({ accountId: deps.owner.accountId }).catch((cause: unknown) => {
        log('error', 'failed upload not terminated', { uploadId: begun.upload.id, error: String(cause) });
      });
    throw error instanceof ApiError
      ? error
      : new ApiError('UPLOAD_FAILED', 'The bytes could not be stored', { cause: error });
  }
  if (!result.complete) return result;
  if (begun.upload.concat === 'partial') return completePartial(deps, begun.upload, begun.lease, result);
  const row = await recordUpload(deps, begun.upload, begun.lease, result);
  return { complete: true, offset: begun.upload.length, fileId: row.id };
}

/**
 * A partial upload's last byte is stored: its object waits for a final upload (no file, no row,
 * no X-File-Id), keeping its CRC-32 for that final; the answer is an ordinary PATCH's.
 */
async function completePartial(
  deps: UploadsDeps,
  upload: UploadSnapshot,
  lease: string,
  stored: { blob: StoredBlob; crc32: number | null },
): Promise<AppendOutcome> {
  const expiresAt = Date.now() + deps.config.TUS_EXPIRY_SECONDS * 1000;
  const stub = uploadObject(deps.uploads, upload.id);
  const done = await stub
    .completePartial({ lease, etag: stored.blob.etag, crc32: stored.crc32, expiresAt })
    .catch(async (error: unknown) => {
      // The object is complete but its upload could not record it: the upload ends, and its
      // object (no file's) and reservation go with it.
      await stub.terminate({ accountId: deps.owner.accountId }).catch((cause: unknown) => {
        log('error', 'failed upload not terminated', { uploadId: upload.id, error: String(cause) });
      });
      throw new UploadEnded(error);
    });
  if (!done)
    throw new ApiError('UPLOAD_CONFLICT', 'Another request took over this upload, or it ended; ask its offset again');
  return { complete: false, offset: upload.length, expiresAt: Math.min(expiresAt, upload.deadline) };
}

/** DELETE of a partial upload a final upload took: its bytes are the final's file now. */
export const partialTaken = (id: string) =>
  new ApiError(
    'UPLOAD_CONFLICT',
    `The partial upload ${id} is part of a final upload: delete the final upload's file instead`,
  );

const finalNotPatchable = () => new ApiError('FORBIDDEN', 'A final upload (Upload-Concat: final) takes no PATCH');

async function isEmpty(request: AppendBody): Promise<boolean> {
  if (request.contentLength !== undefined || !request.body) return (request.contentLength ?? 0) === 0;
  const reader = request.body.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    if (next.value.length > 0) {
      await reader.cancel();
      return false;
    }
  }
  return true;
}

/**
 * The last byte is stored: the key (if one sends it) is checked again, then the object is
 * committed to the owner's account (ending the reservation) and its row written, exactly as a
 * multipart upload's file. If any of that fails the upload ends: the object is deleted and
 * everything the upload held given back.
 */
async function recordUpload(
  deps: UploadsDeps,
  upload: UploadSnapshot,
  lease: string,
  result: Extract<AppendResult, { complete: true }>,
): Promise<FileRow> {
  const stub = uploadObject(deps.uploads, upload.id);
  const reserved = { id: upload.holdId, bytes: upload.length, files: 1 };
  const fileDeps = openUpload(deps, new QuotaTicket(deps.accounts, deps.owner, reserved));
  return inSession(fileDeps.session, async () => {
    try {
      fileDeps.session.own(result.blob.key);
      const file = {
        id: upload.id,
        originalName: upload.meta.originalName,
        filename: storedFilename(upload.meta.originalName, upload.id),
        mimeType: result.mimeType,
        size: result.blob.size,
        sha256: result.sha256,
        crc32: result.crc32,
        stored: Promise.resolve(result.blob),
        ...(result.e2eHeader === undefined
          ? {}
          : { e2e: { header: result.e2eHeader, meta: upload.meta.e2e?.meta ?? null } }),
      };
      // A whole-file sha256 in Upload-Metadata: a mismatch ends the upload, nothing is recorded.
      checkDigest(file, upload.meta.sha256, 'sha256');
      // The key may have been revoked (or expired) while the body streamed: then no file, and the
      // upload ends like any that fails here (its object deleted, its reservation released).
      if (deps.keyStillActive && !(await deps.keyStillActive())) throw unauthorized();
      const row = await recordFile(fileDeps, file, {
        isPublic: upload.meta.isPublic,
        expiresInSeconds: upload.meta.expiresInSeconds,
        requestId: deps.requestId,
      });
      // The file is recorded whatever the upload's object answers; a failure only leaves its
      // state to expire (its cleanup never touches the file).
      await stub.complete({ lease }).catch((error: unknown) => {
        log('error', 'upload not marked complete', { uploadId: upload.id, error: String(error) });
      });
      return row;
    } catch (error) {
      await stub.terminate({ accountId: deps.owner.accountId }).catch((cause: unknown) => {
        log('error', 'failed upload not terminated', { uploadId: upload.id, error: String(cause) });
      });
      throw uploadError(error);
    }
  });
}

/** The upload as its owner sees it. A completed upload whose state is forgotten is read from its file row. */
export async function uploadStatus(deps: UploadsDeps, id: string): Promise<UploadView> {
  if (!FILE_ID_PATTERN.test(id)) throw uploadNotFound();
  const found = await uploadObject(deps.uploads, id).view({ accountId: deps.owner.accountId });
  if (found.status !== 'not-found') return found;
  const row = await getOwnedFile(deps, id, deps.owner.accountId).catch(() => undefined);
  if (!row) throw uploadNotFound();
  // An age file's upload was its header and payload; the row's size is the payload's.
  const length = row.size + (row.e2e_header?.length ?? 0);
  const status: UploadView = {
    id,
    status: 'completed',
    length,
    offset: length,
    metadata: undefined,
    expiresAt: 0,
  };
  // A final upload (its bytes in segments): HEAD names its partials as Upload-Concat did.
  if (isSegmented(row.r2_key)) status.concat = finalConcat(await segmentsOf(deps, row));
  return status;
}

/** The record of the file a completed upload became (404 once that file is gone). */
export async function uploadedFile(deps: UploadsDeps, id: string): Promise<FileRow> {
  const status = await uploadStatus(deps, id);
  if (status.status === 'active') {
    throw new ApiError('UPLOAD_INCOMPLETE', `The upload is not complete: ${status.offset} of ${status.length} bytes`);
  }
  if (status.status !== 'completed') throw uploadGone();
  return getOwnedFile(deps, id, deps.owner.accountId);
}

/**
 * Termination: an unfinished upload gives back everything at once; a completed one is deleted
 * like its file (DELETE /files/{id}), which takes the files:delete scope of the `key` asking.
 * Afterwards the upload answers 410 (404 once forgotten).
 */
export async function terminateUpload(
  deps: UploadsDeps,
  key: Pick<ApiKeyContext, 'scopes'>,
  id: string,
): Promise<void> {
  const status = await uploadStatus(deps, id);
  if (status.status === 'terminated' || status.status === 'expired') throw uploadGone();
  if (status.concat === 'partial') {
    const ended = await uploadObject(deps.uploads, id).terminate({ accountId: deps.owner.accountId });
    // A partial a final upload took holds the final's bytes: it is the final's to delete.
    if ('claimed' in ended && ended.claimed) throw partialTaken(id);
    return;
  }
  if (status.status === 'completed') {
    // Terminating a finished upload deletes its file: that takes what deleting it takes.
    if (!hasScope(key.scopes, 'files:delete')) throw forbidden('files:delete');
    await deleteFile(deps, id, deps.owner.accountId).catch((error: unknown) => {
      if (!(error instanceof ApiError && error.code === 'FILE_NOT_FOUND')) throw error;
    });
  }
  await uploadObject(deps.uploads, id).terminate({ accountId: deps.owner.accountId });
}
