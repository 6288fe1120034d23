// tus concatenation (tus.io/protocols/resumable-upload#concatenation): a final upload made of
// partial uploads, so clients send one file over several connections at once (tus-js-client's
// parallelUploads). Each partial writes its own R2 object (segments/…) and keeps its
// reservation; the final takes them, in order, without copying a byte: its row points at
// concat/<account>/<id> and its bytes are the partials' objects (file_segments, migration 0011,
// read through src/storage/segments.ts). No HTTP here: the router turns results into answers.

import { freeFiles, QuotaTicket } from '../accounts/account-storage-client';
import { checkPayloadLength, invalid } from '../e2e/age-checks';
import { ApiError, unauthorized, validationError } from '../errors';
import { decideFileType, SNIFF_BYTES } from '../files/file-type';
import { FILE_ID_PATTERN, newFileId } from '../files/ids';
import { storedFilename } from '../files/names';
import { recordFile } from '../files/upload';
import { fileTooLarge } from '../files/upload-errors';
import { inSession, openUpload } from '../files/upload-session';
import { checkHeader, HEADER_MAX_BYTES } from '../lib/age/format';
import { crc32, crc32Combine } from '../lib/crc32';
import { toHex } from '../lib/encoding';
import { log } from '../log';
import type { FileRow } from '../storage/files-repo';
import { concatKey, digestSegments, readSegmentsHead } from '../storage/segments';
import { abandonSegmentedFile, type Segment, type SegmentRow, segmentInserts } from '../storage/segments-repo';
import { checkedMeta, type UploadsDeps, uploadNotFound } from './service';
import { uploadObject } from './tus-upload-client';
import type { ClaimResult, UploadMeta } from './tus-upload-contract';

/** A partial named by a final upload: its id, and its URL as the client wrote it. */
type NamedPartial = { id: string; url: string };
type Claimed = NamedPartial & Extract<ClaimResult, { status: 'ok' }>;

/**
 * The partials a final's `Upload-Concat` names: absolute URLs or paths of uploads under
 * `uploadsPath` (the host is not compared: the API may be reached under several names).
 */
export function namedPartials(urls: string[], uploadsPath: string): NamedPartial[] {
  const seen = new Set<string>();
  return urls.map((url) => {
    let path: string;
    try {
      path = new URL(url, 'http://upload.invalid').pathname;
    } catch {
      throw validationError('Upload-Concat', `${url} is not a URL`);
    }
    const id = path.startsWith(`${uploadsPath}/`) ? path.slice(uploadsPath.length + 1) : '';
    if (!FILE_ID_PATTERN.test(id)) throw validationError('Upload-Concat', `${url} names no upload of ${uploadsPath}`);
    if (seen.has(id)) throw validationError('Upload-Concat', `${url} is named more than once`);
    seen.add(id);
    return { id, url };
  });
}

/** Why a partial cannot be part of a final upload, as the error the client gets. */
function refused(part: NamedPartial, result: Exclude<ClaimResult, { status: 'ok' }>): ApiError {
  switch (result.status) {
    case 'not-found':
      return uploadNotFound();
    case 'not-partial':
      return validationError('Upload-Concat', `${part.url} is not a partial upload (Upload-Concat: partial)`);
    case 'gone':
      return new ApiError('UPLOAD_GONE', `The partial upload ${part.url} has expired or was terminated`);
    case 'claimed':
      return new ApiError('UPLOAD_CONFLICT', `The partial upload ${part.url} is already part of another final upload`);
    case 'incomplete':
      return new ApiError(
        'UPLOAD_INCOMPLETE',
        `The partial upload ${part.url} is not complete: ${result.offset} of ${result.length} bytes`,
      );
  }
}

/** The metadata of a final upload: as any upload's, except a sha256 it cannot check while creating. */
function finalMeta(header: string | undefined, deps: Pick<UploadsDeps, 'rules' | 'e2e'>): UploadMeta {
  const meta = checkedMeta(header, deps.rules, deps.e2e);
  if (meta.sha256 !== undefined) {
    throw validationError(
      'Upload-Metadata',
      'sha256 is not taken for a final upload: its digest is computed from its partials (see its sha256 field)',
    );
  }
  return meta;
}

/**
 * Creates a final upload from complete partials (in the order named): claims each partial in
 * its object (in id order, so of two finals racing for a partial, one wins), decides the type
 * from the first bytes against the metadata, checks that the key is still active, and records
 * the file, its quota converted from the partials' reservations in one step. Anything refused gives the claims back: the
 * partials stay as they were, and expire as before. Returns the file's row.
 */
