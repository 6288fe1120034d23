// The pages for people that are not a share link: the web app at /, /keys (the
// operator's part only with ADMIN_TOKEN set) and /docs.
import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { DOCS_PAGE_CSP, docsPage } from './docs-page';
import { KEYS_PAGE_CSP, keysPage } from './keys-page';
import { pageHeaders } from './layout';
import { WEB_APP_CSP, webAppPage } from './web-app-page';

export function createPagesRouter() {
  const router = new Hono<AppEnv>();

  router.get('/', (c) => c.html(webAppPage, 200, pageHeaders(WEB_APP_CSP)));

  // Account holders manage their own keys here whatever the configuration; without a usable
  // ADMIN_TOKEN the operator's part says how to turn the admin API on.
  router.get('/keys', (c) => {
    const config = c.get('config');
    const admin = { on: Boolean(config.ADMIN_TOKEN), problem: config.adminTokenProblem };
    return c.html(keysPage(admin), 200, pageHeaders(KEYS_PAGE_CSP));
  });

  router.get('/docs', (c) => c.html(docsPage, 200, pageHeaders(DOCS_PAGE_CSP)));

  return router;
}
