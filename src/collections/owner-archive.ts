// The owner's ZIP archives through the API (a key with files:read): a collection's members in
// collection order, and every file a file request received, oldest first. Rules only: the bytes
// are archive.ts's to serve, the rows storage's to read.
import { collectionNotFound } from '../errors';
import type { EventSink } from '../events/emit';
import { getRequest } from '../requests/service';
import { type ArchiveMemberRow, collectionArchive, requestArchiveMembers } from '../storage/archive-repo';
import { isoNow } from '../time';
import {
  type ArchiveDeps,
  archiveCounts,
  archiveResponse,
  emitCollectionDownloaded,
  planArchive,
  prepareArchive,
} from './archive';
import { COLLECTION_ID_PATTERN } from './service';

export type OwnerArchiveDeps = ArchiveDeps & { events: EventSink };

/** The latest of these ISO times (they compare as text). */
const latest = (times: (string | null)[]) =>
  times.reduce<string>((last, time) => (time !== null && time > last ? time : last), '');

const changedAt = (members: ArchiveMemberRow[], ...others: (string | null)[]) =>
  latest([...others, ...members.map((member) => member.updated_at)]);

/**
 * The prepared archive of the account's collection (its live members, in order), with the
 * collection's row, or null when there is no such collection: what the owner's route and a
 * collection link's archive both serve. `linkId`: as that link serves it (an encrypted member only
 * with the link's age header, the others left out); absent, the owner's (with the owner's headers).
 */
export async function findCollectionArchive(
  db: D1Database,
  id: string,
  accountId: string,
  now = Date.now(),
  linkId: string | null = null,
) {
  if (!COLLECTION_ID_PATTERN.test(id)) return null;
  const found = await collectionArchive(db, id, accountId, isoNow(now), linkId);
  if (!found) return null;
  const { collection, members } = found;
  const archive = await prepareArchive({
    name: collection.name,
    fallbackName: collection.id,
    members,
    // Members joining, leaving or deleted move updated_at; an expiry is dated by expired_at; a
    // rename by the file's updated_at.
    lastModified: changedAt(members, collection.updated_at, collection.expired_at),
  });
  return { collection, archive };
}

/**
 * GET/HEAD /collections/{id}/archive. A counted download (a GET answered 200, or 206 from byte
 * 0) is a `collection.downloaded` event (`via: owner`); the members' own downloadCounts are not
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
  const plan = planArchive(request.headers, archive);
  const response = await archiveResponse(deps, archive, plan, request.method);
  if (archiveCounts(plan, request.method)) {
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
  const members = await requestArchiveMembers(deps.db, fileRequest.id, accountId, isoNow());
  const archive = await prepareArchive({
    name: fileRequest.label?.trim() ? fileRequest.label : `file-request-${fileRequest.id}`,
    fallbackName: `file-request-${fileRequest.id}`,
    members,
    lastModified: changedAt(members, fileRequest.created_at),
  });
  return archiveResponse(deps, archive, planArchive(request.headers, archive), request.method);
}