export async function createFinalUpload(
  deps: UploadsDeps,
  request: { urls: string[]; uploadsPath: string; metadata: string | undefined },
): Promise<FileRow> {
  const parts = namedPartials(request.urls, request.uploadsPath);
  const meta = finalMeta(request.metadata, deps);
  const finalId = newFileId();
  const claims = new Map<string, Claimed>();
  let row: FileRow;
  try {
    for (const part of [...parts].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      const result = await uploadObject(deps.uploads, part.id).claim({ accountId: deps.owner.accountId, finalId });
      if (result.status !== 'ok') throw refused(part, result);
      claims.set(part.id, { ...part, ...result });
    }
    const ordered = parts.map((part) => claims.get(part.id) as Claimed);
    const whole: Omit<SegmentRow, 'seq'>[] = ordered.map((claim) => ({
      r2_key: claim.r2Key,
      size: claim.length,
      start: 0,
      upload_id: claim.id,
      upload_url: claim.url,
    }));
    const total = whole.reduce((sum, segment) => sum + segment.size, 0);
    if (total > deps.config.MAX_FILE_SIZE) throw fileTooLarge(deps.config.MAX_FILE_SIZE);
    const combined = finalCrc32(ordered);
    const { segments, size, ...content } = meta.e2e
      ? await splitAgeFinal(deps.bucket, whole, total, combined)
      : {
          segments: whole,
          size: total,
          ...(await finalType(deps, whole, meta)),
          crc32: combined,
          e2eHeader: undefined,
        };
    // The SHA-256 could not be hashed as the bytes arrived (each partial was on its own): the
    // file's bytes (an age file's payload) are read once, in order, before the file exists, so
    // that its row has its digest and the blocklist is asked before anyone can have the file.
    const digests = await digestSegments(deps.bucket, segments, { crc32: content.crc32 === null }).catch(
      (error: unknown) => {
        // Nothing is created and the claims go back: the same final can be sent again.
        throw new ApiError('SERVICE_UNAVAILABLE', 'The partial uploads could not be read to hash them, try again', {
          cause: error,
        });
      },
    );
    const file = {
      id: finalId,
      meta,
      size,
      etag: await finalEtag(ordered),
      ...content,
      sha256: digests.sha256,
      crc32: content.crc32 ?? digests.crc32,
    };
    // The key may have been revoked (or expired) since the partials, or since this request was
    // admitted: asked again right before the commit, as for a single upload. Then no file, and
    // the claims are given back (the partials stay, and expire as before).
    if (deps.keyStillActive && !(await deps.keyStillActive())) throw unauthorized();
    row = await recordFinal(deps, file, segments, ordered);
  } catch (error) {
    await unclaimAll(deps, [...claims.values()], finalId);
    // Blocked content is not kept for another try: the partials' objects and reservations go.
    if (error instanceof ApiError && error.code === 'CONTENT_BLOCKED') await endAll(deps, [...claims.values()]);
    throw error;
  }
  await confirmAll(deps, row, [...claims.values()]);
  return row;
}

/** A plain final's type, decided from its first bytes against the metadata (415 when refused). */
async function finalType(deps: UploadsDeps, segments: Segment[], meta: UploadMeta): Promise<{ mimeType: string }> {
  const head = await readSegmentsHead(deps.bucket, segments, SNIFF_BYTES);
  const decision = decideFileType(head, meta.declaredType, meta.originalName, deps.config.ALLOWED_FILE_TYPES);
  if (!decision.ok) throw new ApiError('INVALID_FILE_TYPE', `File type not allowed: ${decision.reason}`);
  return { mimeType: decision.mimeType };
}

/**
 * A final upload of an age file (metadata `encryption age`): its header is the first bytes of
 * its first partial(s), read and checked here (16 KiB at most), and is not part of the file's
 * bytes: the segments start past it (`start`, a partial that held only header bytes keeping none),
 * so the file is its payload, whose length is checked. Its CRC-32 is the partials' less the
 * header's, from the CRCs alone: crc(payload) = crc(header ‖ payload) ⊕ crc(header) × x^(8·|payload|).
 */
async function splitAgeFinal(bucket: R2Bucket, whole: Omit<SegmentRow, 'seq'>[], total: number, crc: number | null) {
  const head = await readSegmentsHead(bucket, whole, HEADER_MAX_BYTES + 1);
  const check = checkHeader(head);
  if (!check.ok) throw invalid('file', check.reason, check.detail);
  const headerLength = check.headerLength;
  const size = total - headerLength;
  checkPayloadLength(size);
  let skip = headerLength;
  const segments = whole.map((segment) => {
    const cut = Math.min(skip, segment.size);
    skip -= cut;
    return { ...segment, start: cut, size: segment.size - cut };
  });
  const headerCrc = crc32(head.subarray(0, headerLength));
  return {
    segments,
    size,
    mimeType: 'application/octet-stream',
    crc32: crc === null ? null : (crc ^ crc32Combine(headerCrc, 0, size)) >>> 0,
    e2eHeader: new TextDecoder().decode(head.subarray(0, headerLength)),
  };
}

