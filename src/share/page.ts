// The share page and the one "not found" page every dead link gets. Every value from the file
// record is HTML-escaped by hono/html's `html` tag.
import { html } from 'hono/html';
import { formatBytes, formatDate } from '../lib/format';
import { layout, pageCsp } from '../pages/layout';
import { reportFooter } from '../pages/report-page';
import type { FileRow } from '../storage/files-repo';
import { type PreviewKind, previewKind, TEXT_PREVIEW_BYTES } from './preview';

/** Images, media and the PDF frame come from this origin's view route; the page runs no script. */
export const SHARE_PAGE_CSP = pageCsp({ media: "'self'", frame: "'self'" });

/**
 * A page with end-to-end encrypted files runs the decrypting script (/assets/e2e-share.js): it
 * fetches the download from this origin, previews the plaintext as blob: URLs, registers the
 * saving Service Worker (/assets/e2e-sw.js, scoped to /share/) and saves through a hidden frame
 * of this origin. Still no inline script and nothing from another origin.
 */
export const E2E_PAGE_CSP = pageCsp({
  img: "'self' blob:",
  media: "'self' blob:",
  frame: "'self'",
  connect: "'self'",
  worker: "'self'",
});

/** The decrypting script of the pages of encrypted files (src/web/e2e-share.ts). */
const E2E_SCRIPT = '/assets/e2e-share.js';

export type SharePageInput = {
  row: FileRow;
  /** Absolute: `{SITE_URL or request origin}/share/<token>`. */
  shareUrl: string;
  /** The site's origin, for absolute Open Graph URLs. */
  origin: string;
  /** The start of a text file, for text previews. */
  text?: { text: string; truncated: boolean };
  /** false: show no preview and no image of the file (a capped link, whose every byte counts). */
  preview?: boolean;
  /** ABUSE_CONTACT, shown in the footer beside "Report this link". */
  contact?: string;
  /**
   * An end-to-end encrypted file: what its download is (the link's header and the payload, `size`
   * bytes), and whether the link asks a password (the curl line then sends one).
   */
  e2e?: { size: number; password: boolean; header: string | null; meta: string | null };
};

/**
 * Where the decrypting script works: the way in's header (public: the download starts with it)
 * and the sealed `meta`, both opened in the browser with the key from the fragment.
 */
function e2eBox(download: string, header: string | null, meta: string | null) {
  return html`<section class="e2e" id="e2e" aria-label="Decrypt" data-download="${download}" data-header="${header ?? ''}" data-meta="${meta ?? ''}">
<p class="e2e-status" role="status" aria-live="polite">Decrypting needs the page’s script and the key from the link.</p>
<form class="e2e-passphrase" hidden>
<label for="e2e-passphrase">Passphrase</label>
<input id="e2e-passphrase" name="passphrase" type="password" autocomplete="off" required>
<button class="button" type="submit">Open</button>
</form>
<button class="button e2e-save" type="button" hidden>Download</button>
<button class="button secondary e2e-show" type="button" hidden>Show preview</button>
<div class="preview e2e-preview" aria-label="Preview" hidden></div>
</section>`;
}

/**
 * What a page says of an end-to-end encrypted file until the page decrypts in the browser: open
 * it with the command line or `age`, with the key from the link's fragment (never sent here).
 */
function e2eNote(download: string, password: boolean) {
  const auth = password ? ' -u :PASSWORD' : '';
  return html`<p class="e2e-note"><strong>End-to-end encrypted:</strong> open it with edgeshare’s command line or <code>age</code>. The key is the part of the link after <code>#k=</code> (it never reaches this server): save it in <code>key.txt</code>, then</p>
<pre><code>curl -s${auth} ${download} | age -d -i key.txt &gt; file</code></pre>`;
}

/** The time as every page writes it (`2026-12-03 14:05 UTC`), exact to the millisecond for machines. */
const time = (iso: string) => html`<time datetime="${iso}">${formatDate(iso)}</time>`;

function preview(kind: PreviewKind | undefined, input: SharePageInput, viewPath: string) {
  const name = input.row.original_name;
  switch (kind) {
    case 'image':
      return html`<img src="${viewPath}" alt="Preview of ${name}">`;
    case 'audio':
      return html`<audio controls preload="metadata" src="${viewPath}" aria-label="Preview of ${name}"></audio>`;
    case 'video':
      return html`<video controls preload="metadata" src="${viewPath}" aria-label="Preview of ${name}"></video>`;
    case 'pdf':
      return html`<iframe src="${viewPath}" title="Preview of ${name}" loading="lazy"></iframe>`;
    case 'text':
      if (!input.text) return '';
      return html`<pre tabindex="0" aria-label="Contents of ${name}">${input.text.text}</pre>${
        input.text.truncated
          ? html`<p class="note">The first ${formatBytes(TEXT_PREVIEW_BYTES)} of ${formatBytes(input.row.size)}: download the file for the rest.</p>`
          : ''
      }`;
    default:
      return '';
  }
}

