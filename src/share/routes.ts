import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { archiveVersion } from '../collections/archive';
import { type LinkServeDeps, serveCollectionArchive, serveCollectionMember } from '../collections/link-serve';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { shareUrl } from '../files/records';
import { events, origins } from '../http/request-deps';
import { recordVisits } from '../http/visit-log';
import { basicOf, grantOf, visitOf, visitorDeps } from '../http/visitor';
import type { AccessDeps, Shared } from '../links/access';
import { linkLogs } from '../links/link-counter-client';
import { serveShared } from '../links/serve';
import { isStandingRefusal } from '../moderation/standing';
import { pageHeaders } from '../pages/layout';
import { unavailableResponse } from '../pages/unavailable-page';
import { grantCookie, grantValue } from '../visitors/grant';
import { openForVisitor, type VisitKind } from '../visitors/service';
import { isCollection, type SharedCollection, type ShareServe, type ShareSubject, shareDoor } from './door';
import {
  collectionPage,
  E2E_PAGE_CSP,
  LOCKED_PAGE_CSP,
  lockedPage,
  NOT_FOUND_CSP,
  notFoundPage,
  SHARE_PAGE_CSP,
  sharePage,
  tooManyPage,
} from './page';
import { asPreview, previewKind, readTextPreview } from './preview';

const NOT_FOUND_HEADERS = pageHeaders(NOT_FOUND_CSP);

const accessDeps = (c: Context<AppEnv>): AccessDeps & LinkServeDeps => ({
  db: c.env.DB,
  bucket: c.env.FILES,
  counters: c.env.LINK_COUNTERS,
  events: events(c),
  waitUntil: (promise) => c.executionCtx.waitUntil(promise),
  subrequestBudget: c.get('config').SUBREQUEST_BUDGET,
  scan: c.get('config'),
});

/** A collection page reads the start of at most this many text members (one storage read each). */
const TEXT_PREVIEWS_PER_PAGE = 10;

/** The footer of a locked page: "Report this link" with the link's own URL, and ABUSE_CONTACT. */
const reportOf = (c: Context<AppEnv>) => ({
  pageUrl: shareUrl(origins(c), c.req.param('token') ?? ''),
  contact: c.get('config').ABUSE_CONTACT,
});

const wantsHtml = (c: Context<AppEnv>) => (c.req.header('accept') ?? '').includes('text/html');

const isCode = (error: unknown, code: ApiError['code']): error is ApiError =>
  error instanceof ApiError && error.code === code;

const needsPassword = () =>
  new ApiError('UNAUTHORIZED', 'This link needs its password: HTTP Basic with an empty user name', {
    headers: { 'WWW-Authenticate': 'Basic realm="edgeshare share link", charset="UTF-8"' },
  });

/**
 * The password form in place of a made link's page: before the password nothing of what the link
 * shares shows, not even in the page's head, beyond whether it is a file or a collection. 401
 * after a wrong password (the form's, or HTTP Basic's), 200 when none was given.
 */
const locked = (c: Context<AppEnv>, subject: ShareSubject, wrong: boolean) =>
  c.html(
    lockedPage({ wrong, kind: isCollection(subject) ? 'collection' : 'file', report: reportOf(c) }),
    wrong ? 401 : 200,
    pageHeaders(LOCKED_PAGE_CSP),
  );

/** A page's refusals as pages: a dead link's 404, too many wrong passwords' 429. */
function pageRefusal(c: Context<AppEnv>, error: unknown) {
  if (isCode(error, 'FILE_NOT_FOUND')) return c.html(notFoundPage, 404, NOT_FOUND_HEADERS);
  if (isStandingRefusal(error)) return unavailableResponse(c, error);
  if (!isCode(error, 'RATE_LIMITED')) throw error;
  return c.html(tooManyPage, 429, { ...pageHeaders(NOT_FOUND_CSP), ...error.headers });
}

/**
 * Share links need no key. The default link (a file's share_token, governed by isPublic) and
 * made links (src/links/, 43-character tokens) share every path; a private, expired, deleted,
 * revoked, exhausted or unknown token all look the same. Every path is one openForVisitor call
 * through the share door (src/links/access.ts); the routes only shape its answers.
 */
