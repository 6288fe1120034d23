// Per-address throttles of made share links, counted in the per-address AuthGuard object:
// every download or preview through a made link (`link-download`), and wrong link passwords
// (`link-password`). An address found over an allowance is remembered by the isolate until
// the window ends, so it is refused without another call.
import { rateLimited } from '../errors';
import type { GuardNamespace } from '../limiter/auth-guard-client';
import { log } from '../log';

type Scope = 'link-download' | 'link-password';
export type Allowance = { limit: number; windowSeconds: number };

/** Wrong passwords per client address (all links together). */
export const PASSWORD_FAILURES_PER_ADDRESS: Allowance = { limit: 10, windowSeconds: 300 };
/** Wrong passwords per link (all addresses together): a guesser with many addresses still stops. */
export const PASSWORD_FAILURES_PER_LINK: Allowance = { limit: 30, windowSeconds: 900 };

const blockedUntil = new Map<string, number>();
const MAX_REMEMBERED = 10_000;

export const tooMany = (resetSeconds: number, what: string, now = Date.now()) =>
  rateLimited(resetSeconds, `Too many ${what}; try again later`, {}, now);

const what = (scope: Scope) => (scope === 'link-download' ? 'downloads from this address' : 'wrong passwords');

/** Throws 429 when this isolate knows the address is over its allowance for `scope`. */
export function refuseIfKnown(address: string, scope: Scope, now = Date.now()): void {
  const until = blockedUntil.get(`${scope} ${address}`);
  if (until === undefined) return;
  if (until * 1000 <= now) blockedUntil.delete(`${scope} ${address}`);
  else throw tooMany(until, what(scope), now);
}

/**
 * Counts one event for the address; true once it is over the allowance (then remembered). If
 * the guard cannot be reached the event is logged and let through: throttling fails open.
 */
export async function countForAddress(
  guard: GuardNamespace,
  address: string,
  scope: Scope,
  allowance: Allowance,
): Promise<{ blocked: boolean; reset: number }> {
  try {
    const result = await guard.getByName(address).fail({ scope, ...allowance });
    if (result.blocked) {
      if (blockedUntil.size >= MAX_REMEMBERED) blockedUntil.clear();
      blockedUntil.set(`${scope} ${address}`, result.reset);
    }
    return result;
  } catch (error) {
    log('error', 'auth guard unreachable', { scope, error: String(error) });
    return { blocked: false, reset: 0 };
  }
}

/** One download or preview through a made link: 429 past LINK_DOWNLOAD_LIMIT per window. */
export async function throttleDownload(guard: GuardNamespace, address: string, allowance: Allowance): Promise<void> {
  refuseIfKnown(address, 'link-download');
  const result = await countForAddress(guard, address, 'link-download', allowance);
  if (result.blocked) throw tooMany(result.reset, what('link-download'));
}
