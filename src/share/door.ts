// The door of /share/<token>, as openForVisitor (src/visitors/service.ts) asks of it, for every
// kind of share URL: a file's default link, a link made to a file, a link made to a collection.
// A token is looked up once (src/storage/links-repo.ts finds a made link with what it shares),
// and each route says what it serves of a file and of a collection; a route that serves nothing
// of the kind the token is (a file link's /archive.zip) finds it gone: the same 404 as an
// unknown token. Parts: src/links/access.ts (locks, default links), src/links/serve.ts and
// src/collections/link-serve.ts (the answers within a link's budget).

import type { SharedCollection } from '../collections/link-serve';
import { findCollectionArchive } from '../collections/owner-archive';
import type { Config } from '../config';
import { ApiError } from '../errors';
import { servedSize } from '../files/download';
import {
  type AccessDeps,
  carriesContent,
  exhaustedLink,
  findDefaultShared,
  isLinkToken,
  linkLock,
  type Shared,
  tokenOwner,
} from '../links/access';
import { standingOf } from '../moderation/standing';
import { findLiveLinkByToken } from '../storage/links-repo';
import { isoNow } from '../time';
import { type Door, GONE, Refusal, type VisitKind } from '../visitors/service';
import { linkDownloadsPerAddress } from '../visitors/throttle';

export type { SharedCollection };

/** What a share token finds: a file (by its default link or a made one), or a collection by its link. */
export type ShareSubject = Shared | SharedCollection;

export const isCollection = (subject: ShareSubject): subject is SharedCollection => 'collection' in subject;

/** What a route serves of each kind; a kind it leaves out is gone for it. */
export type ShareServe<A> = {
  file?: (shared: Shared) => Promise<A | Refusal>;
  collection?: (shared: SharedCollection) => Promise<A | Refusal>;
  /** How a collection's visit is logged when not as `kind` (its /download is its `archive`). */
  collectionKind?: VisitKind;
};

/**
 * The door for one route. A download, preview or archive (`carriesContent`) is throttled per
 * client address, default links as made ones, and finds a link's exact budget when it reserves
 * its bytes, so exhaustion is asked only of a visitor refused access (an exhausted link is 404
 * with or without its password); every other kind (the page, the password form) asks it before
 * the password. A collection's budget unit is its archive's length now, read when it is found.
 */
export function shareDoor<A>(
  deps: AccessDeps,
  config: Config,
  kind: VisitKind,
  serve: ShareServe<A>,
): Door<ShareSubject, A> {
  const carries = carriesContent(kind);
  const exhausted = (subject: ShareSubject) =>
    exhaustedLink(
      deps.counters,
      subject.link,
      isCollection(subject) ? subject.archive.length : servedSize(subject.file, subject.header),
    );

  async function findLinked(token: string): Promise<ShareSubject | Refusal<ShareSubject>> {
    const found = await findLiveLinkByToken(deps.db, token, isoNow());
    if (!found) return GONE;
    let subject: ShareSubject;
    if ('collection' in found) {
      if (!serve.collection) return GONE;
      const opened = await findCollectionArchive(deps.db, found.collection.id, found.link.account_id, Date.now(), {
        audience: 'visitor',
        scan: config,
        linkId: found.link.id,
      });
      if (!opened) return GONE;
      subject = { link: found.link, collection: opened.collection, archive: opened.archive, facts: found.facts };
    } else {
      // An encrypted file is served through a link only with that link's header.
      if (!serve.file || (found.file.encryption && !found.header)) return GONE;
      subject = found;
    }
    if (!carries && (await exhausted(subject))) return new Refusal('exhausted', subject);
    return subject;
  }

  return {
    throttle: carries ? linkDownloadsPerAddress(config) : undefined,
    async find(token) {
      if (isLinkToken(token)) return findLinked(token);
      const file = serve.file ? await findDefaultShared(deps, token, kind) : null;
      return file ?? GONE;
    },
    describe: (subject) =>
      subject.link
        ? { type: 'link', id: subject.link.id, accountId: subject.link.account_id }
        : { type: 'file', id: (subject as Shared).file.id, accountId: (subject as Shared).file.account_id },
    kindOf: (subject) => (isCollection(subject) ? serve.collectionKind : undefined) ?? kind,
    identify: (token) => tokenOwner(deps.db, token),
    // What the lookup read: the owner's suspension, the link's disabling, and a file's own
    // standing (a collection's members are judged one by one: its page and ZIP leave out those
    // that may not be served, and a member's own URL is refused).
    standing: (subject) =>
      standingOf({ ...subject.facts, file: isCollection(subject) ? null : subject.file }, 'visitor', config),
    lock: ({ link }) => (link ? linkLock(deps.counters, link) : null),
    recheck: async (subject) => (carries ? await exhausted(subject) : undefined),
    serve: (subject) => {
      if (isCollection(subject)) return (serve.collection as NonNullable<ShareServe<A>['collection']>)(subject);
      return (serve.file as NonNullable<ShareServe<A>['file']>)(subject);
    },
    gone: () => new ApiError('FILE_NOT_FOUND'),
  };
}
