import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { findShared } from '../files/service';
import { events } from '../http/request-deps';
import { basicPassword } from '../lib/basic-auth';
import { clientAddress, throttleAddress } from '../limiter/auth-guard-client';
import {
  type AccessDeps,
  checkAccess,
  findOpenable,
  isLinkToken,
  openLink,
  serveDefaultLink,
  serveThroughLink,
} from '../links/access';
import { grantCookie, grantValue, readGrant } from '../links/grant';
import { isExhausted } from '../links/link-counter-client';
import { pageHeaders } from '../pages/layout';
import type { FileRow } from '../storage/files-repo';
import { linkDownloadsPerAddress } from '../visitors/throttle';
import {
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

const accessDeps = (c: Context<AppEnv>): AccessDeps => ({
  db: c.env.DB,
  bucket: c.env.FILES,
  counters: c.env.LINK_COUNTERS,
  guard: c.env.AUTH_GUARD,
  events: events(c),
  waitUntil: (promise) => c.executionCtx.waitUntil(promise),
});

const wantsHtml = (c: Context<AppEnv>) => (c.req.header('accept') ?? '').includes('text/html');

const needsPassword = () =>
  new ApiError('UNAUTHORIZED', 'This link needs its password: HTTP Basic with an empty user name', {
    headers: { 'WWW-Authenticate': 'Basic realm="edgeshare share link", charset="UTF-8"' },
  });

/**
 * Share links need no key. The default link (a file's share_token, governed by isPublic) and
 * made links (src/links/, 43-character tokens) share every path; a private, expired, deleted,
 * revoked, exhausted or unknown token all look the same.
 */
export function createShareRouter() {
  const router = new Hono<AppEnv>();

  // `preview` false: a capped link, whose every byte served counts against its cap, so the page
  // neither shows the file's start nor makes the browser (or a chat app's unfurler) fetch it.
  const page = async (c: Context<AppEnv>, row: FileRow, token: string, preview = true) => {
    const text =
      preview && previewKind(row.mime_type) === 'text' && c.req.method === 'GET'
        ? await readTextPreview({ bucket: c.env.FILES, db: c.env.DB }, row)
        : undefined;
    // Share links point at SITE_URL when it is set; the page's absolute URLs (Open Graph) agree.
    const origin = c.get('config').SITE_URL ?? new URL(c.req.url).origin;
    return c.html(
      sharePage({ row, origin, shareUrl: `${origin}/share/${token}`, text, preview }),
      200,
      pageHeaders(SHARE_PAGE_CSP),
    );
  };

  router.get('/:token', async (c) => {
    const token = c.req.param('token');
    if (isLinkToken(token)) {
      const deps = accessDeps(c);
      const shared = await openLink(deps, token);
      if (!shared) return c.html(notFoundPage, 404, NOT_FOUND_HEADERS);
      const access = await checkAccess(deps, shared, {
        grant: readGrant(c.req.header('cookie')),
        address: clientAddress(c.req.raw.headers),
      });
      // Before the password: nothing of the file, not even in the page's head.
      if (access !== 'open') return c.html(lockedPage({ wrong: false }), 200, pageHeaders(LOCKED_PAGE_CSP));
      return page(c, shared.file, token, shared.link.max_downloads === null);
    }
    const row = await findShared({ bucket: c.env.FILES, db: c.env.DB }, token);
    if (!row) return c.html(notFoundPage, 404, NOT_FOUND_HEADERS);
    return page(c, row, token);
  });

  // The password form of a made link: the right password gives a grant cookie for this link's
  // path only and goes back to the page (303, so a reload does not post again).
  router.post(
    '/:token',
    bodyLimit({ maxSize: 4096, onError: (c) => c.html(notFoundPage, 404, NOT_FOUND_HEADERS) }),
    async (c) => {
      const token = c.req.param('token');
      const deps = accessDeps(c);
      const shared = isLinkToken(token) ? await openLink(deps, token) : null;
      if (!shared) return c.html(notFoundPage, 404, NOT_FOUND_HEADERS);
      const path = `/share/${token}`;
      // Nothing here may be cached: the answer depends on the password and sets the grant.
      c.header('Cache-Control', 'private, no-store');
      if (!shared.link.password_hash) return c.redirect(path, 303);
      const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
      const password = typeof form.password === 'string' ? form.password : '';
      try {
        const access = await checkAccess(deps, shared, { password, address: clientAddress(c.req.raw.headers) });
        if (access !== 'open') return c.html(lockedPage({ wrong: true }), 401, pageHeaders(LOCKED_PAGE_CSP));
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'RATE_LIMITED') throw error;
        return c.html(tooManyPage, 429, { ...pageHeaders(NOT_FOUND_CSP), ...error.headers });
      }
      const secure = new URL(c.req.url).protocol === 'https:';
      c.header('Set-Cookie', grantCookie(await grantValue(shared.link.password_hash, shared.link.id), path, secure));
      return c.redirect(path, 303);
    },
  );

  // The Download button: counts. The page's preview: the same bytes, never counted, and inline
  // for the types the page previews (see preview.ts). Both throttled per client address, default
  // links as made ones.
  for (const [path, view] of [
    ['/:token/download', false],
    ['/:token/view', true],
  ] as const) {
    router.get(path, async (c) => {
      const token = c.req.param('token');
      try {
        const deps = accessDeps(c);
        const { scope, ...allowance } = linkDownloadsPerAddress(c.get('config'));
        await throttleAddress(deps.guard, clientAddress(c.req.raw.headers), scope, allowance);
        const response = isLinkToken(token)
          ? await serveLink(c, deps, token, view)
          : await serveDefaultLink(deps, c.req.raw, token, view);
        return view ? asPreview(response, (response.headers.get('content-type') ?? '').split(';')[0] ?? '') : response;
      } catch (error) {
        if (error instanceof ApiError && error.code === 'FILE_NOT_FOUND' && wantsHtml(c)) {
          return c.html(notFoundPage, 404, NOT_FOUND_HEADERS);
        }
        throw error;
      }
    });
  }

  return router;
}

/** A download or preview through a made link: password or grant, then served within its cap. */
async function serveLink(c: Context<AppEnv>, deps: AccessDeps, token: string, view: boolean): Promise<Response> {
  const address = clientAddress(c.req.raw.headers);
  const shared = await findOpenable(deps, token);
  if (!shared) throw new ApiError('FILE_NOT_FOUND');
  const access = await checkAccess(deps, shared, {
    password: basicPassword(c.req.header('authorization')),
    grant: readGrant(c.req.header('cookie')),
    address,
  });
  if (access !== 'open') {
    // An exhausted link is 404 to everyone, with or without its password.
    if (await isExhausted(deps.counters, shared.link)) throw new ApiError('FILE_NOT_FOUND');
    if (wantsHtml(c) && access === 'locked') return c.redirect(`/share/${token}`, 303);
    throw needsPassword();
  }
  return serveThroughLink(deps, c.req.raw, shared, view);
}
