// /keys: the API keys page. A static shell with two modes. An account holder signs in with an API
// key that has keys:write (/assets/account-keys.js, through /api/v2/keys); the operator signs in
// with the admin token (/assets/keys.js, through /admin/keys) and reviews abuse reports
// (/assets/reports.js, through /admin/reports). Either secret is kept in sessionStorage, never in
// a URL.
import { html } from 'hono/html';
import { SCOPES } from '../limiter/scopes';
import { layout, pageCsp } from './layout';

/** The page only talks to this origin's admin API. */
export const KEYS_PAGE_CSP = pageCsp({ connect: "'self'" });

const limitFields = (prefix: string) => html`<div class="fields">
<div class="field"><label for="${prefix}-rate">Requests per window</label><input id="${prefix}-rate" name="rateLimitRequests" type="number" min="1" max="1000000" step="1" inputmode="numeric"></div>
<div class="field"><label for="${prefix}-window">Window (seconds)</label><input id="${prefix}-window" name="rateLimitWindowSeconds" type="number" min="1" max="86400" step="1" inputmode="numeric"></div>
<div class="field"><label for="${prefix}-quota">Storage quota (MiB)</label><input id="${prefix}-quota" name="storageQuotaMiB" type="number" min="0" step="any" inputmode="decimal"></div>
<div class="field"><label for="${prefix}-files">Most files</label><input id="${prefix}-files" name="maxFiles" type="number" min="0" step="1" inputmode="numeric"></div>
</div>`;

const accountSection = html`<div id="message" class="message" role="alert" hidden></div>

<section id="account-sign-in" class="panel" aria-labelledby="account-sign-in-heading">
<h2 id="account-sign-in-heading">Your account’s keys</h2>
<p class="muted">Open your account with one of its API keys that has the keys:write scope. The key stays in this browser tab only.</p>
<form id="account-sign-in-form">
<div class="field"><label for="account-key">Your API key</label>
<input id="account-key" name="key" type="password" autocomplete="off" spellcheck="false" required pattern="esk_.*"></div>
<button type="submit">Open my keys</button>
</form>
</section>

<div id="account-signed-in" hidden>
<div class="row"><p>Managing the keys of your account.</p><button id="account-close" class="secondary" type="button">Close</button></div>
<section class="panel" aria-labelledby="account-create-heading">
<h2 id="account-create-heading">Make a key</h2>
<form id="account-create-form">
<div class="field"><label for="account-key-name">Key name</label><input id="account-key-name" name="name" maxlength="100" required></div>
<fieldset class="scopes"><legend>Scopes</legend>
${SCOPES.map((scope) => html`<label><input type="checkbox" name="scope" value="${scope}" checked> ${scope}</label>`)}
</fieldset>
<div class="field"><label for="account-key-expiry">Expires (optional)</label><input id="account-key-expiry" name="expiresAt" type="datetime-local"></div>
<button type="submit">Make key</button>
</form>
<div id="account-new-key" class="message ok new-key" hidden>
<p><strong>Key made.</strong> Copy it now; it is shown only this once.</p>
<div class="row"><label for="account-new-key-value">The new key</label><input id="account-new-key-value" readonly spellcheck="false"><button id="account-copy-key" type="button">Copy key</button></div>
</div>
</section>
<section aria-labelledby="account-keys-heading">
<h2 id="account-keys-heading">The account’s keys</h2>
<div class="table-wrap">
<table class="cards">
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scopes</th><th scope="col">Status</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead>
<tbody id="account-keys-body"></tbody>
</table>
</div>
</section>
<section aria-labelledby="account-grants-heading">
<h2 id="account-grants-heading">Connected apps (OAuth)</h2>
<p class="muted">MCP clients let in on the authorize page. Each acts as the key it was granted with, with only the scopes granted; revoked, its tokens are refused from their next request.</p>
<div class="table-wrap">
<table class="cards">
<caption id="account-grants-caption">No app is connected.</caption>
<thead><tr><th scope="col">App</th><th scope="col">Scopes</th><th scope="col">Connected</th><th scope="col">Actions</th></tr></thead>
<tbody id="account-grants-body"></tbody>
</table>
</div>
</section>
</div>

`;

const operatorSection = html`<h2>Operator</h2>
<p class="muted">Keys let clients use the API. Signing in takes the service's admin token: it stays in this browser tab only and is sent to nothing but this service's admin API.</p>

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
<table class="cards">
<caption id="keys-caption">Loading…</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Limits</th><th scope="col">Actions</th></tr></thead>
<tbody id="keys-body"></tbody>
</table>
</div>
</section>

<section aria-labelledby="reports-heading">
<div class="row"><h2 id="reports-heading">Reports</h2><button id="reports-refresh" class="secondary" type="button">Refresh reports</button></div>
<p class="muted">What visitors reported (the form at /report). Decide each with a statement: the owner gets it, and visitors see it on the 451. Dismiss lifts a hold the reports put on their target; any other decision keeps it.</p>
<p id="reports-caption" class="muted" role="status">Loading…</p>
<ul id="reports-list" class="reports" aria-labelledby="reports-heading"></ul>
<h3 id="decided-heading">Recently decided</h3>
<ul id="decided-list" class="reports" aria-labelledby="decided-heading"></ul>
</section>
</div>
<template id="limits-template">
<details class="edit-limits"><summary>Change limits</summary>
<form class="limits-form">
${limitFields('edit')}
<button type="submit">Save limits</button>
</form>
</details>
</template>`;

/** The operator's part while the admin API is off: how to turn it on. Never shows the token. */
const operatorOff = (problem: string | undefined) => html`<h2>Operator</h2>
${
  problem
    ? html`<p class="message" role="alert">${problem}, so the admin API and the operator’s part of this page are off.</p>`
    : html`<p>This service has no admin token, so its admin API and the operator’s part of this page are off.</p>`
}
<p>To manage every account's keys here, set the <code>ADMIN_TOKEN</code> secret to a random value of at least 32 characters, for example:</p>
<pre><code>openssl rand -base64 32 | npx wrangler secret put ADMIN_TOKEN</code></pre>
<p>For <code>npm run dev</code>, put <code>ADMIN_TOKEN=…</code> in <code>.dev.vars</code> and restart. Without it, keys are managed with <code>npm run keys</code> (see the README).</p>`;

/**
 * The page. Account holders can always manage their own keys here; the operator's part (every
 * account, through /admin) is there only with a usable ADMIN_TOKEN, and otherwise says how to
 * turn it on.
 */
export const keysPage = (admin: { on: boolean; problem?: string }) =>
  layout({
    title: 'API keys · edgeshare',
    // format.js first: both scripts write sizes and times with it (deferred scripts run in order).
    scripts: admin.on
      ? ['/assets/format.js', '/assets/keys.js', '/assets/reports.js', '/assets/account-keys.js']
      : ['/assets/format.js', '/assets/account-keys.js'],
    mainClass: 'wide',
    head: html`<meta name="robots" content="noindex">`,
    body: html`<h1>API keys</h1>
${accountSection}
${admin.on ? operatorSection : operatorOff(admin.problem)}`,
  });
