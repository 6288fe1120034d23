// The events webhooks can subscribe to, what each carries, and the messages on the events queue.
import type { EventType, OperatorEventType } from './event-types';

export {
  EVENT_TYPES,
  type EventType,
  isEventType,
  OPERATOR_EVENT_TYPES,
  type OperatorEventType,
} from './event-types';

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
  /** The operator's decision the file is under (docs/abuse.md); null in good standing. */
  moderation: { state: 'quarantined' | 'removed'; statement: string; at: string } | null;
  /** Where its scan stands; null when it was never to be scanned. */
  scan: { status: string; signature: string | null; at: string | null } | null;
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
  /** The file as it is now (its `moderation` says what it is under) and the operator's statement. */
  'file.quarantined': { file: FileEventData; statement: string };
  /** Served again; `statement`: the operator's words on the release, if any. */
  'file.released': { file: FileEventData; statement: string | null };
  /** Its bytes deleted for good; the record stays as a tombstone (`moderation.state` removed). */
  'file.removed': { file: FileEventData; statement: string };
  /** One link (a file's or a collection's) answers 451 from now on; the file and its other links are untouched. */
  'link.disabled': JsonObject & {
    linkId: string;
    fileId: string | null;
    collectionId: string | null;
    statement: string;
  };
  'account.suspended': JsonObject & { accountId: string; statement: string };
  'account.unsuspended': JsonObject & { accountId: string; statement: string | null };
  /** A scan finished (SCANNER): where it stands (`infected` also quarantines the file). */
  'file.scanned': { file: FileEventData; scan: ScanData };
  /** An upload whose SHA-256 is on the blocklist: refused, nothing kept. */
  'upload.blocked': JsonObject & { sha256: string; originalName: string; size: number; requestId: string | null };
};

/** A scan's outcome as events carry it (the v2 record's `scan`). */
export type ScanData = { status: string; signature: string | null; at: string | null };

/**
 * What the operator's receiver gets in `data`: a report (its record as GET /admin/reports shows
 * it), a scan that found malware (the file, its account, the scan).
 */
export type OperatorEventData = {
  'report.received': JsonObject & { reportId: string };
  'file.scanned': { accountId: string; file: FileEventData; scan: ScanData };
};

/** One operator event as it travels: the Standard Webhooks message id, and the body its receiver gets. */
export type OperatorEvent = { id: string; type: OperatorEventType; timestamp: string; data: object };

/**
 * A counted download of a collection's ZIP archive (a 200, or a 206 from byte 0 to the end): by its owner
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
export type EventsMessage =
  | { kind: 'events'; events: QueuedEvent[] }
  | { kind: 'delivery'; deliveryId: string }
  /** To the operator's receiver (OPERATOR_WEBHOOK_URL): one event, delivered and retried as it is. */
  | { kind: 'operator'; event: OperatorEvent };
