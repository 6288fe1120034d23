// The one per-address throttle: failed authentication (API keys, the admin token) and what
// visitors without a key do (share links, file requests), each scope in its own window.
import type { Config } from '../config';
import { type ApiError, rateLimited } from '../errors';
import { log } from '../log';
import type { GuardScope, WindowResult } from './auth-guard-contract';
import type { AuthGuard } from './auth-guard-object';

export type GuardNamespace = DurableObjectNamespace<AuthGuard>;
export type { GuardScope };
/** How many events of a scope an address may have in one fixed window. */
export type Allowance = { limit: number; windowSeconds: number };
export type ScopedAllowance = Allowance & { scope: GuardScope };

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

/**
 * The address's guard, by the id the runtime derives from the address (idFromName: a keyed hash,
 * under a key of the namespace that the runtime keeps), passed on as a bare id. An object reached
 * by name keeps its name (`ctx.id.name`; local state stores it in plain text), so the address
 * would be kept wherever the guard is; by id, only the hash is. The same id as getByName(address)
 * gave: every window counted before still counts.
 */
export const guardOf = (namespace: GuardNamespace, address: string) =>
  namespace.get(namespace.idFromString(namespace.idFromName(address).toString()));

// Addresses known to be blocked, per isolate and scope: they are answered 429 at once, without
// another trip to the guard. For keys and the admin token only failures are counted and refused:
// valid credentials are never refused, the lockout bounds the work and noise of guessing, and the
// keys' and token's entropy makes guessing hopeless. Each isolate learns of a block when the
// guard first reports it.
const blocked = new Map<string, number>();
const MAX_REMEMBERED = 10_000;

const AUTH_FAILURES = 'Too many failed authentication attempts from this address; try again later';
const TOO_MANY: Record<GuardScope, string> = {
  api: AUTH_FAILURES,
  admin: AUTH_FAILURES,
  'link-password': 'Too many wrong passwords; try again later',
  'request-password': 'Too many wrong passwords; try again later',
  'link-download': 'Too many downloads from this address; try again later',
  'request-upload': 'Too many uploads from this address; try again later',
  report: 'Too many reports from this address; try again later',
};

/** The 429 for an address past its allowance of `scope`. */
export const addressThrottled = (scope: GuardScope, reset: number, now = Date.now()) =>
  rateLimited(reset, TOO_MANY[scope], {}, now);

/** Throws 429 when this isolate knows the address is over its allowance for `scope`. */
export function refuseIfBlocked(address: string, scope: GuardScope, now = Date.now()): void {
  const until = blocked.get(`${scope} ${address}`);
  if (until === undefined) return;
  if (until * 1000 <= now) {
    blocked.delete(`${scope} ${address}`);
    return;
  }
  throw addressThrottled(scope, until, now);
}

/**
 * Counts one event of `scope` for the address (`count` false: only reads its window), and
 * remembers a block. Undefined when the guard cannot be reached: logged, and let through
 * (throttling fails open).
 */
export async function hitAddress(
  namespace: GuardNamespace,
  address: string,
  scope: GuardScope,
  allowance: Allowance,
  count = true,
): Promise<WindowResult | undefined> {
  try {
    const result = await guardOf(namespace, address).hit({ scope, ...allowance, count });
    if (result.blocked) {
      if (blocked.size >= MAX_REMEMBERED) blocked.clear();
      blocked.set(`${scope} ${address}`, result.reset);
    }
    return result;
  } catch (error) {
    log('error', 'auth guard unreachable', { scope, error: String(error) });
    return undefined;
  }
}

/** One event the address may do `allowance.limit` times a window (a download, an upload): 429 past it. */
export async function throttleAddress(
  namespace: GuardNamespace,
  address: string,
  { scope, ...allowance }: ScopedAllowance,
): Promise<void> {
  refuseIfBlocked(address, scope);
  const result = await hitAddress(namespace, address, scope, allowance);
  if (result?.blocked) throw addressThrottled(scope, result.reset);
}

/**
 * Records a failed authentication and returns the error to answer with: 401, or 429 once the
 * address is over its allowance. If the guard cannot be reached the failure is only logged.
 */
export async function recordFailure(
  namespace: GuardNamespace,
  config: Config,
  address: string,
  scope: 'api' | 'admin',
  unauthorized: ApiError,
): Promise<ApiError> {
  const base = config.AUTH_FAILURE_LIMIT;
  const limit = scope === 'admin' ? Math.max(1, Math.floor(base / ADMIN_SHARE)) : base;
  const result = await hitAddress(namespace, address, scope, {
    limit,
    windowSeconds: config.AUTH_FAILURE_WINDOW_SECONDS,
  });
  return result?.blocked ? addressThrottled(scope, result.reset) : unauthorized;
}
