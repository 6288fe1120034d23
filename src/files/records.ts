// A file's row and its API records: the row a stored upload gets, and the one place that
// decides what each version shows of a row.

import type { Origins } from '../env';
import type { FileEventData } from '../events/types';
import { randomBase64Url } from '../lib/crypto';
import type { StoredBlob } from '../storage/blobs';
import type { FileRow, FileStanding, ScanStatus } from '../storage/files-repo';
import { isoNow } from '../time';

export type ApiVersion = 'v1' | 'v2';

/** Where links point: API origin (PUBLIC_BASE_URL or the request's) and site origin (SITE_URL or the request's). */
export type { Origins };

export const downloadUrl = (origins: Origins, version: ApiVersion, id: string) =>
  `${origins.api}/api/${version}/files/${id}/download`;

export const shareUrl = (origins: Origins, token: string) => `${origins.site}/share/${token}`;

/** What the owner sees of a file's moderation (v2): null for a file in good standing. */
export type FileModeration = { state: 'quarantined' | 'removed'; statement: string; at: string } | null;
/** Where a file's scan stands (v2): null when it was never to be scanned (scanning off when it came). */
export type FileScan = { status: ScanStatus; signature: string | null; at: string | null } | null;

export const moderationOf = (row: FileStanding): FileModeration =>
  row.moderation_state === null
    ? null
    : { state: row.moderation_state, statement: row.moderation_statement ?? '', at: row.moderated_at ?? '' };

export const scanOf = (row: FileStanding): FileScan =>
  row.scan_status === null ? null : { status: row.scan_status, signature: row.scan_signature, at: row.scanned_at };

type UploadRecordV1 = ReturnType<typeof uploadFields> & { uploadedAt: string; expiresAt?: string };
/** v2's end-to-end encryption fields (docs/e2e.md). */
type E2eFields = { encryption: 'age' | null; meta: string | null };
type UploadRecordV2 = UploadRecordV1 & {
  isPublic: boolean;
  sha256: string | null;
  moderation: FileModeration;
  scan: FileScan;
} & E2eFields;

const e2eFields = (row: FileRow): E2eFields => ({
  encryption: row.encryption === 'age' ? 'age' : null,
  meta: row.meta ?? null,
});

const uploadFields = (row: FileRow, version: ApiVersion, origins: Origins) => ({
  id: row.id,
  filename: row.filename,
  size: row.size,
  mimeType: row.mime_type,
  downloadUrl: downloadUrl(origins, version, row.id),
  shareUrl: shareUrl(origins, row.share_token),
});

/** The upload answer: the seed's fields, plus `expiresAt` when the file expires (absent otherwise); v2 adds isPublic and sha256. */
export function uploadRecord(row: FileRow, version: 'v2', origins: Origins): UploadRecordV2;
export function uploadRecord(row: FileRow, version: ApiVersion, origins: Origins): UploadRecordV1 | UploadRecordV2;
export function uploadRecord(row: FileRow, version: ApiVersion, origins: Origins): UploadRecordV1 | UploadRecordV2 {
  const base = uploadFields(row, version, origins);
  const expiry = row.expires_at === null ? {} : { expiresAt: row.expires_at };
  return version === 'v1'
    ? { ...base, uploadedAt: row.uploaded_at, ...expiry }
    : {
        ...base,
        isPublic: row.is_public === 1,
        sha256: row.sha256,
        moderation: moderationOf(row),
        scan: scanOf(row),
        ...e2eFields(row),
        uploadedAt: row.uploaded_at,
        ...expiry,
      };
}

type FileRecordV1 = ReturnType<typeof recordOf>;
/**
 * v2 adds isPublic, requestId, sha256 (null for a file stored before digests, until it is
 * backfilled), what stands between the file and its visitors (moderation and scan), and an
 * encrypted file's encryption, meta and owner's header.
 */
export type FileRecordV2 = FileRecordV1 & {
  isPublic: boolean;
  requestId: string | null;
  sha256: string | null;
  moderation: FileModeration;
  scan: FileScan;
} & E2eFields & { e2eHeader: string | null };

