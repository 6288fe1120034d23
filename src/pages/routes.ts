// The pages for people that are not a share link: the web app at /, /keys (the
// operator's part only with ADMIN_TOKEN set), /docs and the report form at /report.
import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { DOCS_PAGE_CSP, docsPage } from './docs-page';
import { KEYS_PAGE_CSP, keysPage } from './keys-page';
import { pageHeaders } from './layout';
import { reportPage, reportPageCsp } from './report-page';
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

  // The report form, with the reported page's URL filled in (every share, collection, file-request
  // and 451 page links here); Turnstile's widget when both its keys are set.
  router.get('/report', (c) => {
    const config = c.get('config');
    const url = c.req.query('url') ?? '';
    const siteKey = config.TURNSTILE_SECRET_KEY ? config.TURNSTILE_SITE_KEY : undefined;
    const page = reportPage({ url: url.length <= 2000 ? url : '', siteKey, contact: config.ABUSE_CONTACT });
    return c.html(page, 200, pageHeaders(reportPageCsp(siteKey !== undefined)));
  });

  return router;
}
