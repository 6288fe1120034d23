// The visitor's side of share links, as a door of openForVisitor (src/visitors/service.ts): a
// token finds a made link (43 characters) and its file, or a file by its default link (its
// share token, governed by isPublic); a made link may have a password, whose wrong guesses its
// counter object also counts; the file is then served by src/links/serve.ts. Every dead state
// (unknown, private, revoked, expired, exhausted, file gone) is the same 404.
import type { Config } from '../config';
import { ApiError } from '../errors';
import { findShared, SHARE_TOKEN_PATTERN } from '../files/service';
import { fileOwnerOfShareToken, linkOwnerOfToken } from '../storage/access-subjects-repo';
import type { FileRow } from '../storage/files-repo';
import { findLiveLinkByToken, type LinkRow } from '../storage/links-repo';
import { isoNow } from '../time';
import type { Lock } from '../visitors/access';
import { type Door, EXHAUSTED, GONE, Refusal, type VisitKind, type VisitSubject } from '../visitors/service';
import { LINK_PASSWORDS_PER_ADDRESS, linkDownloadsPerAddress } from '../visitors/throttle';
import { isExhausted, type LinkCounterNamespace, passwordBlocked, passwordFailed } from './link-counter-client';
import type { ServeDeps } from './serve';
import { LINK_TOKEN_PATTERN } from './service';

/** What the share door reads with: D1 and R2 (default links' files), and the links' counter objects. */
export type AccessDeps = ServeDeps;

/** What a share token finds: a file, and the made link it came through (null: its default link). */
export type Shared = { file: FileRow; link: LinkRow | null };

/** True for the shape of a made link's token (default links' tokens are shorter). */
export const isLinkToken = (token: string) => LINK_TOKEN_PATTERN.test(token);

/** Wrong passwords per link (all addresses together): a guesser with many addresses still stops. */
const PASSWORD_FAILURES_PER_LINK = { limit: 30, windowSeconds: 900 };

/** A made link's password, and its counter object's window of wrong guesses. */
function linkLock(counters: LinkCounterNamespace, link: LinkRow): Lock | null {
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
async function tokenOwner(db: D1Database, token: string): Promise<VisitSubject | undefined> {
  if (isLinkToken(token)) {
    const link = await linkOwnerOfToken(db, token);
    return link ? { type: 'link', id: link.id, accountId: link.account_id } : undefined;
  }
  if (!SHARE_TOKEN_PATTERN.test(token)) return undefined;
  const file = await fileOwnerOfShareToken(db, token);
  return file ? { type: 'file', id: file.id, accountId: file.account_id } : undefined;
}

/** Bytes go out (and count) on these: throttled per address, and a made link's cap is checked as it serves. */
const carriesFile = (kind: VisitKind) => kind === 'download' || kind === 'preview';

/**
 * The door of /share/<token>: `serve` gives the answer once the visitor may have the file. A
 * download or preview is throttled per client address, default links as made ones; the
 * password form (`password`) is made links' only. A made link found exhausted is 404 before its
 * password is asked; a download finds the exact answer when it reserves its bytes, so it is
 * asked only of a visitor refused the file (an exhausted link is 404 with or without its password).
 */
export function shareDoor<A>(
  deps: AccessDeps,
  config: Config,
  kind: VisitKind,
  serve: (shared: Shared) => Promise<A | Refusal>,
): Door<Shared, A> {
  const exhausted = async (link: LinkRow | null) =>
    link && (await isExhausted(deps.counters, link)) ? EXHAUSTED : undefined;
  return {
    throttle: carriesFile(kind) ? linkDownloadsPerAddress(config) : undefined,
    async find(token) {
      if (!isLinkToken(token)) {
        const file = kind === 'password' ? null : await findShared(deps, token);
        return file ? { file, link: null } : GONE;
      }
      const found = await findLiveLinkByToken(deps.db, token, isoNow());
      if (!found) return GONE;
      if (!carriesFile(kind) && (await exhausted(found.link))) return new Refusal('exhausted', found);
      return found;
    },
    describe: ({ file, link }) =>
      link
        ? { type: 'link', id: link.id, accountId: link.account_id }
        : { type: 'file', id: file.id, accountId: file.account_id },
    identify: (token) => tokenOwner(deps.db, token),
    lock: ({ link }) => (link ? linkLock(deps.counters, link) : null),
    recheck: ({ link }) => (carriesFile(kind) ? exhausted(link) : Promise.resolve(undefined)),
    serve,
    gone: () => new ApiError('FILE_NOT_FOUND'),
  };
}
