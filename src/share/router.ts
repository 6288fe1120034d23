import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { downloadSharedFile, findShared } from '../files/service';
import { events } from '../http/request-deps';
import { pageHeaders } from '../pages/layout';
import { NOT_FOUND_CSP, notFoundPage, SHARE_PAGE_CSP, sharePage } from './page';
import { asPreview, previewKind, readTextPreview } from './preview';

const NOT_FOUND_HEADERS = pageHeaders(NOT_FOUND_CSP);

/** Share links need no key. A private, expired, deleted or unknown token all look the same. */
export function createShareRouter() {
  const router = new Hono<AppEnv>();

  router.get('/:token', async (c) => {
    const storage = { bucket: c.env.FILES, db: c.env.DB };
    const row = await findShared(storage, c.req.param('token'));
    if (!row) return c.html(notFoundPage, 404, NOT_FOUND_HEADERS);
    const text =
      previewKind(row.mime_type) === 'text' && c.req.method === 'GET'
        ? await readTextPreview(c.env.FILES, row.r2_key, row.size, row.mime_type)
        : undefined;
    // Share links point at SITE_URL when it is set; the page's absolute URLs (Open Graph) agree.
    const origin = c.get('config').SITE_URL ?? new URL(c.req.url).origin;
    const page = sharePage({ row, origin, shareUrl: `${origin}/share/${row.share_token}`, text });
    return c.html(page, 200, pageHeaders(SHARE_PAGE_CSP));
  });

  // The Download button: counts. The page's preview: the same bytes, never counted, and inline
  // for the types the page previews (see preview.ts).
  for (const [path, view] of [
    ['/:token/download', false],
    ['/:token/view', true],
  ] as const) {
    router.get(path, async (c) => {
      try {
        const storage = { bucket: c.env.FILES, db: c.env.DB, events: events(c) };
        const response = await downloadSharedFile(storage, c.req.raw, c.req.param('token'), view);
        return view ? asPreview(response, (response.headers.get('content-type') ?? '').split(';')[0] ?? '') : response;
      } catch (error) {
        const wantsHtml = (c.req.header('accept') ?? '').includes('text/html');
        if (error instanceof ApiError && error.code === 'FILE_NOT_FOUND' && wantsHtml) {
          return c.html(notFoundPage, 404, NOT_FOUND_HEADERS);
        }
        throw error;
      }
    });
  }

  return router;
}
