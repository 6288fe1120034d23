// Whether a visitor may have what a capability URL guards: nothing to unlock, a grant (the cookie
// a share link's password form gives), or the right password. Wrong passwords are counted per
// client address (the one per-address throttle) and per subject (in the subject's own object);
// past either allowance a password is not even checked: 429.
import { rateLimited } from '../errors';
import { sha256Hex } from '../lib/crypto';
import { addressThrottled, type GuardNamespace, hitAddress, refuseIfBlocked } from '../limiter/auth-guard-client';
import type { WindowResult } from '../limiter/auth-guard-contract';
import { grantHolds } from './grant';
import { readPassword, type StoredPassword, verifyPassword } from './password';
import type { AddressAllowance } from './throttle';

/** A window's answer: `blocked` past its allowance; undefined when it cannot be reached (let through). */
export type Blocked = { blocked: boolean; reset: number } | undefined;

/** What guards a subject (a made link, a file request) that has a password. */
export type Lock = {
  /** The subject's id: a grant, and a password remembered as right, hold for it only. */
  id: string;
  stored: StoredPassword;
  /** Wrong passwords per client address, all subjects of this kind together. */
  perAddress: AddressAllowance;
  /** Wrong passwords for this subject from every address: read before a check, counted after a wrong one. */
  failures: { read(): Promise<Blocked>; count(): Promise<Blocked> };
  /** How a 429 names the subject: "Too many wrong passwords for this link". */
  noun: string;
};

export type Credentials = { address: string; password?: string; grant?: string };
/** `open`: nothing to unlock, or a valid grant or password; `locked`: none given; `wrong`: a wrong one. */
export type Access = 'open' | 'locked' | 'wrong';

// Passwords this isolate found right, per subject, stored hash and client address (a hash of the
// four), so a tus upload's hundred PATCHes or a script's repeated downloads do not cost a PBKDF2
// run each. Bound to the address: a guesser elsewhere learns nothing from it, while the visitor
// who proved the password is not stopped by others' wrong guesses (one NAT, one address).
const verified = new Set<string>();
const MAX_VERIFIED = 10_000;

/**
 * Decides access. A password is checked only while neither the address nor the subject is over
 * its allowance of wrong passwords (429 then, right or wrong, and no hash is computed); a wrong
 * one is counted against both and counts as nothing else. A missing password counts nothing.
 */
export async function checkAccess(guard: GuardNamespace, lock: Lock | null, credentials: Credentials): Promise<Access> {
  if (!lock) return 'open';
  const stored = readPassword(lock.stored);
  if (credentials.grant && stored && (await grantHolds(credentials.grant, stored.hash, lock.id))) return 'open';
  const { address, password } = credentials;
  if (password === undefined) return 'locked';
  const memo = await sha256Hex([lock.id, JSON.stringify(lock.stored), address, password].join('\n'));
  if (verified.has(memo)) return 'open';

  const { scope, ...allowance } = lock.perAddress;
  refuseIfBlocked(address, scope);
  const tooMany = (byAddress: WindowResult | undefined, bySubject: Blocked) => {
    if (byAddress?.blocked) return addressThrottled(scope, byAddress.reset);
    if (bySubject?.blocked) {
      return rateLimited(bySubject.reset, `Too many wrong passwords for this ${lock.noun}; try again later`);
    }
    return undefined;
  };
  const before = tooMany(
    ...(await Promise.all([hitAddress(guard, address, scope, allowance, false), lock.failures.read()])),
  );
  if (before) throw before;
  if (await verifyPassword(password, lock.stored)) {
    if (verified.size >= MAX_VERIFIED) verified.clear();
    verified.add(memo);
    return 'open';
  }
  const after = tooMany(...(await Promise.all([hitAddress(guard, address, scope, allowance), lock.failures.count()])));
  if (after) throw after;
  return 'wrong';
}
