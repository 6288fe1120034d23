// The visitor's side of a made share link: find it alive, decide whether the visitor may have
// the file (password or grant), and serve it, counting downloads in the link's counter object.
// Every dead state (unknown, revoked, expired, exhausted, file gone) is the same null / 404.
import { ApiError, rateLimited } from '../errors';
import { type EventSink, emitEvents, type NewEvent } from '../events/emit';
import { countsAsDownload, type DownloadPlan, planDownload, serveFile } from '../files/download';
import { fileEventData } from '../files/records';
import { findShared } from '../files/service';
import { meteredStream } from '../lib/metered-stream';
import { addressThrottled, type GuardNamespace, hitAddress, refuseIfBlocked } from '../limiter/auth-guard-client';
import { findLiveLinkByToken, type SharedByLink } from '../storage/links-repo';
import { isoNow } from '../time';
import { verifyPassword } from '../visitors/password';
import { LINK_PASSWORDS_PER_ADDRESS } from '../visitors/throttle';
import { grantHolds } from './grant';
import {
  countDefaultLinkDownload,
  giveBackBytes,
  isExhausted,
  type LinkCounterNamespace,
  passwordBlocked,
  passwordFailed,
  reserveBytes,
} from './link-counter-client';
import type { ReserveResult } from './link-counter-contract';
import { LINK_TOKEN_PATTERN } from './service';

export type AccessDeps = {
  db: D1Database;
  bucket: R2Bucket;
  counters: LinkCounterNamespace;
  guard: GuardNamespace;
  /** Where a counted download's events go (file.downloaded, link.exhausted). */
  events: EventSink;
  /** Keeps work alive past the answer (giving back what a broken-off download did not send). */
  waitUntil: (promise: Promise<unknown>) => void;
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

/** Wrong passwords per link (all addresses together): a guesser with many addresses still stops. */
const PASSWORD_FAILURES_PER_LINK = { limit: 30, windowSeconds: 900 };
const tooManyForLink = (reset: number) => rateLimited(reset, 'Too many wrong passwords for this link; try again later');

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
  const { scope, ...allowance } = LINK_PASSWORDS_PER_ADDRESS;
  refuseIfBlocked(credentials.address, scope);
  const linkWindow = await passwordBlocked(deps.counters, link.id, PASSWORD_FAILURES_PER_LINK);
  if (linkWindow.blocked) throw tooManyForLink(linkWindow.reset);
  if (await verifyPassword(credentials.password, stored)) return 'open';
  const [byLink, byAddress] = await Promise.all([
    passwordFailed(deps.counters, link.id, PASSWORD_FAILURES_PER_LINK),
    hitAddress(deps.guard, credentials.address, scope, allowance),
  ]);
  if (byAddress?.blocked) throw addressThrottled(scope, byAddress.reset);
  if (byLink.blocked) throw tooManyForLink(byLink.reset);
  return 'wrong';
}

/** The bytes a planned answer carries: what it reserves of a capped link's budget. */
function bytesOf(plan: DownloadPlan, size: number, method: string): number {
  if (method !== 'GET') return 0;
  if (plan.kind === 'full') return size;
  if (plan.kind === 'partial') return plan.length;
  return 0;
}

/**
 * Serves the file through a live link the visitor may open. Every answer that carries bytes
 * (whole, any range, the preview) reserves them from the link's budget first (a cap of N is N ×
 * the file's size), atomically in the link's counter object: one that would pass the budget is
 * 404 like an exhausted link. What a broken-off answer did not send is given back, so a broken
 * download can still be resumed within the cap. A download (`view` false) that starts at byte 0
 * (a GET answered 200, or 206 from byte 0) is also counted and is a `file.downloaded` event; the
 * reservation that spends the budget, and only it, is `link.exhausted`.
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
  const capped = link.max_downloads !== null;
  if (!capped && !counts) return serveFile(deps, file, plan, request.method);
  const bytes = bytesOf(plan, file.size, request.method);
  const reserved = await reserveBytes(deps.counters, link, file.size, bytes, counts);
  if (!reserved.ok) throw new ApiError('FILE_NOT_FOUND');
  let response: Response;
  try {
    response = await serveFile(deps, file, plan, request.method);
  } catch (error) {
    deps.waitUntil(giveBackBytes(deps.counters, link.id, bytes));
    throw error;
  }
  emitEvents(deps.events, downloadEvents(shared, reserved, counts));
  if (!capped || bytes === 0 || !response.body) return response;
  const body = meteredStream(response.body, bytes, {
    onShort: (unsent) => giveBackBytes(deps.counters, link.id, unsent),
    waitUntil: deps.waitUntil,
    signal: request.signal,
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

/** The events of one answer through a made link: a counted download, and the one that spent the cap. */
function downloadEvents({ link, file }: SharedByLink, reserved: ReserveResult, counted: boolean): NewEvent[] {
  const events: NewEvent[] = [];
  if (counted) {
    events.push({
      accountId: link.account_id,
      type: 'file.downloaded',
      data: { file: fileEventData(file), via: 'link', linkId: link.id },
    });
  }
  if (reserved.exhausted) {
    events.push({ accountId: link.account_id, type: 'link.exhausted', data: { linkId: link.id, fileId: file.id } });
  }
  return events;
}

/**
 * Serves a file through its default link (its share token; no cap): a download from byte 0 is
 * counted in a counter object named after the file, which adds it to the file's row a few
 * seconds later, so a busy file costs D1 one read per download and one write per few seconds.
 */
export async function serveDefaultLink(
  deps: AccessDeps,
  request: Request,
  token: string,
  view: boolean,
): Promise<Response> {
  const row = await findShared(deps, token);
  if (!row) throw new ApiError('FILE_NOT_FOUND');
  const plan = planDownload(request.headers, row);
  const counts = !view && request.method === 'GET' && countsAsDownload(plan);
  if (counts) await countDefaultLinkDownload(deps.counters, row.id);
  const response = await serveFile(deps, row, plan, request.method);
  if (counts) {
    const file = fileEventData({ ...row, download_count: row.download_count + 1 });
    emitEvents(deps.events, [{ accountId: row.account_id, type: 'file.downloaded', data: { file, via: 'share' } }]);
  }
  return response;
}

/** Like openLink, without the exhaustion check: for a download, whose claim checks it exactly. */
export const findOpenable = findLive;
