// The visitor's side of a file request, as a door of openForVisitor (src/visitors/service.ts):
// the token (the capability) finds the request, its password guards it (HTTP Basic, empty user
// name), and its uploads are throttled per request and per client address (they carry no key).
import type { Config } from '../config';
import { ApiError, rateLimited } from '../errors';
import { throttleAddress } from '../limiter/auth-guard-client';
import { standingOf } from '../moderation/standing';
import type { RequestWithOwner } from '../storage/requests-repo';
import type { Blocked, Lock } from '../visitors/access';
import { type Door, openForVisitor, Refusal, type Visit, type VisitorDeps } from '../visitors/service';
import { requestPasswordsPerAddress, requestUploadsPerAddress } from '../visitors/throttle';
import { type CounterNamespace, counterOf, hitWindow } from './request-counter-client';
import type { WindowResult } from './request-counter-contract';
import { requestByToken, requestGone, requestStatus } from './service';

export type RequestVisitDeps = VisitorDeps & { db: D1Database; counters: CounterNamespace; config: Config };

/**
 * What a route of the request's URLs asks: a request that still takes files (`open`: 410 once
 * closed, expired or full) or any known one (an upload's later requests, the page); `upload`:
 * counted against the upload throttles; `guarded` false: served without the password (the page,
 * whose script asks for it).
 */
export type RequestEntry = { taking: 'open' | 'any'; upload?: boolean; guarded?: boolean };

const blockedOf = (result: WindowResult | undefined): Blocked =>
  result && { blocked: !result.allowed, reset: result.reset };

/** The request's password, and its object's window of wrong guesses (from every address). */
function requestLock(deps: RequestVisitDeps, request: RequestWithOwner): Lock | null {
  if (request.password_hash === null) return null;
  const perAddress = requestPasswordsPerAddress(deps.config);
  const window = { scope: 'password', limit: perAddress.limit, windowSeconds: perAddress.windowSeconds };
  const counter = counterOf(deps.counters, request.id);
  return {
    id: request.id,
    stored: request.password_hash,
    perAddress,
    failures: {
      read: async () => blockedOf(await hitWindow(counter, { ...window, count: false })),
      count: async () => blockedOf(await hitWindow(counter, window)),
    },
    noun: 'file request',
  };
}

/**
 * Counts one upload (a multipart POST, a raw PUT or a tus creation) against the client's address
 * and the request; 429 with Retry-After past either allowance. tus PATCH and HEAD are not
 * counted: their number is bounded by the upload's length, as for uploads with a key.
 */
async function countUpload(deps: RequestVisitDeps, request: RequestWithOwner, visit: Visit): Promise<void> {
  const config = deps.config;
  const [, byRequest] = await Promise.all([
    throttleAddress(deps.guard, visit.address, requestUploadsPerAddress(config)),
    hitWindow(counterOf(deps.counters, request.id), {
      scope: 'upload',
      limit: config.REQUEST_UPLOADS_PER_REQUEST,
      windowSeconds: config.REQUEST_UPLOAD_WINDOW_SECONDS,
    }),
  ]);
  const blocked = blockedOf(byRequest);
  if (blocked?.blocked) throw rateLimitedRequest(blocked.reset);
}

const rateLimitedRequest = (reset: number) => rateLimited(reset, 'Too many uploads to this request; try again later');

/** The door of a request's public URLs (/r/<token>, /api/v2/r/<token>/…). */
export function requestDoor<A>(
  deps: RequestVisitDeps,
  entry: RequestEntry,
  serve: (request: RequestWithOwner) => Promise<A>,
): Door<RequestWithOwner, A> {
  return {
    // 404 REQUEST_NOT_FOUND for an unknown token, and (open) 410 for a request taking no files:
    // that one is still the request's visit (its access log hears of it).
    async find(token) {
      const request = await requestByToken(deps.db, token);
      const status = entry.taking === 'open' ? requestStatus(request) : 'open';
      return status === 'open' ? request : new Refusal('gone', request, requestGone(status));
    },
    describe: (request) => ({ type: 'request', id: request.id, accountId: request.account_id }),
    // A suspended account's requests answer 451, page and uploads alike (read with the request).
    standing: (request) => standingOf({ suspension: request.owner_suspension }, 'visitor'),
    lock: (request) => (entry.guarded === false ? null : requestLock(deps, request)),
    admit: entry.upload ? (request, visit) => countUpload(deps, request, visit) : undefined,
    serve,
    gone: () => new ApiError('REQUEST_NOT_FOUND'),
  };
}

/**
 * The 401 asks for HTTP Basic, except from a page's own script (`fromScript`: fetch,
 * XMLHttpRequest, tus-js-client): a Basic challenge would make the browser open its own password
 * dialog over the page, which asks through its form instead.
 */
const passwordRequired = (fromScript: boolean, message?: string) =>
  new ApiError('PASSWORD_REQUIRED', message, {
    headers: fromScript ? {} : { 'WWW-Authenticate': 'Basic realm="file request", charset="UTF-8"' },
  });

/**
 * One visit of a request's URLs, from token to answer (openForVisitor): 404 or 410 for the
 * token, 401 PASSWORD_REQUIRED without the right password, 429 past a throttle, else `serve`'s
 * answer. Wrong passwords are counted per request and per address; past
 * REQUEST_PASSWORD_FAILURE_LIMIT in AUTH_FAILURE_WINDOW_SECONDS either answers 429 before any
 * password is checked. A missing password counts nothing.
 */
export async function visitRequest<A>(
  deps: RequestVisitDeps,
  visit: Visit,
  entry: RequestEntry & { fromScript: boolean },
  serve: (request: RequestWithOwner) => Promise<A>,
): Promise<A> {
  const visited = await openForVisitor(deps, visit, requestDoor(deps, entry, serve));
  if (visited.open) return visited.answer;
  const message = visited.access === 'wrong' ? 'Wrong password for this file request' : undefined;
  throw passwordRequired(entry.fromScript, message);
}
