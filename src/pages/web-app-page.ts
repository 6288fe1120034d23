// `/`: the web app. A static shell; /assets/app.js (built from src/web/ by scripts/assets.mjs)
// takes the API key (kept in the browser, never in a URL) and does everything through the public
// API on this origin with the typed client.
import { html } from 'hono/html';
import { EVENT_TYPES } from '../events/event-types';
import { DEFAULT_REQUEST_EXPIRY_SECONDS, EXPIRY_CHOICES, TUS_CHUNK_BYTES, TUS_FROM_BYTES } from '../lib/web-settings';
import { layout, pageCsp } from './layout';

/**
 * The app talks only to this origin's API (fetch, XMLHttpRequest, tus); its Web Worker and the
 * hidden frame that saves a decrypted download through the Service Worker are this origin's too.
 */
export const WEB_APP_CSP = pageCsp({ connect: "'self'", worker: "'self'", frame: "'self'" });

export const WEB_APP_SCRIPT = '/assets/app.js';

const MiB = 1024 * 1024;

/** The app's views, in the navigation's order: `#<id>` opens one (src/web/views.ts). */
const VIEWS = [
  { id: 'files', label: 'Files' },
  { id: 'collections', label: 'Collections' },
  { id: 'requests', label: 'File requests' },
  { id: 'webhooks', label: 'Webhooks' },
];

