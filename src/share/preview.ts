// What the share page previews, and how the preview route serves it.
//
// Previews load from /share/:token/view, which never counts as a download. The download route
// sends every file as a sandboxed attachment (src/files/download.ts); the view route relaxes that
// only for the types below, which browsers render with their own viewers, never as a page of this
// origin: `inline` disposition, so opening a preview shows it and an <iframe> shows a PDF rather
// than saving it; and for PDFs no `sandbox`, because Firefox (pdf.js) and Safari refuse to render
// a PDF in a sandboxed document, while Chromium drops a PDF response's CSP anyway. HTML, SVG, XML
// and every other type stay sandboxed attachments on both routes (docs/pages.md).

import { type BlobRef, type BlobStore, readHead } from '../storage/segments';

/** Images every current browser renders. SVG is not one of them here: it can carry script. */
const IMAGE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'image/x-icon',
  'image/vnd.microsoft.icon',
]);

/** Shown as text on the page itself (first TEXT_PREVIEW_BYTES), Markdown and CSV as written. */
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/csv', 'application/json']);

export type PreviewKind = 'image' | 'audio' | 'video' | 'pdf' | 'text';

export function previewKind(mimeType: string): PreviewKind | undefined {
  if (IMAGE_TYPES.has(mimeType)) return 'image';
  if (mimeType.startsWith('audio/')) return 'audio';
  if (mimeType.startsWith('video/')) return 'video';
  if (mimeType === 'application/pdf') return 'pdf';
  if (TEXT_TYPES.has(mimeType)) return 'text';
  return undefined;
}

export const TEXT_PREVIEW_BYTES = 4096;

/** The start of a text file, cut at a character boundary; JSON that fits whole is pretty-printed. */
export async function readTextPreview(
  store: BlobStore,
  file: BlobRef & { mime_type: string },
): Promise<{ text: string; truncated: boolean } | undefined> {
  const { size, mime_type: mimeType } = file;
  const bytes = await readHead(store, file, TEXT_PREVIEW_BYTES).catch(() => undefined);
  if (!bytes) return undefined;
  // stream: true holds back a character cut in half by the range.
  let text = new TextDecoder().decode(bytes, { stream: size > TEXT_PREVIEW_BYTES });
  const truncated = size > TEXT_PREVIEW_BYTES;
  if (mimeType === 'application/json' && !truncated) {
    try {
      text = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // Not valid JSON after all: shown as it is.
    }
  }
  return { text, truncated };
}

/**
 * The view route's response: the download's bytes and validators, `inline` for types the page
 * previews. Everything else (and every error or 304) passes unchanged.
 */
export function asPreview(response: Response, mimeType: string): Response {
  const kind = previewKind(mimeType);
  const disposition = response.headers.get('content-disposition');
  if (!kind || !disposition) return response;
  const headers = new Headers(response.headers);
  headers.set('Content-Disposition', disposition.replace(/^attachment/, 'inline'));
  if (kind === 'pdf') {
    // The browser's PDF viewer runs a PDF's own script (if at all) in its own sandbox, never with
    // access to this origin's pages. Only a page of ours may frame it.
    headers.set('Content-Security-Policy', "frame-ancestors 'self'");
    headers.set('X-Frame-Options', 'SAMEORIGIN');
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
