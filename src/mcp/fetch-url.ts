// Fetching a URL an agent gave (upload_from_url): http or https only, and never to the operator's
// own network. The host of the URL, and of every redirect, must be public or loopback (the address
// rule of src/lib/public-address.ts: private, link-local, carrier-grade-NAT and metadata
// addresses are refused; loopback reaches only this machine, for local development). workerd's
// fetch would follow redirects itself, unchecked: they are followed here, one at a time.
import { ApiError, validationError } from '../errors';
import { hostReach } from '../lib/public-address';

/** At most this many redirects, each target checked like the URL itself. */
export const MAX_REDIRECTS = 3;
const MAX_URL_LENGTH = 2048;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// C0, space, DEL, C1 and the bidi controls: a URL is judged as sent, before the parser drops any.
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f\u202a-\u202e\u2066-\u2069\s]/u;

/** The URL if it may be fetched, else why not (the reason names the rule). */
export function checkFetchUrl(raw: string): URL | { problem: string } {
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
  const reach = hostReach(url.hostname);
  if (reach.kind === 'non-public') {
    return { problem: `must not name a private, link-local or other non-public address: ${reach.range}` };
  }
  return url;
}

const refused = (field: string, redirected: boolean, problem: string) =>
  validationError(field, redirected ? `redirects to a URL that ${problem}` : problem);

/**
 * Fetches `raw` (a GET), following at most MAX_REDIRECTS redirects, each checked before it is
 * fetched. The answer is a 2xx response whose body is the caller's to read or cancel; anything
 * else is a 400 naming `field`. `signal` ends the fetch (the caller's deadline, its client leaving).
 */
export async function fetchChecked(raw: string, field: string, signal: AbortSignal): Promise<Response> {
  let target = checkFetchUrl(raw);
  for (let redirects = 0; ; redirects++) {
    if (!(target instanceof URL)) throw refused(field, redirects > 0, target.problem);
    let response: Response;
    try {
      response = await fetch(target, {
        redirect: 'manual',
        signal,
        headers: { 'User-Agent': 'edgeshare (upload_from_url)', Accept: '*/*' },
      });
    } catch (error) {
      if (signal.aborted) throw timedOut(signal);
      throw validationError(field, `could not be fetched: ${String(error)}`);
    }
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || location === null) {
      if (response.ok) return response;
      await response.body?.cancel();
      throw validationError(field, `answered ${response.status}, not a file`);
    }
    await response.body?.cancel();
    if (redirects === MAX_REDIRECTS) throw validationError(field, `redirects more than ${MAX_REDIRECTS} times`);
    target = checkFetchUrl(new URL(location, target).href);
  }
}

/** What an aborted fetch or read says: the deadline's 408, or the client having gone. */
export function timedOut(signal: AbortSignal): ApiError {
  const reason: unknown = signal.reason;
  if (reason instanceof ApiError) return reason;
  return new ApiError('UPLOAD_FAILED', 'The upload was cancelled');
}
