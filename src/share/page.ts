import { html } from 'hono/html';
import { formatBytes } from '../http/format';
import type { FileRow } from '../storage/files-repo';

const STYLE = `body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem;word-break:break-all}dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}
dt{color:#666}a.button{display:inline-block;margin-top:1.5rem;padding:.6rem 1.2rem;background:#f38020;color:#fff;
border-radius:.3rem;text-decoration:none}.preview{margin-top:1.5rem;max-width:100%}`;

function preview(row: FileRow, src: string) {
  const type = row.mime_type;
  // SVG is left out on purpose: it can carry script.
  if (type.startsWith('image/') && type !== 'image/svg+xml') return html`<img class="preview" src="${src}" alt="">`;
  if (type.startsWith('audio/')) return html`<audio class="preview" controls src="${src}"></audio>`;
  if (type.startsWith('video/')) return html`<video class="preview" controls src="${src}"></video>`;
  return '';
}

/** The share page. Every value from the file record is HTML-escaped by the html tag. */
export function sharePage(row: FileRow, paths: { download: string; view: string }, previewText?: string) {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${row.original_name} · edgeshare</title><style>${STYLE}</style></head>
<body>
<h1>${row.original_name}</h1>
<dl>
<dt>Size</dt><dd>${formatBytes(row.size)}</dd>
<dt>Type</dt><dd>${row.mime_type}</dd>
<dt>Uploaded</dt><dd><time datetime="${row.uploaded_at}">${row.uploaded_at}</time></dd>
</dl>
<a class="button" href="${paths.download}" download>Download</a>
${previewText === undefined ? preview(row, paths.view) : html`<pre class="preview">${previewText}</pre>`}
</body>
</html>`;
}

export const notFoundPage = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not found · edgeshare</title><style>${STYLE}</style></head>
<body><h1>Not found</h1><p>This link does not lead to a file.</p></body></html>`;
