// Link row → the API's link record: the one place that decides what an owner sees of a link.
import type { Origins } from '../env';
import type { LinkRow } from '../storage/links-repo';
import type { CountView } from './link-counter-contract';

export type LinkStatus = 'active' | 'expired' | 'exhausted' | 'revoked';

export type LinkRecord = {
  id: string;
  /** The file it shares; null for a collection's link. */
  fileId: string | null;
  /** The collection it shares; null for a file's link. */
  collectionId: string | null;
  url: string;
  label: string | null;
  hasPassword: boolean;
  maxDownloads: number | null;
  downloadCount: number;
  expiresAt: string | null;
  lastDownloadedAt: string | null;
  createdAt: string;
  status: LinkStatus;
  /**
   * Bytes the cap's budget still allows (maxDownloads × the length of what it shares now, less
   * what was served); null when uncapped.
   */
  remainingBytes: number | null;
  /** From the link's access log: the last visit of any kind, distinct visitors among the kept events, events dropped. */
  lastAccessAt: string | null;
  visitors: number;
  droppedEvents: number;
};

export const linkUrl = (origins: Origins, token: string) => `${origins.site}/share/${token}`;

/** `exhausted`: the link's byte budget cannot serve another byte (its counter object's view). */
export function linkStatus(row: LinkRow, exhausted: boolean, now = Date.now()): LinkStatus {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_at !== null && Date.parse(row.expires_at) <= now) return 'expired';
  if (exhausted) return 'exhausted';
  return 'active';
}

const accessOf = ({ access }: CountView) => ({
  lastAccessAt: access.lastAccessAt === null ? null : new Date(access.lastAccessAt).toISOString(),
  visitors: access.visitors,
  droppedEvents: access.droppedEvents,
});

/** `counts`: the link's counter object's view (exact); D1's row may be a few seconds behind it. */
export function linkRecord(row: LinkRow, counts: CountView, origins: Origins, now = Date.now()): LinkRecord {
  const downloadCount = Math.max(counts.count, row.download_count);
  return {
    id: row.id,
    fileId: row.file_id,
    collectionId: row.collection_id,
    url: linkUrl(origins, row.token),
    label: row.label,
    hasPassword: row.password_hash !== null,
    maxDownloads: row.max_downloads,
    downloadCount,
    expiresAt: row.expires_at,
    lastDownloadedAt: counts.lastDownloadedAt ?? row.last_downloaded_at,
    createdAt: row.created_at,
    status: linkStatus(row, counts.exhausted, now),
    remainingBytes: counts.remaining,
    ...accessOf(counts),
  };
}