export function fileRecord(row: FileRow, version: 'v2', origins: Origins): FileRecordV2;
export function fileRecord(row: FileRow, version: ApiVersion, origins: Origins): FileRecordV1 | FileRecordV2;
export function fileRecord(row: FileRow, version: ApiVersion, origins: Origins): FileRecordV1 | FileRecordV2 {
  const base = recordOf(row, version, origins);
  return version === 'v1'
    ? base
    : {
        ...base,
        isPublic: row.is_public === 1,
        requestId: row.request_id ?? null,
        sha256: row.sha256,
        moderation: moderationOf(row),
        scan: scanOf(row),
        ...e2eFields(row),
        e2eHeader: row.e2e_header ?? null,
      };
}

function recordOf(row: FileRow, version: ApiVersion, origins: Origins) {
  return {
    id: row.id,
    filename: row.filename,
    originalName: row.original_name,
    size: row.size,
    mimeType: row.mime_type,
    downloadUrl: downloadUrl(origins, version, row.id),
    shareUrl: shareUrl(origins, row.share_token),
    downloadCount: row.download_count,
    uploadedAt: row.uploaded_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at,
  };
}

/**
 * What an upload read of a file: its id, names, type, SHA-256 (lowercase hex, hashed as the bytes
 * streamed; null only for a tus upload begun before digests, and for a moment a final upload's)
 * and CRC-32 (computed with it; null for a tus upload begun before CRCs, or a final upload one
 * of whose partials was). Its bytes are in `StoredBlob`.
 */
export type FileDraft = {
  id: string;
  originalName: string;
  filename: string;
  mimeType: string;
  sha256: string | null;
  crc32: number | null;
  /** An age file: its owner's header (kept apart from the payload) and its `meta`. */
  e2e?: { header: string; meta: string | null };
};

/** When a file uploaded at `now` expires: its own expiresIn, else the configured default, else never. */
export function expiryOf(expiresInSeconds: number | undefined, defaultSeconds: number | undefined, now: number) {
  const expiresIn = expiresInSeconds ?? defaultSeconds;
  return expiresIn === undefined ? null : isoNow(now + expiresIn * 1000);
}

/** The row for a stored file, with a fresh share token. */
export function fileRow(
  keyId: string,
  file: FileDraft,
  blob: StoredBlob,
  options: {
    isPublic: boolean;
    expiresAt: string | null;
    now: number;
    requestId?: string;
    /** Where its scan starts (src/scanning/scan-queue.ts, scanOnArrival): null when it is not to be scanned. */
    scan?: ScanStatus | null;
  },
): FileRow {
  return {
    id: file.id,
    account_id: keyId,
    filename: file.filename,
    original_name: file.originalName,
    size: blob.size,
    mime_type: file.mimeType,
    r2_key: blob.key,
    etag: blob.etag,
    share_token: randomBase64Url(24),
    is_public: options.isPublic ? 1 : 0,
    download_count: 0,
    uploaded_at: isoNow(options.now),
    updated_at: isoNow(options.now),
    expires_at: options.expiresAt,
    request_id: options.requestId ?? null,
    sha256: file.sha256,
    crc32: file.crc32,
    encryption: file.e2e ? 'age' : null,
    meta: file.e2e?.meta ?? null,
    e2e_header: file.e2e?.header ?? null,
    ...GOOD_STANDING,
    scan_status: options.scan ?? null,
    // When the scan reached its status (migration 0016): pending (or skipped) since it arrived.
    scanned_at: options.scan == null ? null : isoNow(options.now),
  };
}

/** A new file's standing: not moderated, not released, its scan as fileRow says. */
const GOOD_STANDING: FileStanding = {
  moderation_state: null,
  moderation_statement: null,
  moderated_at: null,
  scan_status: null,
  scan_signature: null,
  scanned_at: null,
  released_at: null,
};

/**
 * A file as webhook events carry it: the v2 record without its URLs, nor an encrypted file's meta
 * and header (receivers learn `encryption`; the rest is the record's, see FileEventData).
 */
export function fileEventData(row: FileRow): FileEventData {
  const {
    downloadUrl: _download,
    shareUrl: _share,
    meta: _meta,
    e2eHeader: _header,
    ...file
  } = fileRecord(row, 'v2', { api: '', site: '' });
  return file;
}
