// The access logs of share links, for their owner: one link's, a file's (its default link and
// every link made to it, merged newest first), or any set of links (a collection's). Each log is
// kept by its link's counter object (src/access-log/access-log-table.ts); reading merges them.
import { type AccessSource, readAccessLog } from '../access-log/service';
import { ApiError } from '../errors';
import { FILE_ID_PATTERN } from '../files/ids';
import { findOwnedFile } from '../storage/files-repo';
import { findOwnedLink, listLinksOfFile } from '../storage/links-repo';
import { isoNow } from '../time';
import { type LinkCounterNamespace, linkAccessPage } from './link-counter-client';
import { LINK_ID_PATTERN } from './service';

export type LinkLogDeps = { db: D1Database; counters: LinkCounterNamespace };
export type AccessQuery = { limit: number; cursor?: string };

/** A made link's log (its events show its id). */
export const linkSource = (counters: LinkCounterNamespace, linkId: string): AccessSource => ({
  key: linkId,
  linkId,
  page: (request) => linkAccessPage(counters, { type: 'link', id: linkId }, request),
});

/** A file's default link's log (its events show `linkId: null`). */
const defaultLinkSource = (counters: LinkCounterNamespace, fileId: string): AccessSource => ({
  key: '',
  linkId: null,
  page: (request) => linkAccessPage(counters, { type: 'file', id: fileId }, request),
});

/**
 * The logs of these links merged, newest first. For a collection's `GET
 * /collections/{id}/access`: the caller finds the collection's links (the account's own) and
 * hands their ids here.
 */
export const accessOfLinks = (counters: LinkCounterNamespace, linkIds: string[], query: AccessQuery) =>
  readAccessLog(
    linkIds.map((id) => linkSource(counters, id)),
    query,
  );

/** One link's log; LINK_NOT_FOUND for another account's or an unknown id. */
export async function linkAccessLog(deps: LinkLogDeps, linkId: string, accountId: string, query: AccessQuery) {
  const owned = LINK_ID_PATTERN.test(linkId) && (await findOwnedLink(deps.db, linkId, accountId, isoNow()));
  if (!owned) throw new ApiError('LINK_NOT_FOUND');
  return readAccessLog([linkSource(deps.counters, linkId)], query);
}

/** A file's default link and every link made to it, merged; FILE_NOT_FOUND as for the file itself. */
export async function fileAccessLog(deps: LinkLogDeps, fileId: string, accountId: string, query: AccessQuery) {
  const owned = FILE_ID_PATTERN.test(fileId) && (await findOwnedFile(deps.db, fileId, accountId, isoNow()));
  if (!owned) throw new ApiError('FILE_NOT_FOUND');
  const links = await listLinksOfFile(deps.db, fileId, accountId);
  return readAccessLog(
    [defaultLinkSource(deps.counters, fileId), ...links.map((link) => linkSource(deps.counters, link.id))],
    query,
  );
}
