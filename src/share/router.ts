import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { downloadSharedFile, findShared } from '../files/service';
import { notFoundPage, sharePage } from './page';

const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'private, no-store',
};
const TEXT_PREVIEW_BYTES = 4096;

/** Share links need no key. A private, expired, deleted or unknown token all look the same. */
export function createShareRouter() {
  const router = new Hono<AppEnv>();

  router.get('/:token', async (c) => {
    const storage = { bucket: c.env.FILES, db: c.env.DB };
    const row = await findShared(storage, c.req.param('token'));
    if (!row) return c.html(notFoundPage, 404, PAGE_HEADERS);
    let text: string | undefined;
    if (row.mime_type === 'text/plain' && c.req.method === 'GET') {
      const object = await c.env.FILES.get(row.r2_key, { range: { offset: 0, length: TEXT_PREVIEW_BYTES } });
      if (object) text = await object.text();
    }
    const base = `/share/${row.share_token}`;
    return c.html(sharePage(row, { download: `${base}/download`, view: `${base}/view` }, text), 200, PAGE_HEADERS);
  });

  // The Download button: counts. The page's preview: the same bytes and headers, never counted.
  for (const [path, view] of [
    ['/:token/download', false],
    ['/:token/view', true],
  ] as const) {
    router.get(path, async (c) => {
      try {
        return await downloadSharedFile({ bucket: c.env.FILES, db: c.env.DB }, c.req.raw, c.req.param('token'), view);
      } catch (error) {
        const wantsHtml = (c.req.header('accept') ?? '').includes('text/html');
        if (error instanceof ApiError && error.code === 'FILE_NOT_FOUND' && wantsHtml) {
          return c.html(notFoundPage, 404, PAGE_HEADERS);
        }
        throw error;
      }
    });
  }

  return router;
}