export function createShareRouter() {
  const router = new Hono<AppEnv>();
  // Every visit of a share URL goes to its link's access log once answered.
  router.use('*', recordVisits(linkLogs));

  // `preview` false: a capped link, whose every byte served counts against its cap, so the page
  // neither shows the file's start nor makes the browser (or a chat app's unfurler) fetch it.
  const page = async (c: Context<AppEnv>, { file, link, header }: Shared) => {
    const preview = link === null || link.max_downloads === null;
    // An encrypted file's download is the way in's header (a link's, or the owner's) and the payload.
    const ageHeader = link ? header : file.e2e_header;
    const e2e = file.encryption
      ? {
          size: file.size + (ageHeader?.length ?? 0),
          password: link?.password_hash != null,
          header: ageHeader ?? null,
          meta: file.meta ?? null,
        }
      : undefined;
    const text =
      preview && previewKind(file.mime_type) === 'text' && c.req.method === 'GET'
        ? await readTextPreview({ bucket: c.env.FILES, db: c.env.DB }, file)
        : undefined;
    // Share links point at SITE_URL when it is set; the page's absolute URLs (Open Graph) agree.
    const origin = c.get('config').SITE_URL ?? new URL(c.req.url).origin;
    const shareUrl = `${origin}/share/${c.req.param('token')}`;
    const contact = c.get('config').ABUSE_CONTACT;
    const input = { row: file, origin, shareUrl, text, preview, contact, e2e };
    return c.html(sharePage(input), 200, pageHeaders(e2e ? E2E_PAGE_CSP : SHARE_PAGE_CSP));
  };

  // A collection's page: every live member, "Download all" with the ZIP's exact length. A capped
  // link shows no previews, as a capped file link does (each preview would spend its budget).
  const collection = async (c: Context<AppEnv>, { link, collection, archive }: SharedCollection) => {
    const preview = link.max_downloads === null;
    const members = archive.source.members;
    const texts = new Map<string, { text: string; truncated: boolean }>();
    if (preview && c.req.method === 'GET') {
      const store = { bucket: c.env.FILES, db: c.env.DB };
      const textual = members.filter((member) => previewKind(member.mime_type) === 'text');
      await Promise.all(
        textual.slice(0, TEXT_PREVIEWS_PER_PAGE).map(async (member) => {
          const text = await readTextPreview(store, member);
          if (text) texts.set(member.id, text);
        }),
      );
    }
    const origin = c.get('config').SITE_URL ?? new URL(c.req.url).origin;
    const shareUrl = `${origin}/share/${c.req.param('token')}`;
    const body = collectionPage({
      name: collection.name,
      note: collection.note,
      members: members.map((member) => ({ ...member, encrypted: member.encryption !== null })),
      archiveLength: archive.length,
      archiveVersion: archiveVersion(archive.etag),
      shareUrl,
      origin,
      texts,
      preview,
      contact: c.get('config').ABUSE_CONTACT,
      password: link.password_hash !== null,
    });
    const encrypted = members.some((member) => member.encryption !== null);
    return c.html(body, 200, pageHeaders(encrypted ? E2E_PAGE_CSP : SHARE_PAGE_CSP));
  };

  // The page takes the password as the downloads do (a grant, or HTTP Basic with an empty user
  // name); a wrong Basic password is answered as the form's wrong one is, and counted the same.
  router.get('/:token', async (c) => {
    const door = shareDoor(accessDeps(c), c.get('config'), 'page', {
      file: (shared) => page(c, shared),
      collection: (shared) => collection(c, shared),
    });
    try {
      const visit = visitOf(c, 'page', { password: basicOf(c), grant: grantOf(c) });
      const visited = await openForVisitor(visitorDeps(c), visit, door);
      if (!visited.open) return locked(c, visited.subject, visited.access === 'wrong');
      return visited.answer;
    } catch (error) {
      return pageRefusal(c, error);
    }
  });

  // The password form of a made link: the right password gives a grant cookie for this link's
  // path only and goes back to the page (303, so a reload does not post again).
  router.post(
    '/:token',
    bodyLimit({ maxSize: 4096, onError: (c) => c.html(notFoundPage, 404, NOT_FOUND_HEADERS) }),
    async (c) => {
      const path = `/share/${c.req.param('token')}`;
      // Nothing here may be cached: the answer depends on the password and sets the grant.
      c.header('Cache-Control', 'private, no-store');
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      const password = typeof form.password === 'string' ? form.password : '';
      // A link without a password has nothing to grant: back to its page.
      const grant = async ({ link }: { link: Shared['link'] }) =>
        link?.password_hash ? grantValue(link.password_hash, link.id) : undefined;
      const door = shareDoor(accessDeps(c), c.get('config'), 'password', { file: grant, collection: grant });
      try {
        const visited = await openForVisitor(visitorDeps(c), visitOf(c, 'password', { password }), door);
        if (!visited.open) return locked(c, visited.subject, true);
        if (visited.answer) {
          const secure = new URL(c.req.url).protocol === 'https:';
          c.header('Set-Cookie', grantCookie(visited.answer, path, secure));
        }
        return c.redirect(path, 303);
      } catch (error) {
        return pageRefusal(c, error);
      }
    },
  );

  // The Download button: counts. The page's preview: the same bytes, never counted, and inline
  // for the types the page previews (see preview.ts). Both throttled per client address, default
  // links as made ones. Scripts send a made link's password as HTTP Basic; browsers hold a grant.
  // A collection link's /download is its ZIP (logged as `archive`); it has no /view of its own.
  const fileServe = (c: Context<AppEnv>, view: boolean): ShareServe<Response>['file'] => {
    const deps = accessDeps(c);
    return (shared) => serveShared(deps, c.req.raw, shared, view);
  };
  const archiveServe = (c: Context<AppEnv>): ShareServe<Response>['collection'] => {
    const deps = accessDeps(c);
    return (shared) => serveCollectionArchive(deps, c.req.raw, shared);
  };
  const memberServe = (c: Context<AppEnv>, view: boolean): ShareServe<Response>['collection'] => {
    const deps = accessDeps(c);
    return (shared) => serveCollectionMember(deps, c.req.raw, shared, c.req.param('fileId') ?? '', view);
  };

  const routes = [
    [
      '/:token/download',
      'download',
      (c) => ({ file: fileServe(c, false), collection: archiveServe(c), collectionKind: 'archive' }),
    ],
    ['/:token/view', 'preview', (c) => ({ file: fileServe(c, true) })],
    ['/:token/archive.zip', 'archive', (c) => ({ collection: archiveServe(c) })],
    ['/:token/files/:fileId', 'download', (c) => ({ collection: memberServe(c, false) })],
    ['/:token/files/:fileId/view', 'preview', (c) => ({ collection: memberServe(c, true) })],
  ] as const satisfies readonly (readonly [string, VisitKind, (c: Context<AppEnv>) => ShareServe<Response>])[];

  for (const [path, kind, serve] of routes) {
    router.get(path, async (c) => {
      const door = shareDoor(accessDeps(c), c.get('config'), kind, serve(c));
      try {
        const visit = visitOf(c, kind, { password: basicOf(c), grant: grantOf(c) });
        const visited = await openForVisitor(visitorDeps(c), visit, door);
        if (!visited.open) {
          if (wantsHtml(c) && visited.access === 'locked') return c.redirect(`/share/${visit.token}`, 303);
          throw needsPassword();
        }
        const response = visited.answer;
        if (kind !== 'preview') return response;
        return asPreview(response, (response.headers.get('content-type') ?? '').split(';')[0] ?? '');
      } catch (error) {
        if (isCode(error, 'FILE_NOT_FOUND') && wantsHtml(c)) return c.html(notFoundPage, 404, NOT_FOUND_HEADERS);
        if (isStandingRefusal(error) && wantsHtml(c)) return unavailableResponse(c, error);
        throw error;
      }
    });
  }

  return router;
}
