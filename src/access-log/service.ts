// Reading access logs: one log (a link, a file request) or several merged newest first (a file's
// default link and every link made to it; a collection's links). Each log is a source that pages
// its own object; the cursor names where the last page ended, so the next page asks each source
// only for what lies past it. No HTTP here; the routes find the sources the caller may read.
import { validationError } from '../errors';
import { decodeCursor as decoded, encodeCursor as encoded } from '../lib/cursor';
import type { AccessPage, PageRequest, StoredEntry } from './access-log-contract';
import type { AccessEvent, AccessLogPage } from './schemas';

/** One log: `key` orders events of the same millisecond between logs; `linkId` is what its events show. */
export type AccessSource = { key: string; linkId: string | null; page: (request: PageRequest) => Promise<AccessPage> };

/** Where a page ended: the last event's time, its log, and its place in that log. */
type Cursor = { at: number; key: string; seq: number };

const encodeCursor = (cursor: Cursor) => encoded([cursor.at, cursor.key, cursor.seq]);

function decodeCursor(text: string): Cursor {
  const refused = () => validationError('cursor', 'is not a cursor this log gave');
  const value = decoded(text);
  if (!Array.isArray(value) || value.length !== 3) throw refused();
  const [at, key, seq] = value as unknown[];
  if (!Number.isSafeInteger(at) || typeof key !== 'string' || !Number.isSafeInteger(seq)) throw refused();
  return { at: at as number, key, seq: seq as number };
}

/** What a source holds past the cursor, in the merged order (time, then log key, then place; all descending). */
function pastCursor(source: AccessSource, cursor: Cursor | undefined): PageRequest['before'] {
  if (!cursor) return undefined;
  if (source.key === cursor.key) return { at: cursor.at, seq: cursor.seq };
  // Same millisecond: a log ordered after the cursor's still has all of it, one ordered before none.
  return { at: cursor.at, seq: source.key < cursor.key ? Number.MAX_SAFE_INTEGER : 0 };
}

export const accessEvent = (entry: StoredEntry, linkId: string | null): AccessEvent => ({
  at: new Date(entry.at).toISOString(),
  kind: entry.kind,
  outcome: entry.outcome,
  status: entry.status,
  bytes: entry.bytes,
  range: entry.range,
  country: entry.country,
  asn: entry.asn,
  asOrganization: entry.asOrganization,
  colo: entry.colo,
  client: entry.client,
  visitor: entry.visitor,
  linkId,
});

/**
 * A page of the logs' events, newest first: `limit` of them and the cursor of the next page
 * (null at the end). Each source is asked for one more than `limit` past the cursor, so
 * whether more remain is known without another trip.
 */
export async function readAccessLog(
  sources: AccessSource[],
  query: { limit: number; cursor?: string },
  now = Date.now(),
): Promise<AccessLogPage> {
  const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const pages = await Promise.all(
    sources.map(async (source) => {
      const page = await source.page({ before: pastCursor(source, cursor), limit: query.limit + 1, now });
      return { source, page };
    }),
  );
  const merged = pages
    .flatMap(({ source, page }) => page.events.map((entry) => ({ source, entry })))
    .sort(
      (a, b) =>
        b.entry.at - a.entry.at ||
        (a.source.key < b.source.key ? 1 : a.source.key > b.source.key ? -1 : 0) ||
        b.entry.seq - a.entry.seq,
    );
  const shown = merged.slice(0, query.limit);
  const last = shown.at(-1);
  const nextCursor =
    merged.length > query.limit && last
      ? encodeCursor({ at: last.entry.at, key: last.source.key, seq: last.entry.seq })
      : null;
  return {
    events: shown.map(({ source, entry }) => accessEvent(entry, source.linkId)),
    nextCursor,
    droppedEvents: pages.reduce((sum, { page }) => sum + page.droppedEvents, 0),
  };
}
