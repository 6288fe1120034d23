// Throttles failed authentication per client address, for API keys and the admin token alike.
import type { Config } from '../config';
import { type ApiError, rateLimited } from '../errors';
import { log } from '../log';
import type { FailureRequest } from './auth-guard-contract';
import type { AuthGuard } from './auth-guard-object';

export type GuardNamespace = DurableObjectNamespace<AuthGuard>;
export type GuardScope = FailureRequest['scope'];

// Admin tokens are guessed less often by honest clients: a fifth of the API allowance.
const ADMIN_SHARE = 5;

/**
 * The address a request came from, as Cloudflare reports it. IPv6 clients usually hold a whole
 * /64, so they are grouped by it; without the header (local tools) every request is `local`.
 */
export function clientAddress(headers: Headers): string {
  const address = headers.get('cf-connecting-ip')?.trim().toLowerCase();
  if (!address) return 'local';
  if (!address.includes(':')) return address;
  const groups = expandIpv6(address);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : address;
}

function expandIpv6(address: string): string[] | undefined {
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? left.length !== 8 : missing < 0) return undefined;
  return [...left, ...Array.from({ length: tail === undefined ? 0 : missing }, () => '0'), ...right];
}

// Addresses known to be blocked, per isolate: their failures are answered 429 at once, without
// another trip to the guard. Valid credentials are never refused (only failures are): the
// lockout bounds the work and noise of guessing; the keys' and token's entropy makes guessing
// hopeless. Each isolate learns of a block at the first failure it sees.
const blocked = new Map<string, number>();
const MAX_REMEMBERED = 10_000;

const throttled = (resetSeconds: number, now: number) =>
  rateLimited(resetSeconds, 'Too many failed authentication attempts from this address; try again later', {}, now);

/** Throws 429 when this address is known to be blocked for `scope`: called on failures only. */
export function refuseIfBlocked(address: string, scope: GuardScope, now = Date.now()): void {
  const until = blocked.get(`${scope} ${address}`);
  if (until === undefined) return;
  if (until * 1000 <= now) {
    blocked.delete(`${scope} ${address}`);
    return;
  }
  throw throttled(until, now);
}

/**
 * Records a failed authentication and returns the error to answer with: 401, or 429 once the
 * address is over its allowance. If the guard cannot be reached the failure is only logged.
 */
export async function recordFailure(
  namespace: GuardNamespace,
  config: Config,
  address: string,
  scope: GuardScope,
  unauthorized: ApiError,
): Promise<ApiError> {
  const base = config.AUTH_FAILURE_LIMIT;
  const limit = scope === 'admin' ? Math.max(1, Math.floor(base / ADMIN_SHARE)) : base;
  try {
    const result = await namespace
      .getByName(address)
      .fail({ scope, limit, windowSeconds: config.AUTH_FAILURE_WINDOW_SECONDS });
    if (!result.blocked) return unauthorized;
    if (blocked.size >= MAX_REMEMBERED) blocked.clear();
    blocked.set(`${scope} ${address}`, result.reset);
    return throttled(result.reset, Date.now());
  } catch (error) {
    log('error', 'auth guard unreachable', { error: String(error) });
    return unauthorized;
  }
}
