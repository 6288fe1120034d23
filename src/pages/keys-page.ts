// /keys: the API keys page. A static shell; /assets/keys.js signs in with the admin token (kept in
// sessionStorage, never in a URL) and does everything else through /admin/keys with fetch.
import { html } from 'hono/html';
import { layout, pageCsp } from './layout';

/** The page only talks to this origin's admin API. */
export const KEYS_PAGE_CSP = pageCsp({ connect: "'self'" });

const limitFields = (prefix: string) => html`<div class="fields">
<div class="field"><label for="${prefix}-rate">Requests per window</label><input id="${prefix}-rate" name="rateLimitRequests" type="number" min="1" max="1000000" step="1" inputmode="numeric"></div>
<div class="field"><label for="${prefix}-window">Window (seconds)</label><input id="${prefix}-window" name="rateLimitWindowSeconds" type="number" min="1" max="86400" step="1" inputmode="numeric"></div>
<div class="field"><label for="${prefix}-quota">Storage quota (MiB)</label><input id="${prefix}-quota" name="storageQuotaMiB" type="number" min="0" step="any" inputmode="decimal"></div>
<div class="field"><label for="${prefix}-files">Most files</label><input id="${prefix}-files" name="maxFiles" type="number" min="0" step="1" inputmode="numeric"></div>
</div>`;

export const keysPage = layout({
  title: 'API keys · edgeshare',
  scripts: ['/assets/keys.js'],
  mainClass: 'wide',
  head: html`<meta name="robots" content="noindex">`,
  body: html`<h1>API keys</h1>
<p class="muted">Keys let clients use the API. Signing in takes the service's admin token: it stays in this browser tab only and is sent to nothing but this service's admin API.</p>
<div id="message" class="message" role="alert" hidden></div>

<section id="sign-in" class="panel" aria-labelledby="sign-in-heading">
<h2 id="sign-in-heading">Sign in</h2>
<form id="sign-in-form">
<input type="text" name="username" autocomplete="username" value="admin" hidden>
<div class="field"><label for="admin-token">Admin token</label>
<input id="admin-token" name="token" type="password" autocomplete="current-password" spellcheck="false" required></div>
<button type="submit">Sign in</button>
</form>
</section>

<div id="signed-in" hidden>
<div class="row"><p>Signed in with the admin token.</p><button id="sign-out" class="secondary" type="button">Sign out</button></div>

<section class="panel" aria-labelledby="create-heading">
<h2 id="create-heading">Create a key</h2>
<form id="create-form">
<div class="field"><label for="key-name">Name</label><input id="key-name" name="name" maxlength="100" required aria-describedby="key-name-hint"><span id="key-name-hint" class="hint">Who or what uses it, e.g. "mobile app".</span></div>
<p class="hint">Limits are optional: an empty field uses the service's default.</p>
${limitFields('create')}
<button type="submit">Create key</button>
</form>
<div id="new-key" class="message ok new-key" hidden>
<p><strong>Key created: <span id="new-key-name"></span>.</strong> Copy it now; it is shown only this once.</p>
<div class="row"><label for="new-key-value">New API key</label><input id="new-key-value" readonly spellcheck="false"><button id="copy-key" type="button">Copy</button><button id="hide-key" class="secondary" type="button">Done</button></div>
<p id="copy-status" role="status"></p>
</div>
</section>

<section aria-labelledby="keys-heading">
<div class="row"><h2 id="keys-heading">Keys</h2><button id="refresh" class="secondary" type="button">Refresh</button></div>
<div class="table-wrap">
<table>
<caption id="keys-caption">Loading…</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Limits</th><th scope="col">Actions</th></tr></thead>
<tbody id="keys-body"></tbody>
</table>
</div>
</section>
</div>
<template id="limits-template">
<details class="edit-limits"><summary>Change limits</summary>
<form class="limits-form">
${limitFields('edit')}
<button type="submit">Save limits</button>
</form>
</details>
</template>`,
});

/**
 * /keys while the admin API is off: how to turn it on, and why it is off when ADMIN_TOKEN is
 * set but unusable. Never shows the token.
 */
export const keysOffPage = (problem: string | undefined) =>
  layout({
    title: 'API keys are turned off · edgeshare',
    head: html`<meta name="robots" content="noindex">`,
    body: html`<h1>API keys are turned off</h1>
${
  problem
    ? html`<p class="message" role="alert">${problem}, so the admin API and this page are off.</p>`
    : html`<p>This service has no admin token, so its admin API and this page are off.</p>`
}
<p>To manage keys here, set the <code>ADMIN_TOKEN</code> secret to a random value of at least 32 characters, for example:</p>
<pre><code>openssl rand -base64 32 | npx wrangler secret put ADMIN_TOKEN</code></pre>
<p>For <code>npm run dev</code>, put <code>ADMIN_TOKEN=…</code> in <code>.dev.vars</code> and restart. Without it, keys are managed with <code>npm run keys</code> (see the README).</p>`,
  });
