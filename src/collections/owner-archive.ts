// The owner's ZIP archives through the API (a key with files:read): a collection's members in
// collection order, and every file a file request received, oldest first. Rules only: the bytes
// are archive.ts's to serve, the rows storage's to read.
import { collectionNotFound } from '../errors';
import type { EventSink } from '../events/emit';
import { type Audience, type ScanSettings, servable } from '../moderation/standing';
import { getRequest } from '../requests/service';
import { type ArchiveMemberRow, collectionArchive, requestArchiveMembers } from '../storage/archive-repo';
import { isoNow } from '../time';
import {
  type ArchiveDeps,
  archiveCounts,
  archiveResponse,
  emitCollectionDownloaded,
  type PreparedArchive,
  planArchive,
  prepareArchive,
  staleVersion,
} from './archive';
import { COLLECTION_ID_PATTERN } from './service';

export type OwnerArchiveDeps = ArchiveDeps & { events: EventSink };

/** The latest of these ISO times (they compare as text). */
const latest = (times: (string | null)[]) =>
  times.reduce<string>((last, time) => (time !== null && time > last ? time : last), '');

const changedAt = (members: ArchiveMemberRow[], ...others: (string | null)[]) =>
  latest([...others, ...members.map((member) => member.updated_at)]);

/** Who an archive is for: its members are those this audience may be served (src/moderation/standing.ts). */
export type ArchiveViewer = { audience: Audience; scan?: ScanSettings; linkId?: string };

const OWNER: ArchiveViewer = { audience: 'owner' };

/**
 * The prepared archive of the account's collection (its live members, in order, that `viewer`
 * may be served: a moderated file is left out as a deleted one is), with the collection's row,
 * or null when there is no such collection: what the owner's route and a collection link's
 * archive both serve. A viewer through a link (`linkId`) gets each encrypted member only with that
 * link's age header (the others are left out); the owner gets the owner's headers.
 */
export async function findCollectionArchive(
  db: D1Database,
  id: string,
  accountId: string,
  now = Date.now(),
  viewer = OWNER,
) {
  if (!COLLECTION_ID_PATTERN.test(id)) return null;
  const found = await collectionArchive(db, id, accountId, isoNow(now), viewer.linkId ?? null);
  if (!found) return null;
  const { collection } = found;
  const members = found.members.filter((member) => servable(member, viewer.audience, viewer.scan));
  const archive = await prepareArchive({
    name: collection.name,
    fallbackName: collection.id,
    members,
    // Members joining, leaving or deleted move updated_at; an expiry is dated by expired_at; a
    // rename, or a moderation, by the file's updated_at (a member left out counts too).
    lastModified: changedAt(found.members, collection.updated_at, collection.expired_at),
  });
  return { collection, archive };
}

/** What to answer to the owner: 412 ARCHIVE_CHANGED for a stale `?v=`, else as planArchive says. */
function ownerPlan(request: Request, archive: PreparedArchive) {
  const stale = staleVersion(request.url, archive);
  if (stale) throw stale;
  return planArchive(request.headers, archive);
}

/**
 * GET/HEAD /collections/{id}/archive. A counted download (a GET answered 200, or 206 from byte
 * 0 to the end: the whole archive) is a `collection.downloaded` event (`via: owner`); the members' own downloadCounts are not
 * touched: they count downloads of each file (docs/webhooks.md).
 */
export async function downloadCollectionArchive(
  deps: OwnerArchiveDeps,
  request: Request,
  id: string,
  accountId: string,
): Promise<Response> {
  const found = await findCollectionArchive(deps.db, id, accountId);
  if (!found) throw collectionNotFound();
  const { collection, archive } = found;
  const plan = ownerPlan(request, archive);
  const response = await archiveResponse(deps, archive, plan, request.method);
  if (archiveCounts(plan, archive, request.method)) {
    emitCollectionDownloaded(deps.events, accountId, collection, archive, { kind: 'owner' });
  }
  return response;
}

/**
 * GET/HEAD /requests/{id}/archive: the live files received through the account's request,
 * oldest first, named after its label. No event: it is no collection, and its files'
 * downloads are the owner's own.
 */
export async function downloadRequestArchive(
  deps: OwnerArchiveDeps,
  request: Request,
  requestId: string,
  accountId: string,
): Promise<Response> {
  const fileRequest = await getRequest(deps.db, requestId, accountId);
  const received = await requestArchiveMembers(deps.db, fileRequest.id, accountId, isoNow());
  const members = received.filter((member) => servable(member, 'owner'));
  const archive = await prepareArchive({
    name: fileRequest.label?.trim() ? fileRequest.label : `file-request-${fileRequest.id}`,
    fallbackName: `file-request-${fileRequest.id}`,
    members,
    lastModified: changedAt(received, fileRequest.created_at),
  });
  return archiveResponse(deps, archive, ownerPlan(request, archive), request.method);
}
