// The visitor's side of share links, the parts the share door (src/share/door.ts) is made of: a
// token finds a made link (43 characters) and what it shares, or a file by its default link (its
// share token, governed by isPublic); a made link may have a password, whose wrong guesses its
// counter object also counts; a file is then served by src/links/serve.ts, a collection by
// src/collections/link-serve.ts. Every dead state (unknown, private, revoked, expired, exhausted,
// file gone) is the same 404.
import { findShared, SHARE_TOKEN_PATTERN } from '../files/service';
import { fileOwnerOfShareToken, linkOwnerOfToken } from '../storage/access-subjects-repo';
import type { FileRow } from '../storage/files-repo';
import type { LinkFacts, LinkRow } from '../storage/links-repo';
import type { Lock } from '../visitors/access';
import { EXHAUSTED, type VisitKind, type VisitSubject } from '../visitors/service';
import { LINK_PASSWORDS_PER_ADDRESS } from '../visitors/throttle';
import { isExhausted, type LinkCounterNamespace, passwordBlocked, passwordFailed } from './link-counter-client';
import type { ServeDeps } from './serve';
import { LINK_TOKEN_PATTERN } from './service';

/** What the share door reads with: D1 and R2 (default links' files), and the links' counter objects. */
export type AccessDeps = ServeDeps;

/**
 * What a share token finds: a file, the made link it came through (null: its default link), what
 * its lookup read of their standing (the owner's suspension, the link's disabling), and that
 * link's age header when the file is encrypted (a default link serves the owner's).
 */
export type Shared = { file: FileRow; link: LinkRow | null; facts: LinkFacts; header?: string | null };

/** True for the shape of a made link's token (default links' tokens are shorter). */
export const isLinkToken = (token: string) => LINK_TOKEN_PATTERN.test(token);

/** Wrong passwords per link (all addresses together): a guesser with many addresses still stops. */
const PASSWORD_FAILURES_PER_LINK = { limit: 30, windowSeconds: 900 };

/** A made link's password, and its counter object's window of wrong guesses. */
export function linkLock(counters: LinkCounterNamespace, link: LinkRow): Lock | null {
  if (link.password_hash === null || link.password_salt === null || link.password_iterations === null) return null;
  return {
    id: link.id,
    stored: { hash: link.password_hash, salt: link.password_salt, iterations: link.password_iterations },
    perAddress: LINK_PASSWORDS_PER_ADDRESS,
    failures: {
      read: () => passwordBlocked(counters, link.id, PASSWORD_FAILURES_PER_LINK),
      count: () => passwordFailed(counters, link.id, PASSWORD_FAILURES_PER_LINK),
    },
    noun: 'link',
  };
}

/** Whose a token is, live or not (the access log's, after the answer): a made link, or a file's default link. */
export async function tokenOwner(db: D1Database, token: string): Promise<VisitSubject | undefined> {
  if (isLinkToken(token)) {
    const link = await linkOwnerOfToken(db, token);
    return link ? { type: 'link', id: link.id, accountId: link.account_id } : undefined;
  }
  if (!SHARE_TOKEN_PATTERN.test(token)) return undefined;
  const file = await fileOwnerOfShareToken(db, token);
  return file ? { type: 'file', id: file.id, accountId: file.account_id } : undefined;
}

/** Bytes go out (and count) on these: throttled per address, and a made link's cap is checked as it serves. */
export const carriesContent = (kind: VisitKind) => kind === 'download' || kind === 'preview' || kind === 'archive';

/** The link's budget is spent: an exhausted link is 404 before its password is asked. */
export const exhaustedLink = async (counters: LinkCounterNamespace, link: LinkRow | null, size: number) =>
  link && (await isExhausted(counters, link, size)) ? EXHAUSTED : undefined;

/**
 * What a file's share token finds, for the share door (src/share/door.ts): a file through its
 * default link (any token that is not a made link's, never for the password form), or null.
 */
export async function findDefaultShared(deps: AccessDeps, token: string, kind: VisitKind): Promise<Shared | null> {
  if (kind === 'password') return null;
  const found = await findShared(deps, token);
  if (!found) return null;
  const { account_suspension: suspension, ...file } = found;
  return { file, link: null, facts: { suspension, disabled: null } };
}
