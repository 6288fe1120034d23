// The pages for people that are not a share link: the web app at /, /keys (only with ADMIN_TOKEN
// set) and /docs.
import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { DOCS_PAGE_CSP, docsPage } from './docs-page';
import { KEYS_PAGE_CSP, keysOffPage, keysPage } from './keys-page';
import { pageHeaders } from './layout';
import { WEB_APP_CSP, webAppPage } from './web-app-page';

export function createPagesRouter() {
  const router = new Hono<AppEnv>();

  router.get('/', (c) => c.html(webAppPage, 200, pageHeaders(WEB_APP_CSP)));

  // Without a usable ADMIN_TOKEN there is no admin API: the page (404) says how to turn it on.
  router.get('/keys', (c) => {
    const config = c.get('config');
    if (!config.ADMIN_TOKEN) return c.html(keysOffPage(config.adminTokenProblem), 404, pageHeaders(KEYS_PAGE_CSP));
    return c.html(keysPage, 200, pageHeaders(KEYS_PAGE_CSP));
  });

  router.get('/docs', (c) => c.html(docsPage, 200, pageHeaders(DOCS_PAGE_CSP)));

  return router;
}