export const webAppPage = layout({
  title: 'edgeshare: share files',
  scripts: [WEB_APP_SCRIPT],
  mainClass: 'wide',
  head: html`<meta name="description" content="Upload files and share links to them.">`,
  body: html`<h1>Share files</h1>
<div id="banner" class="message" role="alert" hidden></div>
<p id="live-status" class="visually-hidden" role="status"></p>

<section id="key-section" class="panel" aria-labelledby="key-heading">
<h2 id="key-heading">Your API key</h2>
<form id="key-form">
<input type="text" name="username" autocomplete="username" value="edgeshare API key" hidden>
<div class="field"><label for="api-key">API key</label>
<input id="api-key" name="key" type="password" autocomplete="current-password" spellcheck="false" required aria-describedby="api-key-hint">
<span id="api-key-hint" class="hint">It starts with <code>esk_</code>; the service's admin gives it to you.</span></div>
<div class="check"><input id="remember-key" type="checkbox"><label for="remember-key">Remember the key in this browser after the tab closes</label></div>
<p class="hint">The key stays in this browser: in this tab's session storage, or in local storage if you tick the box. It is sent only to this service's API, in a request header, never in an address. “Forget key” removes it.</p>
<button id="use-key" type="submit">Use key</button>
</form>
<noscript><p class="message error">The web app needs JavaScript. The <a href="/docs">API</a> works without it.</p></noscript>
</section>

<div id="app" hidden>
<div class="row key-status"><p>Using the key <code id="key-prefix"></code>, kept <span id="key-place"></span>.</p><span class="row compact"><button id="refresh" class="secondary" type="button">Refresh</button><button id="forget-key" class="secondary" type="button">Forget key</button></span></div>

<nav class="views" aria-label="Views">
<ul>
${VIEWS.map((view) => html`<li><a id="nav-${view.id}" href="#${view.id}">${view.label}</a></li>`)}
</ul>
</nav>

<div id="view-files" class="view" data-view="files">
<section aria-labelledby="upload-heading">
<h2 id="upload-heading">Upload</h2>
<div id="drop-zone" class="drop-zone">
<p>Drag files here, paste them, or</p>
<button id="choose-files" type="button">Choose files</button>
<input id="file-input" type="file" multiple hidden aria-label="Files to upload">
</div>
<div class="row upload-options">
<div class="check" id="upload-encrypt-choice"><input id="upload-encrypt" type="checkbox" aria-describedby="upload-encrypt-hint"><label for="upload-encrypt">Encrypt end to end</label></div>
<div class="check" id="upload-public-choice"><input id="upload-public" type="checkbox" checked><label for="upload-public">Public share links</label></div>
<div class="inline-field"><label for="upload-expiry">Expires</label>
<select id="upload-expiry"><option value="">Service default (usually never)</option>${EXPIRY_CHOICES.map(
    (choice) => html`<option value="${choice.seconds}">In ${choice.label}</option>`,
  )}</select></div>
</div>
<p class="hint" id="made-links-only" hidden>This service requires share links with a password, a download limit or an expiry: uploads are private, and you share them with the links you make (Links, in Your files).</p>
<p class="hint" id="upload-encrypt-hint">Encrypted files are encrypted in this browser before they leave it (age format): the service stores only ciphertext, and only your identity, or a link you make with its key, opens them. The choice is remembered in this browser.</p>
<p class="hint">Files from ${TUS_FROM_BYTES / MiB} MiB on go up resumably (tus, in ${TUS_CHUNK_BYTES / MiB} MiB pieces); smaller ones in one request.</p>
<ul id="uploads" class="uploads" aria-label="Uploads"></ul>
<button id="clear-uploads" class="secondary clear-uploads" type="button" hidden>Clear finished uploads</button>
</section>

<section id="e2e-section" aria-labelledby="e2e-heading">
<h2 id="e2e-heading">End-to-end encryption</h2>
<p id="e2e-status">Loading…</p>
<p id="e2e-note" role="status"></p>
<form id="e2e-backup-form" hidden>
<input type="text" name="username" autocomplete="username" value="edgeshare identity backup" hidden>
<p class="hint">A passphrase backup lets you restore the identity in another browser. The server keeps it encrypted with the passphrase, which never leaves this browser: choose a long one and keep it; nobody can recover it for you.</p>
<div class="field"><label for="e2e-backup-passphrase">Backup passphrase</label>
<input id="e2e-backup-passphrase" name="password" type="password" autocomplete="new-password" minlength="10" required></div>
<button type="submit">Save the backup</button>
</form>
<form id="e2e-restore-form" hidden>
<input type="text" name="username" autocomplete="username" value="edgeshare identity backup" hidden>
<div class="field"><label for="e2e-restore-passphrase">Passphrase of the backup</label>
<input id="e2e-restore-passphrase" name="password" type="password" autocomplete="current-password" required></div>
<button type="submit">Restore the identity</button>
</form>
<div class="row"><button id="e2e-export" class="secondary" type="button" disabled>Export identity (for age and the command line)</button></div>
<details><summary>Import an identity file</summary>
<form id="e2e-import-form">
<div class="field"><label for="e2e-import">Identity file (as age-keygen writes it: AGE-SECRET-KEY-1…)</label>
<textarea id="e2e-import" rows="3" spellcheck="false" autocomplete="off" required></textarea></div>
<button type="submit">Import</button>
</form>
</details>
</section>

<section aria-labelledby="usage-heading">
<h2 id="usage-heading">Storage</h2>
<div class="usage">
<label for="usage-bytes">Space used</label><meter id="usage-bytes" min="0" max="1" value="0"></meter><span id="usage-bytes-text"></span>
<label for="usage-files">Files kept</label><meter id="usage-files" min="0" max="1" value="0"></meter><span id="usage-files-text"></span>
</div>
</section>

<section aria-labelledby="files-heading">
<h2 id="files-heading">Your files</h2>
<form id="search-form" class="row search" role="search">
<div class="inline-field"><label for="search">Search by name</label><input id="search" name="q" type="search" maxlength="255"></div>
<div class="inline-field"><label for="sort">Order</label>
<select id="sort"><option value="uploadedAt:desc">Newest first</option><option value="uploadedAt:asc">Oldest first</option><option value="size:desc">Largest first</option><option value="name:asc">Name, A to Z</option></select></div>
<button type="submit">Search</button>
</form>
<div class="row bulk"><span class="check"><input id="select-all" type="checkbox"><label for="select-all">Select all on this page</label></span><button id="delete-selected" class="danger" type="button" disabled>Delete selected</button></div>
<form id="collect-form" class="row bulk collect">
<div class="inline-field"><label for="collect-target">Collection</label><select id="collect-target"><option value="">A new collection</option></select></div>
<div class="inline-field" id="collect-name-field"><label for="collect-name">New collection’s name</label><input id="collect-name" maxlength="200"></div>
<button id="collect-selected" type="submit" disabled>Add selected to collection</button>
</form>
<div class="table-wrap">
<table class="cards files-table">
<caption id="files-caption">Loading…</caption>
<thead><tr><th scope="col"><span class="visually-hidden">Selected</span></th><th scope="col">Name</th><th scope="col">Size</th><th scope="col">Uploaded</th><th scope="col">Share link</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
<tbody id="files-body"></tbody>
</table>
</div>
<nav class="row pager" aria-label="Pages of files"><button id="prev-page" class="secondary" type="button" disabled>Previous page</button><span id="page-info"></span><button id="next-page" class="secondary" type="button" disabled>Next page</button></nav>
</section>

<section aria-labelledby="sharex-heading">
<h2 id="sharex-heading">ShareX</h2>
<p>A <a href="https://getsharex.com/">ShareX</a> custom uploader for this service: screenshots, text and files go up in one request each (so up to about 95 MB), and ShareX copies the share link. Open the file with ShareX to add it.</p>
<div class="check"><input id="sharex-with-key" type="checkbox"><label for="sharex-with-key">Put my API key in the file</label></div>
<p class="hint">Without the key, edit the file and replace <code>esk_REPLACE_WITH_YOUR_API_KEY</code> before importing it. With it, the key is saved in plain text wherever the file goes.</p>
<button id="sharex-download" type="button">Download edgeshare.sxcu</button>
</section>
</div>

<div id="view-collections" class="view" data-view="collections" hidden>
<section aria-labelledby="collections-heading">
<h2 id="collections-heading">Collections</h2>
<p>A collection shares several of your files under one link: a page listing them, each with its own download, and one ZIP of them all. Select files under Files to add them, or make an empty one here.</p>
<form id="collection-form" class="request-form">
<div class="field"><label for="collection-name">Name</label><input id="collection-name" maxlength="200" required></div>
<div class="field"><label for="collection-note">Note for visitors (optional)</label><textarea id="collection-note" maxlength="2000" rows="2"></textarea></div>
<button type="submit">Make collection</button>
</form>
<p id="collections-caption" class="hint">Loading…</p>
<ul id="collections-list" class="collections-list" aria-label="Your collections"></ul>
</section>
<section id="collection-detail" aria-labelledby="collection-heading" hidden>
<div class="row"><h2 id="collection-heading"></h2></div>
<p id="collection-facts" class="muted"></p>
<p id="collection-note-text" class="collection-note"></p>
<div class="row compact"><button id="collection-links" type="button">Links</button><button id="collection-archive" class="secondary" type="button">Download ZIP</button><button id="collection-delete" class="danger" type="button">Delete collection</button></div>
<p id="collection-files-caption" class="hint"></p>
<ul id="collection-files" class="collection-members" aria-label="Files in this collection"></ul>
</section>
</div>

<div id="view-requests" class="view" data-view="requests" hidden>
<section aria-labelledby="requests-heading">
<div class="row"><h2 id="requests-heading">File requests</h2></div>
<p>An upload link for people without a key: they send files to you from its page, with curl or any tus client. What they send lands in your files, private unless you say otherwise.</p>
<form id="request-form" class="request-form">
<div class="field"><label for="request-label">Name (only you see it)</label><input id="request-label" maxlength="200"></div>
<div class="field"><label for="request-message">Message for the people sending</label><textarea id="request-message" maxlength="2000" rows="2"></textarea></div>
<div class="row">
<div class="inline-field"><label for="request-max-files">Files</label><input id="request-max-files" type="number" min="1" max="1000" value="10"></div>
<div class="inline-field"><label for="request-password">Password (optional)</label><input id="request-password" type="password" autocomplete="new-password" maxlength="200"></div>
<div class="inline-field"><label for="request-max-mib">Size limit in MiB (optional)</label><input id="request-max-mib" type="number" min="0.01" step="any" inputmode="decimal"></div>
<div class="inline-field"><label for="request-expiry">Open for</label>
<select id="request-expiry">${EXPIRY_CHOICES.map(
    (choice) =>
      html`<option value="${choice.seconds}"${choice.seconds === DEFAULT_REQUEST_EXPIRY_SECONDS ? ' selected' : ''}>${choice.label}</option>`,
  )}</select></div>
<div class="check" id="request-public-choice"><input id="request-public" type="checkbox"><label for="request-public">Received files get public share links</label></div>
<div class="check" id="request-e2e-choice"><input id="request-e2e" type="checkbox"><label for="request-e2e">End-to-end encrypted (the sender’s browser encrypts each file to your identity)</label></div>
</div>
<button type="submit">Make upload link</button>
</form>
<div class="table-wrap">
<table class="cards requests-table">
<caption id="requests-caption">Loading…</caption>
<thead><tr><th scope="col">Request</th><th scope="col">Status</th><th scope="col">Received</th><th scope="col">Link</th><th scope="col">Actions</th></tr></thead>
<tbody id="requests-body"></tbody>
</table>
</div>
</section>

</div>

<div id="view-webhooks" class="view" data-view="webhooks" hidden>
<section aria-labelledby="webhooks-heading">
<h2 id="webhooks-heading">Webhooks</h2>
<p>This service POSTs a signed JSON message to your URL when something happens to your files (Standard Webhooks signatures; see the README).</p>
<form id="webhook-form">
<div class="field"><label for="webhook-url">Receiver URL</label>
<input id="webhook-url" name="url" type="url" required placeholder="https://example.com/hooks/edgeshare" aria-describedby="webhook-url-hint">
<span id="webhook-url-hint" class="hint">https; plain http only for 127.0.0.1, [::1] or localhost.</span></div>
<fieldset class="webhook-events"><legend>Events</legend>
<div class="check"><input id="webhook-all-events" type="checkbox" checked><label for="webhook-all-events">All events, including ones added later</label></div>
${EVENT_TYPES.map(
  (type) =>
    html`<div class="check"><input id="webhook-event-${type.replace('.', '-')}" type="checkbox" value="${type}"><label for="webhook-event-${type.replace('.', '-')}"><code>${type}</code></label></div>`,
)}
</fieldset>
<button id="add-webhook" type="submit">Add webhook</button>
</form>
<div id="webhook-secret-box" class="message ok" hidden>
<p>The webhook’s signing secret, shown only this once: keep it where your receiver can read it.</p>
<div class="row"><input id="webhook-secret" type="text" readonly aria-label="Signing secret" spellcheck="false">
<button id="webhook-secret-copy" type="button">Copy secret</button><button id="webhook-secret-done" class="secondary" type="button">Done</button></div>
</div>
<ul id="webhooks-list" class="webhooks" aria-label="Your webhooks"></ul>
<div id="webhook-deliveries" class="table-wrap" hidden>
<table class="cards deliveries-table">
<caption id="webhook-deliveries-caption">Recent deliveries</caption>
<thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
<tbody id="webhook-deliveries-body"></tbody>
</table>
</div>
</section>
</div>
<dialog id="links-dialog" class="links-dialog" aria-labelledby="links-heading">
<div class="row"><h2 id="links-heading">Share links</h2><button id="links-close" class="secondary" type="button">Close</button></div>
<p id="links-file" class="muted"></p>
<p id="links-caption" class="hint"></p>
<ul id="links-list" class="links-list" aria-label="Links to this file"></ul>
<button id="links-access" class="secondary" type="button" aria-expanded="false">Access log of all these links</button>
<p id="links-access-hint" class="hint">Every visit of the file’s share link and of the links above: who (an anonymous id that changes every 30 days, never an address), when, from where, what they got.</p>
<div id="links-access-log"></div>
<form id="link-form" class="link-form">
<h3>Make a link</h3>
<p id="link-form-hint" class="hint">A made link works even when the file is private. Visitors never see its label or counts.</p>
<div class="inline-field"><label for="link-label">Label (only you see it)</label><input id="link-label" maxlength="200"></div>
<div class="inline-field"><label for="link-password">Password (optional)</label><input id="link-password" type="password" autocomplete="new-password" maxlength="256"></div>
<div class="inline-field"><label for="link-max">Download limit (optional)</label><input id="link-max" type="number" min="1" step="1" inputmode="numeric"></div>
<div class="inline-field"><label for="link-expiry">Link expires</label>
<select id="link-expiry"><option value="">Never (or with the file)</option>${EXPIRY_CHOICES.map(
    (choice) => html`<option value="${choice.seconds}">In ${choice.label}</option>`,
  )}</select></div>
<button type="submit">Make link</button>
</form>
</dialog>

<p class="muted">This page uses only the service's public API; its reference is at <a href="/docs">/docs</a>.</p>
</div>`,
});