/** Like a multipart ETag: a digest of the partials' ETags and their number. */
async function finalEtag(claims: Claimed[]): Promise<string> {
  const joined = new TextEncoder().encode(claims.map((claim) => claim.etag).join(','));
  const digest = toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', joined)));
  return `"${digest.slice(0, 32)}-${claims.length}"`;
}

/**
 * The CRC-32 of the partials' bytes in order, from each partial's CRC-32 and length alone (no
 * byte read again); null when a partial has none (completed before CRCs: the final's one
 * digest read, before it is recorded, computes it then).
 */
function finalCrc32(claims: Claimed[]): number | null {
  let crc = 0;
  for (const claim of claims) {
    if (claim.crc32 === null) return null;
    crc = crc32Combine(crc, claim.crc32, claim.length);
  }
  return crc;
}

/**
 * The file's row and segments in one batch, after the account committed it: the partials'
 * reservations (bytes and one file each) end in that same commit, the file counting instead.
 */
async function recordFinal(
  deps: UploadsDeps,
  file: {
    id: string;
    meta: UploadMeta;
    mimeType: string;
    size: number;
    etag: string;
    sha256: string | null;
    crc32: number | null;
    /** An age file's header (its segments hold the payload). */
    e2eHeader: string | undefined;
  },
  segments: Omit<SegmentRow, 'seq'>[],
  claims: Claimed[],
): Promise<FileRow> {
  // The partials' reservations become the file's room in the commit (never released otherwise).
  const quota = new QuotaTicket(
    deps.accounts,
    deps.owner,
    undefined,
    claims.map((claim) => claim.holdId),
  );
  const fileDeps = openUpload(deps, quota);
  return inSession(fileDeps.session, () => {
    const pending = {
      id: file.id,
      originalName: file.meta.originalName,
      filename: storedFilename(file.meta.originalName, file.id),
      mimeType: file.mimeType,
      size: file.size,
      sha256: file.sha256,
      crc32: file.crc32,
      ...(file.e2eHeader === undefined ? {} : { e2e: { header: file.e2eHeader, meta: file.meta.e2e?.meta ?? null } }),
      stored: Promise.resolve({ key: concatKey(deps.owner.accountId, file.id), size: file.size, etag: file.etag }),
    };
    return recordFile(fileDeps, pending, {
      isPublic: file.meta.isPublic,
      expiresInSeconds: file.meta.expiresInSeconds,
      alongside: segmentInserts(deps.db, file.id, segments),
    });
  });
}

async function unclaimAll(deps: UploadsDeps, claims: Claimed[], finalId: string): Promise<void> {
  await Promise.all(
    claims.map((claim) =>
      uploadObject(deps.uploads, claim.id)
        .unclaim({ finalId })
        .catch((error: unknown) =>
          // Left pending, the claim is settled by the partial's alarm (from D1: no row, so free again).
          log('error', 'partial upload claim not given back', { uploadId: claim.id, error: String(error) }),
        ),
    ),
  );
}

/**
 * The row is written: each partial learns its object is the file's. One that cannot be reached
 * settles later from D1 (its alarm finds the row). One whose claim was given up meanwhile
 * (pending past CLAIM_TIMEOUT_MS, a request that stalled for an hour) may have been taken by
 * another final: then this final is taken back before it is ever answered.
 */
async function confirmAll(deps: UploadsDeps, row: FileRow, claims: Claimed[]): Promise<void> {
  const confirmed = await Promise.all(
    claims.map((claim) =>
      uploadObject(deps.uploads, claim.id)
        .confirm({ finalId: row.id })
        .catch(() => true),
    ),
  );
  if (confirmed.every(Boolean)) return;
  log('error', 'final upload lost a claim, taken back', { fileId: row.id });
  if (await abandonSegmentedFile(deps.db, row.id)) {
    await freeFiles(deps.accounts, [
      { accountId: row.account_id, id: row.id, size: row.size, expiresAt: row.expires_at },
    ]);
  }
  await unclaimAll(deps, claims, row.id);
  throw new ApiError('UPLOAD_CONFLICT', 'A partial upload was taken by another final upload meanwhile; try again');
}

/** Ends partials whose final was refused for good (their bytes are blocked): objects and reservations freed. */
async function endAll(deps: UploadsDeps, claims: Claimed[]): Promise<void> {
  await Promise.all(
    claims.map((claim) =>
      uploadObject(deps.uploads, claim.id)
        .terminate({ accountId: deps.owner.accountId })
        .catch((error: unknown) =>
          // Left as it is, the partial expires as any would, freeing both.
          log('error', 'blocked partial upload not ended', { uploadId: claim.id, error: String(error) }),
        ),
    ),
  );
}
