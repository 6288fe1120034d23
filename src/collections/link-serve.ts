// Serving a collection through one of its share links, once the visitor may have it (the share
// door, src/share/door.ts, decides that): its ZIP archive (archive.ts), or one member with a
// file download's headers. Every answer that carries bytes (the ZIP or any range of it, a
// member, a member's preview) reserves them from the link's budget first, a cap of N being
// N × the archive's length (the contract's "a download cap is a cap on bytes"), in the link's
// counter object, exact under concurrency; what a broken-off answer did not send is given back.
import { type EventSink, emitEvents, type NewEvent } from '../events/emit';
import { bytesCarried, countsAsDownload, planDownload, servedFile, serveFile } from '../files/download';
import { fileEventData } from '../files/records';
import {
  countDefaultLinkDownload,
  giveBackBytes,
  type LinkCounterNamespace,
  meteredForBudget,
  reserveBytes,
} from '../links/link-counter-client';
import type { ReserveResult } from '../links/link-counter-contract';
import { refusalError, type ScanSettings, standingOf } from '../moderation/standing';
import type { CollectionRow } from '../storage/collections-repo';
import { findMember } from '../storage/collections-repo';
import { linkHeaderOf } from '../storage/link-headers-repo';
import type { LinkFacts, LinkRow } from '../storage/links-repo';
import { isoNow } from '../time';
import { EXHAUSTED, GONE, Refusal } from '../visitors/service';
import {
  type ArchiveDeps,
  archiveBytes,
  archiveCounts,
  archiveResponse,
  emitCollectionDownloaded,
  type PreparedArchive,
  planArchive,
  staleVersion,
} from './archive';

/**
 * What a collection link's token found: the link, its collection, the archive of its live members
 * now (those a visitor may be served), and what its lookup read of its standing.
 */
export type SharedCollection = { link: LinkRow; collection: CollectionRow; archive: PreparedArchive; facts: LinkFacts };

export type LinkServeDeps = ArchiveDeps & {
  /** The scan gate's configuration: a member a visitor may not be served yet is refused. */
  scan?: ScanSettings;
  counters: LinkCounterNamespace;
  events: EventSink;
  /** Keeps work alive past the answer (giving back what a broken-off answer did not send). */
  waitUntil: (promise: Promise<unknown>) => void;
};

/**
 * Reserves `bytes` (and counts a whole download) of the link's budget, then answers with
 * `answer()`, metered so that a client breaking off gives back what it did not take. An
 * uncapped link reserves only to count. EXHAUSTED when the answer would pass the budget.
 */
async function withinBudget(
  deps: LinkServeDeps,
  request: Request,
  shared: SharedCollection,
  spend: { bytes: number; counts: boolean },
  answer: () => Promise<Response>,
): Promise<{ response: Response; reserved: ReserveResult | null } | Refusal> {
  const { link, archive } = shared;
  const capped = link.max_downloads !== null;
  if (!capped && !spend.counts) return { response: await answer(), reserved: null };
  const reserved = await reserveBytes(deps.counters, link, archive.length, spend.bytes, spend.counts);
  if (!reserved.ok) return EXHAUSTED;
  let response: Response;
  try {
    response = await answer();
  } catch (error) {
    deps.waitUntil(giveBackBytes(deps.counters, link.id, spend.bytes));
    throw error;
  }
  if (!capped || spend.bytes === 0 || !response.body) return { response, reserved };
  const body = meteredForBudget(deps.counters, link.id, response.body, spend.bytes, {
    signal: request.signal,
    waitUntil: deps.waitUntil,
  });
  return { response: new Response(body, { status: response.status, headers: response.headers }), reserved };
}

/** The event of the reservation that spent the link's budget (once per link). */
const exhaustedEvent = ({ link, collection }: SharedCollection): NewEvent => ({
  accountId: link.account_id,
  type: 'link.exhausted',
  data: { linkId: link.id, fileId: null, collectionId: collection.id },
});

/**
 * GET/HEAD /share/<token>/archive.zip (and /download): the collection's ZIP as the owner's
 * route answers it (ranges, If-Range, If-None-Match, HEAD, 412 for a stale `?v=`). A 200, or a
 * 206 from byte 0 to the end, is a download of the link and a `collection.downloaded` event
 * (`via: link`). A stale version is refused before anything is reserved (a capped link's budget
 * stays whole), and logged as `refused-gone`: the archive that URL named is gone.
 */
export async function serveCollectionArchive(
  deps: LinkServeDeps,
  request: Request,
  shared: SharedCollection,
): Promise<Response | Refusal> {
  const { archive } = shared;
  const stale = staleVersion(request.url, archive);
  if (stale) return new Refusal<never>('gone', undefined, stale);
  const plan = planArchive(request.headers, archive);
  const spend = {
    bytes: archiveBytes(plan, archive, request.method),
    counts: archiveCounts(plan, archive, request.method),
  };
  const served = await withinBudget(deps, request, shared, spend, () =>
    archiveResponse(deps, archive, plan, request.method),
  );
  if (served instanceof Refusal) return served;
  if (spend.counts) {
    emitCollectionDownloaded(deps.events, shared.link.account_id, shared.collection, archive, {
      kind: 'link',
      linkId: shared.link.id,
    });
  }
  if (served.reserved?.exhausted) emitEvents(deps.events, [exhaustedEvent(shared)]);
  return served.response;
}

/**
 * GET/HEAD /share/<token>/files/<fileId> (`view` false) and its preview (`view` true): one live
 * member of the collection, with a share download's headers; GONE (the same 404 as an unknown
 * token) for a file that is not a member, and the member's refusal when it may not be served
 * (src/moderation/standing.ts). A whole download (200, or 206 from byte 0 to the end) counts for
 * the link and for the file itself (its downloadCount, a `file.downloaded` event `via: link`), as
 * a download of that file through a share link; a preview counts nothing, but its bytes spend a
 * capped link's budget like any.
 */
export async function serveCollectionMember(
  deps: LinkServeDeps,
  request: Request,
  shared: SharedCollection,
  fileId: string,
  view: boolean,
): Promise<Response | Refusal> {
  const { link, collection } = shared;
  const found = await findMember(deps.db, collection.id, link.account_id, fileId, isoNow());
  if (!found) return GONE;
  // Left out of the page and the ZIP, and refused by its own URL (451, or 409 while scanned).
  const standing = standingOf({ file: found }, 'visitor', deps.scan);
  if (standing) return new Refusal<never>('moderated', undefined, refusalError(standing));
  // An encrypted member is served only with this link's header: its header, then the payload.
  const member = await servedFile(found, found.encryption ? await linkHeaderOf(deps.db, link.id, found.id) : null);
  if (!member) return GONE;
  const plan = planDownload(request.headers, member);
  const counts = !view && request.method === 'GET' && countsAsDownload(plan, member.size);
  const spend = { bytes: bytesCarried(plan, member.size, request.method), counts };
  const served = await withinBudget(deps, request, shared, spend, () => serveFile(deps, member, plan, request.method));
  if (served instanceof Refusal) return served;
  const events: NewEvent[] = [];
  if (counts) {
    // The file's own count: the object of its default link adds it to the file's row.
    await countDefaultLinkDownload(deps.counters, found.id);
    const file = fileEventData({ ...found, download_count: found.download_count + 1 });
    events.push({ accountId: link.account_id, type: 'file.downloaded', data: { file, via: 'link', linkId: link.id } });
  }
  if (served.reserved?.exhausted) events.push(exhaustedEvent(shared));
  emitEvents(deps.events, events);
  return served.response;
}
