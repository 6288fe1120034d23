// What a reported URL names (POST /api/v2/reports): any URL of a share link (its page, download,
// view, ZIP, a collection's member), of a file request (its page or its upload URLs), or a bare
// token. Only the path counts (the host is not checked: a reporter may paste the link as a chat
// app rewrote it); the fragment (an end-to-end link's key) and the query (an archive's ?v=) are
// never read. Looked up only after the report is answered (src/abuse/intake.ts).
import { FILE_ID_PATTERN } from '../files/ids';
import { linkOfToken, ownerOfToken, type ReportTarget } from '../storage/report-intake-repo';

/** Where a token was found in the URL: a share URL, a file request's, or bare (either). */
export type ReportedToken = { token: string; memberId: string | null; kind: 'share' | 'request' | 'any' };

const SHARE_PATH =
  /^\/share\/([A-Za-z0-9_-]+)(?:\/(?:download|view|archive\.zip|files\/([A-Za-z0-9_-]+)(?:\/view)?))?\/?$/;
const REQUEST_PATH = /^(?:\/api\/v2)?\/r\/([A-Za-z0-9_-]+)(?:\/.*)?$/;
const BARE_TOKEN = /^[A-Za-z0-9_-]{32}$|^[A-Za-z0-9_-]{43}$/;
/** A made link's token (43 characters); a file's default link and a file request have 32. */
const LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/;
const SHORT_TOKEN = /^[A-Za-z0-9_-]{32}$/;

/** The token a reported URL carries, or null when it carries none of this service's shapes. */
export function reportedToken(url: string): ReportedToken | null {
  const text = url.trim();
  if (BARE_TOKEN.test(text)) return { token: text, memberId: null, kind: 'any' };
  let path: string;
  try {
    // A path alone (/share/…) is read against any origin: only the path counts.
    path = new URL(text, 'https://edgeshare.invalid').pathname;
  } catch {
    return null;
  }
  const share = SHARE_PATH.exec(path);
  if (share?.[1]) {
    const member = share[2] ?? null;
    return { token: share[1], memberId: member && FILE_ID_PATTERN.test(member) ? member : null, kind: 'share' };
  }
  const request = REQUEST_PATH.exec(path);
  if (request?.[1]) return { token: request[1], memberId: null, kind: 'request' };
  return null;
}

/**
 * What the token names, live or not (a revoked link, an expired file request: the operator
 * decides): a file by its default link; a made link to a file (the link, which the operator may
 * disable alone); a collection through any of its links (its reports count together, whichever
 * link they came through), or the member a collection's member URL names; a file request. Null
 * when it names nothing.
 */
export async function findReportTarget(db: D1Database, reported: ReportedToken): Promise<ReportTarget | null> {
  const { token, memberId, kind } = reported;
  if (LINK_TOKEN.test(token) && kind !== 'request') {
    const link = await linkOfToken(db, token, memberId);
    if (!link) return null;
    const accountId = link.account_id;
    if (link.file_id !== null) return { type: 'link', id: link.id, accountId };
    if (link.collection_id === null) return null;
    if (memberId !== null && link.member === 1) return { type: 'file', id: memberId, accountId };
    return { type: 'collection', id: link.collection_id, accountId };
  }
  if (!SHORT_TOKEN.test(token)) return null;
  if (kind !== 'request') {
    const file = await ownerOfToken(db, 'files', token);
    if (file) return { type: 'file', id: file.id, accountId: file.account_id };
  }
  if (kind === 'share') return null;
  const request = await ownerOfToken(db, 'file_requests', token);
  return request ? { type: 'request', id: request.id, accountId: request.account_id } : null;
}
