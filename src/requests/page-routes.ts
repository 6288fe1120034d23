// The request's page at {site_url}/r/<token>: a static shell that /assets/request.js (built from
// src/web/request-page.ts) fills from the public description (GET {uploadUrl minus /upload}),
// after asking for the password when the request has one. Nothing of the owner is on it.
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import type { AppEnv } from '../env';
import { ApiError } from '../errors';
import { origins } from '../http/request-deps';
import { recordVisits } from '../http/visit-log';
import { visitOf, visitorDeps } from '../http/visitor';
import { formatExactBytes } from '../lib/format';
import { TUS_CHUNK_BYTES, TUS_FROM_BYTES } from '../lib/web-settings';
import { isStandingRefusal } from '../moderation/standing';
import { layout, pageCsp, pageHeaders } from '../pages/layout';
import { reportFooter } from '../pages/report-page';
import { unavailableResponse } from '../pages/unavailable-page';
import { openForVisitor } from '../visitors/service';
import { requestDoor } from './access';
import { requestPageUrl, requestTusUrl, requestUploadUrl } from './records';
import { requestLogs } from './request-counter-client';
import { requestStatus } from './service';

export const REQUEST_PAGE_SCRIPT = '/assets/request.js';

/** The page talks to this origin's API, or PUBLIC_BASE_URL's when that is another origin. */
const requestPageCsp = (api: string, site: string) =>
  pageCsp({ connect: api === site ? "'self'" : `'self' ${api}`, worker: "'self'" });

const GONE_TEXT = {
  closed: 'This upload link has been closed by its owner.',
  expired: 'This upload link has expired.',
  full: 'This upload link has received all the files it takes.',
} as const;

function notTaking(title: string, text: string) {
  return layout({
    title: `edgeshare: ${title}`,
    body: html`<h1>${title}</h1><p>${text}</p><p>Ask the person who sent you the link for a new one.</p>`,
  });
}

/**
 * The page. A request with an exact size (MCP's create_upload_url) says it on the page itself,
 * and hands it to the script, which refuses any other size before a byte goes. `report`: the
 * page's own URL and ABUSE_CONTACT, for the footer.
 */
const requestPage = (
  uploadUrl: string,
  tusUrl: string,
  exactBytes: number | null,
  report: { pageUrl: string; contact?: string },
  e2e: boolean,
) =>
  layout({
    title: 'edgeshare: send files',
    scripts: [REQUEST_PAGE_SCRIPT],
    head: html`<meta name="description" content="Send files through this upload link.">`,
    body: html`<h1>Send files</h1>
<div id="request" data-upload-url="${uploadUrl}" data-tus-url="${tusUrl}" data-info-url="${uploadUrl.replace(/\/upload$/, '')}" data-tus-from="${TUS_FROM_BYTES}" data-tus-chunk="${TUS_CHUNK_BYTES}"${e2e ? html` data-e2e="1"` : ''}${exactBytes === null ? '' : html` data-exact-bytes="${exactBytes}"`} hidden></div>
<div id="banner" class="message" role="alert" hidden></div>
<noscript><p class="message error">This page needs JavaScript to send files. The upload link also works with curl: see the service's API documentation.</p></noscript>

<section id="password-section" class="panel" aria-labelledby="password-heading" hidden>
<h2 id="password-heading">This link has a password</h2>
<form id="password-form">
<input type="text" name="username" autocomplete="username" value="" hidden>
<div class="field"><label for="request-password">Password</label>
<input id="request-password" name="password" type="password" autocomplete="current-password" required></div>
<button type="submit">Continue</button>
</form>
</section>

<section id="send-section" class="panel" aria-labelledby="send-heading" hidden>
<h2 id="send-heading" class="visually-hidden">Your files</h2>
<p id="request-message" class="request-message"></p>
${
  e2e
    ? html`<p id="request-e2e" class="e2e-note"><strong>End-to-end encrypted:</strong> this page encrypts each file on your device before it leaves, to the key in this page’s address (after <code>#r=</code>), which never reaches the server. Only the link’s owner can open the files.</p>
<details class="e2e-cli"><summary>Send with the command line instead</summary><pre><code>age -r age1… -o file.age file
curl -T file.age "${uploadUrl}/file.age?encryption=age"</code></pre><p class="muted">age1… is the part of this page’s address after <code>#r=</code>. A link with a password takes it as <code>curl -u :PASSWORD</code>.</p></details>
`
    : ''
}${
  exactBytes === null
    ? ''
    : html`<p id="request-exact" class="request-exact">This link takes one file of exactly ${formatExactBytes(exactBytes)}: no more, no less.</p>
`
}<ul id="request-limits" class="request-limits"></ul>
<div id="drop-zone" class="drop-zone">
<p>Drop files here, or</p>
<label class="button" for="file-input">Choose files</label>
<input id="file-input" class="visually-hidden" type="file" multiple>
</div>
<ul id="uploads" class="uploads" aria-live="polite"></ul>
</section>

<section id="receipt-section" class="panel" aria-labelledby="receipt-heading" hidden>
<h2 id="receipt-heading">Receipt</h2>
<p class="hint">What you sent. Keep it: the owner of this link sees these files, and nobody else sees anything of them here.</p>
<table class="receipt cards"><thead><tr><th scope="col">File</th><th scope="col">Size</th><th scope="col">Type</th><th scope="col">SHA-256</th></tr></thead><tbody id="receipt"></tbody></table>
</section>`,
    footer: reportFooter(report.pageUrl, report.contact),
  });

/** The page is one visit of the request (src/requests/access.ts), served without its password: its script asks. */
async function page(c: Context<AppEnv>): Promise<Response> {
  const base = origins(c);
  const headers = pageHeaders(requestPageCsp(base.api, base.site));
  const deps = { ...visitorDeps(c), db: c.env.DB, counters: c.env.FILE_REQUESTS, config: c.get('config') };
  const door = requestDoor(deps, { taking: 'any', guarded: false }, async (request) => {
    const status = requestStatus(request);
    if (status !== 'open') return c.html(notTaking('Link not taking files', GONE_TEXT[status]), 410, headers);
    const report = { pageUrl: requestPageUrl(base, request.token), contact: c.get('config').ABUSE_CONTACT };
    const page = requestPage(
      requestUploadUrl(base, request.token),
      requestTusUrl(base, request.token),
      request.exact_bytes,
      report,
      request.e2e === 1,
    );
    return c.html(page, 200, headers);
  });
  try {
    const visited = await openForVisitor(deps, visitOf(c, 'page'), door);
    if (visited.open) return visited.answer;
  } catch (error) {
    // A suspended account's request: 451, with the operator's statement.
    if (isStandingRefusal(error)) return unavailableResponse(c, error);
    if (!(error instanceof ApiError)) throw error;
  }
  return c.html(notTaking('Link not found', 'There is no upload link at this address.'), 404, headers);
}

export function createRequestPageRouter() {
  const router = new Hono<AppEnv>();
  router.use('*', recordVisits(requestLogs));
  router.get('/:token', page);
  return router;
}
