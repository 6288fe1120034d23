// /docs: the interactive API reference. Swagger UI, served from this Worker's static assets
// (copied from swagger-ui-dist by scripts/assets.mjs), renders /api/v{1,2}/openapi.json; its
// "Try it out" requests go to the documents' server, which is this origin.
import { html } from 'hono/html';
import { layout, pageCsp } from './layout';

/**
 * Swagger UI's stylesheet draws its icons as data: SVGs, and it fetches the documents and the
 * "Try it out" requests from this origin. Nothing else, and nothing from another host.
 */
export const DOCS_PAGE_CSP = pageCsp({ img: "'self' data:", connect: "'self'" });

const VENDOR = '/assets/vendor/swagger-ui';

export const docsPage = layout({
  title: 'API reference · edgeshare',
  mainClass: 'wide',
  head: html`<link rel="stylesheet" href="${VENDOR}/swagger-ui.css">`,
  scripts: [`${VENDOR}/swagger-ui-bundle.js`, '/assets/docs.js'],
  body: html`<h1>API reference</h1>
<p class="muted">Every <code>/api</code> request needs an API key: press <strong>Authorize</strong> and paste one, then <strong>Try it out</strong> on any operation. Requests go to this service.</p>
<div class="row">
<label for="api-version">API version</label>
<select id="api-version">
<option value="/api/v2/openapi.json">v2 (current)</option>
<option value="/api/v1/openapi.json">v1</option>
</select>
<a href="/api/v2/openapi.json" id="openapi-link">OpenAPI document</a>
</div>`,
  after: html`<div id="swagger-ui" class="docs-ui" aria-label="API operations"><p>Loading the reference…</p></div>`,
});