/** What a link unfurls as in chat apps; an `imageType` marks the image as the shared file itself. */
type Card = { title: string; description: string; url: string; image: string; imageType?: string };

/** Open Graph and Twitter card tags, so a link unfurls in chat apps: the image itself for images. */
function socialTags({ title, description, url, image, imageType }: Card) {
  return html`<meta name="description" content="${description}">
<meta property="og:site_name" content="edgeshare">
<meta property="og:type" content="website">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta property="og:url" content="${url}">
<meta property="og:image" content="${image}">
${imageType ? html`<meta property="og:image:type" content="${imageType}">\n` : ''}<meta property="og:image:alt" content="${imageType ? `Preview of ${title}` : 'edgeshare'}">
<meta name="twitter:card" content="${imageType ? 'summary_large_image' : 'summary'}">
<meta name="twitter:title" content="${title}">
<meta name="twitter:description" content="${description}">
<meta name="twitter:image" content="${image}">
<meta name="robots" content="noindex">`;
}

export function sharePage(input: SharePageInput) {
  const { row, e2e } = input;
  const kind = input.preview === false || e2e ? undefined : previewKind(row.mime_type);
  const base = new URL(input.shareUrl).pathname;
  const size = formatBytes(e2e?.size ?? row.size);
  const description = `${size} · ${row.mime_type} · shared with edgeshare`;
  const shown = preview(kind, input, `${base}/view`);
  return layout({
    title: `${row.original_name} · edgeshare`,
    head: socialTags({
      title: row.original_name,
      description,
      url: input.shareUrl,
      image: kind === 'image' ? `${input.shareUrl}/view` : `${input.origin}/assets/icon-192.png`,
      imageType: kind === 'image' ? row.mime_type : undefined,
    }),
    body: html`<h1>${row.original_name}</h1>
<dl class="file-facts">
<dt>Size</dt><dd>${size}</dd>
<dt>Type</dt><dd>${row.mime_type}</dd>
<dt>Uploaded</dt><dd>${time(row.uploaded_at)}</dd>
${row.expires_at ? html`<dt>Expires</dt><dd>${time(row.expires_at)}</dd>` : ''}
</dl>
${e2e ? e2eBox(`${base}/download`, e2e.header, e2e.meta) : ''}
${e2e ? e2eNote(`${input.shareUrl}/download`, e2e.password) : ''}
<a class="button${e2e ? ' secondary e2e-raw' : ''}" href="${base}/download" download>${e2e ? 'Download encrypted' : 'Download'} (${size})</a>
${shown ? html`<section class="preview" aria-label="Preview">${shown}</section>` : ''}`,
    footer: reportFooter(input.shareUrl, input.contact),
    ...(e2e ? { scripts: [E2E_SCRIPT] } : {}),
  });
}

/**
 * A collection's member as its share page shows it (`encrypted`: an age file, whose size is that
 * of its download, the link's header and its payload).
 */
export type CollectionPageMember = {
  id: string;
  original_name: string;
  size: number;
  mime_type: string;
  encrypted?: boolean;
  /** An encrypted member's header for this link, and its sealed `meta` (the page opens both). */
  header?: string | null;
  meta?: string | null;
};

export type CollectionPageInput = {
  name: string;
  note: string | null;
  members: CollectionPageMember[];
  /** The ZIP's exact length. */
  archiveLength: number;
  /** The ZIP's version (`?v=` of "Download all": a resume of another version fails, never mixes two). */
  archiveVersion: string;
  shareUrl: string;
  origin: string;
  /** The start of text members, by file id (a bounded number of them: each is a storage read). */
  texts: Map<string, { text: string; truncated: boolean }>;
  /** false: no previews (a capped link, whose every byte served spends its budget). */
  preview: boolean;
  /** ABUSE_CONTACT, shown in the footer beside "Report this link". */
  contact?: string;
  /** The link asks a password (an encrypted member's curl line then sends one). */
  password?: boolean;
};

function memberPreview(member: CollectionPageMember, input: CollectionPageInput, base: string) {
  if (member.encrypted) return e2eNote(`${input.shareUrl}/files/${member.id}`, input.password === true);
  if (!input.preview) return '';
  const viewPath = `${base}/files/${member.id}/view`;
  const name = member.original_name;
  // preload="none" and lazy images: a long list fetches nothing a visitor does not look at.
  switch (previewKind(member.mime_type)) {
    case 'image':
      return html`<img src="${viewPath}" alt="Preview of ${name}" loading="lazy">`;
    case 'audio':
      return html`<audio controls preload="none" src="${viewPath}" aria-label="Preview of ${name}"></audio>`;
    case 'video':
      return html`<video controls preload="none" src="${viewPath}" aria-label="Preview of ${name}"></video>`;
    case 'text': {
      const text = input.texts.get(member.id);
      if (!text) return html`<p class="note"><a href="${viewPath}">Show ${name}</a></p>`;
      return html`<pre tabindex="0" aria-label="Contents of ${name}">${text.text}</pre>${
        text.truncated
          ? html`<p class="note">The first ${formatBytes(TEXT_PREVIEW_BYTES)} of ${formatBytes(member.size)}.</p>`
          : ''
      }`;
    }
    default:
      return '';
  }
}

