// Fetching a URL an agent gave (upload_from_url): http or https only, and never to the operator's
// own network. The host of the URL, and of every redirect, must be public (the address rule of
// src/lib/public-address.ts: private, link-local, carrier-grade-NAT and metadata addresses, local
// names and names embedding such an address are refused; a loopback address only in development,
// ALLOW_LOOPBACK_TARGETS). workerd's fetch would follow redirects itself, unchecked: they are
// followed here, one at a time. Whatever keeps a target from answering reads the same.
import { ApiError, validationError } from '../errors';
import { type TargetRules, targetProblem } from '../lib/public-address';
import { log } from '../log';

/** At most this many redirects, each target checked like the URL itself. */
export const MAX_REDIRECTS = 3;
const MAX_URL_LENGTH = 2048;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// C0, space, DEL, C1 and the bidi controls: a URL is judged as sent, before the parser drops any.
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f\u202a-\u202e\u2066-\u2069\s]/u;

/** How long a target has to answer (its status and headers): past it, the fetch failed. */
export const ANSWER_TIMEOUT_MS = 10_000;

/**
 * What every failure to reach a target reads: a refused or reset connection, a name that does not
 * resolve, a TLS failure, no answer in ANSWER_TIMEOUT_MS (or before the upload's deadline), an
 * answer that is not HTTP. The same words for all, so no answer tells an open port from a closed
 * one. (A target that answers is reached: a non-2xx status is named, as it tells nothing more.)
 */
export const COULD_NOT_FETCH = 'could not be fetched';

/** The URL if it may be fetched, else why not (the reason names the rule). */
export function checkFetchUrl(raw: string, rules: TargetRules): URL | { problem: string } {
  if (raw.length > MAX_URL_LENGTH) return { problem: `must be at most ${MAX_URL_LENGTH} characters` };
  if (CONTROL_OR_SPACE.test(raw)) return { problem: 'must not contain control characters or whitespace' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: 'must be an absolute http or https URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: 'must use http or https' };
  if (url.username || url.password) return { problem: 'must not carry a user name or password' };
  const problem = targetProblem(url.hostname, rules);
  return problem === undefined ? url : { problem };
}

const refused = (field: string, redirected: boolean, problem: string) =>
  validationError(field, redirected ? `redirects to a URL that ${problem}` : problem);

/**
 * Fetches `raw` (a GET), following at most MAX_REDIRECTS redirects, each checked before it is
 * fetched. The answer is a 2xx response whose body is the caller's to read or cancel; anything
 * else is a 400 naming `field`. `signal` ends the fetch (the caller's deadline, its client leaving).
 */
export async function fetchChecked(
  raw: string,
  field: string,
  signal: AbortSignal,
  rules: TargetRules,
): Promise<Response> {
  let target = checkFetchUrl(raw, rules);
  for (let redirects = 0; ; redirects++) {
    if (!(target instanceof URL)) throw refused(field, redirects > 0, target.problem);
    const response = await answerOf(target, field, signal);
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || location === null) {
      if (response.ok) return response;
      await response.body?.cancel();
      throw validationError(field, `answered ${response.status}, not a file`);
    }
    await response.body?.cancel();
    if (redirects === MAX_REDIRECTS) throw validationError(field, `redirects more than ${MAX_REDIRECTS} times`);
    target = checkFetchUrl(new URL(location, target).href, rules);
  }
}

/**
 * One GET, given ANSWER_TIMEOUT_MS to answer; its body stays bound to `signal` alone. Any failure
 * but the caller's own end reads COULD_NOT_FETCH, whatever the cause (logged for the operator).
 */
async function answerOf(target: URL, field: string, signal: AbortSignal): Promise<Response> {
  const controller = new AbortController();
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) forward();
  else signal.addEventListener('abort', forward, { once: true });
  const timer = setTimeout(() => controller.abort(new Error('no answer in time')), ANSWER_TIMEOUT_MS);
  try {
    return await fetch(target, {
      redirect: 'manual',
      signal: controller.signal,
      headers: { 'User-Agent': 'edgeshare (upload_from_url)', Accept: '*/*' },
    });
  } catch (error) {
    // The client gone: nobody to tell. The deadline passed before an answer: no answer, like any other.
    if (signal.aborted && !(signal.reason instanceof ApiError)) throw timedOut(signal);
    log('info', 'upload_from_url: no answer', { host: target.host, error: String(error) });
    throw validationError(field, COULD_NOT_FETCH);
  } finally {
    clearTimeout(timer);
  }
}

/** What an aborted fetch or read says: the deadline's 408, or the client having gone. */
export function timedOut(signal: AbortSignal): ApiError {
  const reason: unknown = signal.reason;
  if (reason instanceof ApiError) return reason;
  return new ApiError('UPLOAD_FAILED', 'The upload was cancelled');
}
