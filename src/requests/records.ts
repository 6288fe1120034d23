// Request row → API record: the one place that decides what the owner sees.
import type { Origins } from '../env';
import type { RequestRow } from '../storage/requests-repo';
import { allowedTypesOf, requestStatus } from './service';

/** Where the request's public URLs live: the page on the site, the uploads under the v2 API. */
export const requestPageUrl = (origins: Origins, token: string) => `${origins.site}/r/${token}`;
export const requestUploadUrl = (origins: Origins, token: string) => `${origins.api}/api/v2/r/${token}/upload`;
export const requestTusUrl = (origins: Origins, token: string) => `${origins.api}/api/v2/r/${token}/tus`;

export function requestRecord(row: RequestRow, origins: Origins, now = Date.now()) {
  return {
    id: row.id,
    label: row.label,
    message: row.message,
    url: requestPageUrl(origins, row.token),
    uploadUrl: requestUploadUrl(origins, row.token),
    tusUrl: requestTusUrl(origins, row.token),
    maxFiles: row.max_files,
    maxFileSize: row.max_file_size,
    maxBytes: row.max_bytes,
    allowedTypes: allowedTypesOf(row),
    isPublic: row.is_public === 1,
    hasPassword: row.password_hash !== null,
    fileCount: row.file_count,
    bytes: row.bytes,
    status: requestStatus(row, now),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at,
    closedAt: row.closed_at,
    e2e: row.e2e === 1,
  };
}
