// Row → API record mappers: the one place that decides what each version shows.
import type { FileRow } from '../storage/files-repo';

export type ApiVersion = 'v1' | 'v2';

/** Where links point: API origin (PUBLIC_BASE_URL or the request's) and site origin (SITE_URL or the request's). */
export type Origins = { api: string; site: string };

export const downloadUrl = (origins: Origins, version: ApiVersion, id: string) =>
  `${origins.api}/api/${version}/files/${id}/download`;

export const shareUrl = (origins: Origins, token: string) => `${origins.site}/share/${token}`;

type UploadRecordV1 = ReturnType<typeof uploadFields> & { uploadedAt: string };
type UploadRecordV2 = UploadRecordV1 & { isPublic: boolean; sha256: string | null };

const uploadFields = (row: FileRow, version: ApiVersion, origins: Origins) => ({
  id: row.id,
  filename: row.filename,
  size: row.size,
  mimeType: row.mime_type,
  downloadUrl: downloadUrl(origins, version, row.id),
  shareUrl: shareUrl(origins, row.share_token),
});

export function uploadRecord(row: FileRow, version: 'v2', origins: Origins): UploadRecordV2;
export function uploadRecord(row: FileRow, version: ApiVersion, origins: Origins): UploadRecordV1 | UploadRecordV2;
export function uploadRecord(row: FileRow, version: ApiVersion, origins: Origins): UploadRecordV1 | UploadRecordV2 {
  const base = uploadFields(row, version, origins);
  return version === 'v1'
    ? { ...base, uploadedAt: row.uploaded_at }
    : { ...base, isPublic: row.is_public === 1, sha256: row.sha256, uploadedAt: row.uploaded_at };
}

type FileRecordV1 = ReturnType<typeof recordOf>;
/** v2 adds isPublic and sha256 (null for a file stored before digests, until it is backfilled). */
export type FileRecordV2 = FileRecordV1 & { isPublic: boolean; sha256: string | null };

export function fileRecord(row: FileRow, version: 'v2', origins: Origins): FileRecordV2;
export function fileRecord(row: FileRow, version: ApiVersion, origins: Origins): FileRecordV1 | FileRecordV2;
export function fileRecord(row: FileRow, version: ApiVersion, origins: Origins): FileRecordV1 | FileRecordV2 {
  const base = recordOf(row, version, origins);
  return version === 'v1' ? base : { ...base, isPublic: row.is_public === 1, sha256: row.sha256 };
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
