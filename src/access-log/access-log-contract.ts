// The access log's contract: what the Worker sends the objects that keep logs (a link's
// LinkCounter, a file request's FileRequestCounter) and what they answer. Types and bounds only.
import type { ClientKind } from '../lib/user-agent';

export type AccessKind = 'page' | 'download' | 'archive' | 'preview' | 'password' | 'upload';
export type AccessOutcome =
  | 'served'
  | 'partial'
  | 'not-modified'
  | 'refused-password'
  | 'refused-exhausted'
  | 'refused-gone'
  /** Taken down (451), or held for its scan (409 SCAN_PENDING): src/moderation/standing.ts. */
  | 'refused-moderated'
  | 'throttled';

/**
 * One event as the Worker hands it to the log's object: `at` in ms since the epoch; `visitor`
 * the keyed hash of the client's address (src/access-log/visitor-id.ts). Never an address, a
 * token, a password or a header.
 */
export type AccessEntry = {
  at: number;
  kind: AccessKind;
  outcome: AccessOutcome;
  status: number;
  bytes: number;
  range: boolean;
  country: string | null;
  asn: number | null;
  asOrganization: string | null;
  colo: string | null;
  client: ClientKind;
  visitor: string;
};

/** A batch of events, and how many more this isolate dropped since its last batch. */
export type AppendRequest = { events: AccessEntry[]; dropped: number; now?: number };

/** Where an event sits in its log: newest first is `at` descending, then `seq` descending. */
export type AccessPosition = { at: number; seq: number };
export type StoredEntry = AccessEntry & { seq: number };

/** Events strictly older than `before` (all, without it), newest first. */
export type PageRequest = { before?: AccessPosition; limit: number; now?: number };
export type AccessPage = { events: StoredEntry[]; droppedEvents: number };

/**
 * What a link record shows of its log: the last access (kept past the events themselves), the
 * distinct visitors among the kept events, and the events dropped before they reached the log.
 */
export type AccessSummary = { lastAccessAt: number | null; visitors: number; droppedEvents: number };

/** At least this many of a log's most recent events are kept (within the retention period). */
export const ACCESS_LOG_FLOOR = 1000;
/** At most this many events per log: the oldest beyond it are deleted as new ones come. */
export const ACCESS_LOG_MAX_EVENTS = 2000;
/** Events per call to a log's object. */
export const ACCESS_BATCH_MAX = 100;
