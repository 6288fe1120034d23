// Who may use a request's public URLs: the token (the capability), the password when it has
// one, and the throttles (per request, per client address) that stand in for a key's rate limit.
import type { Context } from 'hono';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { basicPassword } from '../lib/basic-auth';
import { sha256Hex } from '../lib/crypto';
import { timed } from '../lib/timing';
import { clientAddress } from '../limiter/auth-guard-client';
import type { RequestWithOwner } from '../storage/requests-repo';
import { verifyPassword } from './password';
import { counterOf, hitWindow } from './request-counter-client';
import type { WindowResult } from './request-counter-contract';
import { openRequestByToken, requestByToken, requestGone, requestStatus } from './service';

/** D1 as routes get it from storage(c) (http/request-deps.ts): timed on v2, so Server-Timing shows it. */
function database(c: Context<AppEnv>): D1Database {
  const timings = c.get('timings');
  return timings ? timed(c.env.DB, 'd1', timings) : c.env.DB;
}

/** The request behind the URL's token, if it takes files (404 unknown, 410 closed/expired/full). */
export const openRequest = (c: Context<AppEnv>) => openRequestByToken(database(c), c.req.param('token') ?? '');

/** The request behind the URL's token whatever its status (404 when unknown). */
export const anyRequest = (c: Context<AppEnv>) => requestByToken(database(c), c.req.param('token') ?? '');

export { requestGone, requestStatus };

const throttled = (result: WindowResult, message: string) =>
  new ApiError('RATE_LIMITED', message, {
    headers: { 'Retry-After': String(Math.max(1, result.reset - Math.floor(Date.now() / 1000))) },
  });

/**
 * Counts one upload (a multipart POST or a tus creation) against the request and the client's
 * address; 429 with Retry-After past either allowance. tus PATCH and HEAD are not counted: their
 * number is bounded by the upload's length, as for uploads with a key.
 */
export async function countUpload(c: Context<AppEnv>, request: RequestWithOwner): Promise<void> {
  const config = c.get('config');
  const windowSeconds = config.REQUEST_UPLOAD_WINDOW_SECONDS;
  const [byAddress, byRequest] = await Promise.all([
    hitWindow(c.env.REQUEST_THROTTLE.getByName(clientAddress(c.req.raw.headers)), {
      scope: 'upload',
      limit: config.REQUEST_UPLOADS_PER_ADDRESS,
      windowSeconds,
    }),
    hitWindow(counterOf(c.env.FILE_REQUESTS, request.id), {
      scope: 'upload',
      limit: config.REQUEST_UPLOADS_PER_REQUEST,
      windowSeconds,
    }),
  ]);
  if (byAddress && !byAddress.allowed)
    throw throttled(byAddress, 'Too many uploads from this address; try again later');
  if (byRequest && !byRequest.allowed) throw throttled(byRequest, 'Too many uploads to this request; try again later');
}

/**
 * The 401 asks for HTTP Basic, except from a page's own script (fetch, XMLHttpRequest, tus-js-client:
 * Sec-Fetch-Mode other than navigate): a Basic challenge would make the browser open its own
 * password dialog over the page, which asks through its form instead.
 */
const passwordRequired = (c: Context<AppEnv>, message?: string) => {
  const mode = c.req.header('sec-fetch-mode');
  const fromScript = mode !== undefined && mode !== 'navigate';
  return new ApiError('PASSWORD_REQUIRED', message, {
    headers: fromScript ? {} : { 'WWW-Authenticate': 'Basic realm="file request", charset="UTF-8"' },
  });
};

// Passwords this isolate has verified (a hash of request, stored hash and password), so a tus
// upload's hundred PATCHes do not cost a hundred PBKDF2 runs.
const verified = new Set<string>();
const MAX_VERIFIED = 10_000;

/**
 * For a request with a password: the right one (HTTP Basic, empty user name) or 401
 * PASSWORD_REQUIRED. Wrong passwords are counted per request and per address; past
 * REQUEST_PASSWORD_FAILURE_LIMIT in AUTH_FAILURE_WINDOW_SECONDS either answers 429 before any
 * password is checked. A missing password counts nothing.
 */
export async function checkPassword(c: Context<AppEnv>, request: RequestWithOwner): Promise<void> {
  if (request.password_hash === null) return;
  const given = basicPassword(c.req.header('authorization'));
  if (given === undefined) throw passwordRequired(c);
  const memo = await sha256Hex(`${request.id}\n${request.password_hash}\n${given}`);
  if (verified.has(memo)) return;

  const config = c.get('config');
  const window = {
    scope: 'password',
    limit: config.REQUEST_PASSWORD_FAILURE_LIMIT,
    windowSeconds: config.AUTH_FAILURE_WINDOW_SECONDS,
  };
  const address = c.env.REQUEST_THROTTLE.getByName(clientAddress(c.req.raw.headers));
  const counter = counterOf(c.env.FILE_REQUESTS, request.id);
  const message = 'Too many wrong passwords; try again later';
  for (const result of await Promise.all([
    hitWindow(address, { ...window, count: false }),
    hitWindow(counter, { ...window, count: false }),
  ])) {
    if (result && !result.allowed) throw throttled(result, message);
  }
  if (await verifyPassword(given, request.password_hash)) {
    if (verified.size >= MAX_VERIFIED) verified.clear();
    verified.add(memo);
    return;
  }
  await Promise.all([hitWindow(address, window), hitWindow(counter, window)]);
  throw passwordRequired(c, 'Wrong password for this file request');
}
