// The visitor's side of a made share link: find it alive, decide whether the visitor may have
// the file (password or grant), and serve it, counting downloads in the link's counter object.
// Every dead state (unknown, revoked, expired, exhausted, file gone) is the same null / 404.
import { ApiError } from '../errors';
import { type EventSink, emitEvents, type NewEvent } from '../events/emit';
import { fileEventData } from '../events/types';
import { countsAsDownload, planDownload, serveFile } from '../files/download';
import type { GuardNamespace } from '../limiter/auth-guard-client';
import { findLiveLinkByToken, type SharedByLink } from '../storage/links-repo';
import { isoNow } from '../time';
import { grantHolds } from './grant';
import {
  claimDownload,
  isExhausted,
  type LinkCounterNamespace,
  passwordBlocked,
  passwordFailed,
} from './link-counter-client';
import { verifyPassword } from './password';
import { LINK_TOKEN_PATTERN } from './service';
import {
  countForAddress,
  PASSWORD_FAILURES_PER_ADDRESS,
  PASSWORD_FAILURES_PER_LINK,
  refuseIfKnown,
  tooMany,
} from './throttle';

export type AccessDeps = {
  db: D1Database;
  bucket: R2Bucket;
  counters: LinkCounterNamespace;
  guard: GuardNamespace;
  /** Where a counted download's events go (file.downloaded, link.exhausted). */
  events: EventSink;
};

/** True for the shape of a made link's token (default links' tokens are shorter). */
export const isLinkToken = (token: string) => LINK_TOKEN_PATTERN.test(token);

/** The live link and its file, or null for every dead or unknown token. Exhaustion is checked too. */
export async function openLink(deps: AccessDeps, token: string): Promise<SharedByLink | null> {
  const found = await findLive(deps, token);
  if (!found || (await isExhausted(deps.counters, found.link))) return null;
  return found;
}

const findLive = (deps: AccessDeps, token: string) =>
  isLinkToken(token) ? findLiveLinkByToken(deps.db, token, isoNow()) : Promise.resolve(null);

export type Credentials = { password?: string; grant?: string; address: string };
/** `open`: no password, or a valid grant or password; `locked`: none given; `wrong`: a wrong one. */
export type Access = 'open' | 'locked' | 'wrong';

const storedHash = (link: SharedByLink['link']) =>
  link.password_hash !== null && link.password_salt !== null && link.password_iterations !== null
    ? { hash: link.password_hash, salt: link.password_salt, iterations: link.password_iterations }
    : null;

/**
 * Whether the visitor may have the file. A password is checked only while neither its address
 * nor the link is over its allowance of wrong passwords (429 then, right or wrong, and no hash
 * is computed); a wrong one is counted against both and counts as nothing else.
 */
export async function checkAccess(deps: AccessDeps, shared: SharedByLink, credentials: Credentials): Promise<Access> {
  const { link } = shared;
  const stored = storedHash(link);
  if (!stored) return 'open';
  if (credentials.grant && (await grantHolds(credentials.grant, stored.hash, link.id))) return 'open';
  if (credentials.password === undefined) return 'locked';
  refuseIfKnown(credentials.address, 'link-password');
  const linkWindow = await passwordBlocked(deps.counters, link.id, PASSWORD_FAILURES_PER_LINK);
  if (linkWindow.blocked) throw tooMany(linkWindow.reset, 'wrong passwords for this link');
  if (await verifyPassword(credentials.password, stored)) return 'open';
  const [byLink, byAddress] = await Promise.all([
    passwordFailed(deps.counters, link.id, PASSWORD_FAILURES_PER_LINK),
    countForAddress(deps.guard, credentials.address, 'link-password', PASSWORD_FAILURES_PER_ADDRESS),
  ]);
  if (byAddress.blocked) throw tooMany(byAddress.reset, 'wrong passwords');
  if (byLink.blocked) throw tooMany(byLink.reset, 'wrong passwords for this link');
  return 'wrong';
}

/**
 * Serves the file through a live link the visitor may open. A download (`view` false) that
 * counts (a GET answered 200, or 206 from byte 0) is claimed from the link's counter first:
 * past the cap it is 404, so a cap of N gives exactly N. Everything else (HEAD, 304, later
 * ranges, previews) is 404 once the link is exhausted and counts nothing. A counted download is
 * a `file.downloaded` event (via 'link'); the claim that reaches the cap, and only it, is also
 * `link.exhausted` (the counter object serialises claims, so exactly one sees count === max).
 */
export async function serveThroughLink(
  deps: AccessDeps,
  request: Request,
  shared: SharedByLink,
  view: boolean,
): Promise<Response> {
  const { link, file } = shared;
  const plan = planDownload(request.headers, file);
  const counts = !view && request.method === 'GET' && countsAsDownload(plan);
  if (!counts) {
    if (await isExhausted(deps.counters, link)) throw new ApiError('FILE_NOT_FOUND');
    return serveFile(deps, file, plan, request.method);
  }
  const claim = await claimDownload(deps.counters, link);
  if (!claim.ok) throw new ApiError('FILE_NOT_FOUND');
  const response = await serveFile(deps, file, plan, request.method);
  emitEvents(deps.events, downloadEvents(shared, claim.count));
  return response;
}

/** The events of one counted download through a made link whose count is now `count`. */
function downloadEvents({ link, file }: SharedByLink, count: number): NewEvent[] {
  const events: NewEvent[] = [
    {
      accountId: link.account_id,
      type: 'file.downloaded',
      data: { file: fileEventData(file), via: 'link', linkId: link.id },
    },
  ];
  if (link.max_downloads !== null && count === link.max_downloads) {
    events.push({ accountId: link.account_id, type: 'link.exhausted', data: { linkId: link.id, fileId: file.id } });
  }
  return events;
}

/** Like openLink, without the exhaustion check: for a download, whose claim checks it exactly. */
export const findOpenable = findLive;
