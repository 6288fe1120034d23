// Collection row → the API's collection record: the one place that decides what an owner sees.
import type { Origins } from '../env';
import type { CollectionWithCounts } from '../storage/collections-repo';

export type CollectionRecord = {
  id: string;
  name: string;
  note: string | null;
  fileCount: number;
  bytes: number;
  createdAt: string;
  updatedAt: string;
  archiveUrl: string;
};

/**
 * The owner's ZIP of the collection, under the v2 API (the API's origin, PUBLIC_BASE_URL), in its
 * current version (`?v=`, archive.ts's archiveVersion): once the archive changes, the URL answers
 * 412 ARCHIVE_CHANGED, so a resume without If-Range fails rather than mixing two archives.
 */
export const archiveUrl = (origins: Origins, id: string, version: string) =>
  `${origins.api}/api/v2/collections/${id}/archive?v=${version}`;

/** `version`: its archive's version now. */
export function collectionRecord(row: CollectionWithCounts, origins: Origins, version: string): CollectionRecord {
  return {
    id: row.id,
    name: row.name,
    note: row.note,
    fileCount: row.file_count,
    bytes: row.bytes,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    archiveUrl: archiveUrl(origins, row.id, version),
  };
}
