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

/** The owner's ZIP of the collection, under the v2 API (the API's origin, PUBLIC_BASE_URL). */
export const archiveUrl = (origins: Origins, id: string) => `${origins.api}/api/v2/collections/${id}/archive`;

export function collectionRecord(row: CollectionWithCounts, origins: Origins): CollectionRecord {
  return {
    id: row.id,
    name: row.name,
    note: row.note,
    fileCount: row.file_count,
    bytes: row.bytes,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    archiveUrl: archiveUrl(origins, row.id),
  };
}