/** The share page of a collection: its name, its note, each file with its own download, and "Download all". */
export function collectionPage(input: CollectionPageInput) {
  const base = new URL(input.shareUrl).pathname;
  const count = input.members.length;
  const files = `${count} ${count === 1 ? 'file' : 'files'}`;
  const total = formatBytes(input.members.reduce((sum, member) => sum + member.size, 0));
  const zip = formatBytes(input.archiveLength);
  const description = `${files} · ${total} · shared with edgeshare`;
  const image = `${input.origin}/assets/icon-192.png`;
  const encrypted = input.members.some((member) => member.encrypted);
  return layout({
    title: `${input.name} · edgeshare`,
    head: socialTags({ title: input.name, description, url: input.shareUrl, image }),
    body: html`<h1>${input.name}</h1>
${input.note ? html`<p class="collection-note">${input.note}</p>` : ''}
<p class="muted">${files} · ${total}</p>
${
  encrypted
    ? html`<p class="e2e-status" id="e2e" role="status" aria-live="polite" data-base="${base}" data-name="${input.name}">Decrypting needs the page’s script and the key from the link.</p>
<form class="e2e-passphrase" hidden>
<label for="e2e-passphrase">Passphrase</label>
<input id="e2e-passphrase" name="passphrase" type="password" autocomplete="off" required>
<button class="button" type="submit">Open</button>
</form>
`
    : ''
}<a class="button download-all" href="${base}/archive.zip?v=${input.archiveVersion}" download>Download all (ZIP, ${zip})</a>
<ul class="collection-files" aria-label="Files">
${input.members.map((member) => {
  const size = formatBytes(member.size);
  const shown = memberPreview(member, input, base);
  const e2e = member.encrypted
    ? html` data-file-id="${member.id}" data-header="${member.header ?? ''}" data-meta="${member.meta ?? ''}"`
    : '';
  return html`<li class="collection-file"${e2e}>
<h2 class="file-name">${member.original_name}</h2>
<p class="muted file-meta">${size} · ${member.mime_type}</p>
${shown ? html`<div class="preview">${shown}</div>` : ''}
<a class="button secondary" href="${base}/files/${member.id}" download aria-label="Download ${member.original_name} (${size})">Download (${size})</a>
</li>`;
})}
</ul>`,
    footer: reportFooter(input.shareUrl, input.contact),
    ...(encrypted ? { scripts: [E2E_SCRIPT] } : {}),
  });
}

/**
 * A made link's password form: it names nothing of what it shares, neither in the page nor its
 * head, beyond its kind (a file, or a collection of files). `report`: the link's URL and
 * ABUSE_CONTACT, for the footer.
 */
export function lockedPage(input: {
  wrong: boolean;
  kind: 'file' | 'collection';
  report?: { pageUrl: string; contact?: string };
}) {
  const what = input.kind === 'collection' ? 'collection' : 'file';
  const description =
    input.kind === 'collection' ? 'A collection of files shared with edgeshare' : 'A file shared with edgeshare';
  return layout({
    title: `A shared ${what} · edgeshare`,
    head: html`<meta name="description" content="${description}">
<meta property="og:site_name" content="edgeshare">
<meta property="og:type" content="website">
<meta property="og:title" content="A shared ${what}">
<meta property="og:description" content="${description}">
<meta name="robots" content="noindex">`,
    body: html`<h1>This ${what} is protected by a password</h1>
<form class="password-form" method="post">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
${input.wrong ? html`<p class="error" role="alert">That password is not right.</p>` : ''}
<button class="button" type="submit">Open</button>
</form>`,
    footer: input.report && reportFooter(input.report.pageUrl, input.report.contact),
  });
}

/** Posts the password to the page itself, and nowhere else. */
export const LOCKED_PAGE_CSP = pageCsp({ form: "'self'" });

export const tooManyPage = layout({
  title: 'Too many attempts · edgeshare',
  head: html`<meta name="robots" content="noindex">`,
  body: html`<div class="not-found">
<p class="code" aria-hidden="true">429</p>
<h1>Too many wrong passwords</h1>
<p class="muted">Wait a few minutes, then try again.</p>
</div>`,
});

/** The same page for a private, expired, deleted, revoked or unknown link. */
export const notFoundPage = layout({
  title: 'Not found · edgeshare',
  head: html`<meta name="robots" content="noindex">`,
  body: html`<div class="not-found">
<p class="code" aria-hidden="true">404</p>
<h1>This link does not lead to a file</h1>
<p class="muted">It may have expired, been deleted or made private, or it was never a share link. Ask whoever sent it for a new one.</p>
</div>`,
});

export const NOT_FOUND_CSP = pageCsp();
