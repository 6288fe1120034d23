// The events webhooks can subscribe to, what each carries, and the messages on the events queue.
import type { EventType } from './event-types';

export { EVENT_TYPES, type EventType, isEventType } from './event-types';

/**
 * A file as events show it: the v2 file record without its URLs (src/files/records.ts makes it).
 * URLs need an origin the sweep does not have, and a share URL would hand out the token of a
 * private file; the id leads to the record (GET /api/v2/files/{id}) while the file lives.
 */
export type FileEventData = {
  id: string;
  filename: string;
  originalName: string;
  size: number;
  mimeType: string;
  downloadCount: number;
  uploadedAt: string;
  updatedAt: string;
  expiresAt: string | null;
  isPublic: boolean;
  requestId: string | null;
  sha256: string | null;
  /** 'age' for an end-to-end encrypted file (its size and sha256 are its payload's), else null. */
  encryption: 'age' | null;
};

/** How a counted download reached the file: the owner's API download or a share link. */
export type DownloadVia = 'owner' | 'share' | 'link';

type Json = string | number | boolean | null | Json[] | { [key: string]: Json | undefined };
type JsonObject = { [key: string]: Json | undefined };

/** What `data` holds for each event type. link.* and request.* are emitted by share links and file requests. */
export type EventData = {
  'file.uploaded': { file: FileEventData };
  'file.deleted': { file: FileEventData };
  'file.expired': { file: FileEventData };
  'file.downloaded': { file: FileEventData; via: DownloadVia; linkId?: string };
  /** A collection's link: `fileId` null, and `collectionId`. */
  'link.exhausted': JsonObject & { linkId: string; fileId: string | null; collectionId?: string };
  'request.received': JsonObject & { requestId: string; file: FileEventData };
  'request.full': JsonObject & { requestId: string };
  'collection.downloaded': CollectionDownloadedData;
};

/**
 * A counted download of a collection's ZIP archive (a 200, or a 206 from byte 0): by its owner
 * through the API (`via: 'owner'`) or through one of its share links (`via: 'link'`, `linkId`).
 * `fileIds`: its members in archive order; `size`: the archive's length in bytes.
 */
export type CollectionDownloadedData = JsonObject & {
  collectionId: string;
  name: string;
  fileIds: string[];
  fileCount: number;
  size: number;
  via: 'owner' | 'link';
  linkId?: string;
};

/** One event as it travels: who it belongs to, and the body receivers get (`type`, `timestamp`, `data`). */
export type QueuedEvent = { id: string; accountId: string; type: EventType; timestamp: string; data: object };

/** The events queue carries new events (fanned out to webhooks) and deliveries (one POST each). */
export type EventsMessage = { kind: 'events'; events: QueuedEvent[] } | { kind: 'delivery'; deliveryId: string };
