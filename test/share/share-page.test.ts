// The share page as HTML: what it shows, its previews per type, its link-unfurling tags, its
// headers, and the one 404 page. (test/share/share.test.ts covers the share routes' bytes and
// counting; share-page.browser.test.ts the page in a real browser.)
import { describe, expect, it } from 'vitest';
import { expectWellFormedPage, meta } from '../helpers/pages';
import type { UploadRecord } from '../helpers/records';
import { PNG_1X1, uploadOk } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

const tokenOf = (shareUrl: string) => new URL(shareUrl).pathname.split('/')[2] ?? '';

async function shared(
  file: { filename: string; type: string; content: BodyInit },
  fields: Record<string, string> = {},
) {
  const { auth } = await createKey();
  const record: UploadRecord = await uploadOk('v2', auth, file, { fields: fields });
  return { auth, record, token: tokenOf(record.shareUrl) };
}

async function page(token: string, envOverrides: Record<string, unknown> = {}) {
  const response = await call(`/share/${token}`, {}, envOverrides);
  return { response, html: await response.text() };
}

const PDF = '%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n';

describe('the share page', () => {
  it('is a well-formed page with a strict CSP, the file facts and a Download button', async () => {
    const { record, token } = await shared({ filename: 'report.pdf', type: 'application/pdf', content: PDF });
    const { response, html } = await page(token);
    expect(response.status).toBe(200);
    await expectWellFormedPage(response, html);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("frame-src 'self'");
    expect(csp).toContain("media-src 'self'");
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(html).toContain('<h1>report.pdf</h1>');
    expect(html).toContain(`<dd>${record.size} bytes</dd>`);
    expect(html).toContain('<dd>application/pdf</dd>');
    // A date for people, written as on every page, with the exact time for machines.
    const time = /<time datetime="([^"]+)">([^<]+)<\/time>/.exec(html);
    expect(time?.[1]).toBe(record.uploadedAt);
    expect(time?.[2]).toBe(`${record.uploadedAt.slice(0, 10)} ${record.uploadedAt.slice(11, 16)} UTC`);
    expect(html).toContain(
      `<a class="button" href="/share/${token}/download" download>Download (${record.size} bytes)</a>`,
    );
    // Nothing rewrites the times in the reader's zone or locale: the page runs no script.
    expect(html).not.toContain('<script');
  });

  it('shows the expiry when the file has one', async () => {
    const { token } = await shared({ filename: 'a.txt', type: 'text/plain', content: 'x' }, { expiresIn: '3600' });
    const { html } = await page(token);
    expect(html).toMatch(/<dt>Expires<\/dt><dd><time datetime="[^"]+Z">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>/);
  });

  it.each([
    ['an image', 'photo.png', 'image/png', PNG_1X1, /<img src="\/share\/[^/]+\/view" alt="Preview of photo.png">/],
    [
      'audio',
      'song.mp3',
      'audio/mpeg',
      new Uint8Array([0xff, 0xfb, 0x90, 0x00, 1, 2, 3, 4]),
      /<audio controls preload="metadata" src="\/share\/[^/]+\/view"/,
    ],
    [
      'a video',
      'clip.mp4',
      'video/mp4',
      new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 0, 0, 0, 0]),
      /<video controls preload="metadata" src="\/share\/[^/]+\/view"/,
    ],
    ['a PDF', 'report.pdf', 'application/pdf', PDF, /<iframe src="\/share\/[^/]+\/view" title="Preview of report.pdf"/],
  ])('previews %s from the view route', async (_label, filename, type, content, element) => {
    const { token } = await shared({ filename, type, content });
    const { html } = await page(token);
    expect(html).toMatch(element);
    expect(html.match(/<(img|audio|video|iframe) [^>]*\/view"/g)?.length, 'one preview element').toBe(1);
  });

  it.each([
    ['plain text', 'notes.txt', 'text/plain', 'plain <b>text</b> & more', 'plain &lt;b&gt;text&lt;/b&gt; &amp; more'],
    ['Markdown, as written', 'README.md', 'text/markdown', '# Title\n\n*not rendered*', '# Title\n\n*not rendered*'],
    ['CSV', 'table.csv', 'text/csv', 'a,b\n1,"two, three"\n', 'a,b\n1,&quot;two, three&quot;\n'],
    ['JSON, pretty-printed', 'data.json', 'application/json', '{"a":[1,2],"b":"<x>"}', '{\n  &quot;a&quot;: [\n    1,'],
  ])('shows %s in the page itself, escaped', async (_label, filename, type, content, shown) => {
    const { token } = await shared({ filename, type, content });
    const { html } = await page(token);
    expect(html).toContain(`<pre tabindex="0" aria-label="Contents of ${filename}">${shown}`);
    expect(html).not.toContain('<b>text</b>');
    expect(html).not.toContain('"<x>"');
    expect(html).not.toContain('/view"');
  });

  it('shows the first 4 KiB of a longer text, cut at a character boundary, and says so', async () => {
    const content = 'é'.repeat(3000); // 6000 bytes; byte 4096 falls inside no character (2 bytes each)…
    const odd = `a${content}`; // …and here it falls in the middle of one.
    const { token } = await shared({ filename: 'long.txt', type: 'text/plain', content: odd });
    const { html } = await page(token);
    const shown = /<pre[^>]*>([^<]*)<\/pre>/.exec(html)?.[1] ?? '';
    expect(shown).toBe(`a${'é'.repeat(2047)}`);
    expect(shown).not.toContain('\uFFFD');
    expect(html).toContain('The first 4 KiB of 5.9 KiB: download the file for the rest.');
  });

  it.each([
    ['SVG', 'logo.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
    ['HTML', 'page.html', 'text/html', '<!doctype html><html><script>alert(1)</script></html>'],
    ['XML', 'data.xml', 'application/xml', '<?xml version="1.0"?><root/>'],
    ['a zip', 'a.zip', 'application/zip', new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)])],
  ])('previews no %s (only a Download button)', async (_label, filename, type, content) => {
    const { token } = await shared({ filename, type, content });
    const { html } = await page(token);
    expect(html).not.toContain('/view"');
    expect(html).not.toContain('<pre');
    expect(html).not.toContain('alert(1)');
    expect(html).toContain(`href="/share/${token}/download"`);
  });

  it('carries Open Graph and Twitter card tags with absolute URLs: the image itself for an image', async () => {
    const { record, token } = await shared({ filename: 'Sunset & sea.png', type: 'image/png', content: PNG_1X1 });
    const { html } = await page(token);
    expect(meta(html, 'og:title')).toBe('Sunset &amp; sea.png');
    expect(meta(html, 'og:type')).toBe('website');
    expect(meta(html, 'og:url')).toBe(record.shareUrl);
    expect(meta(html, 'og:image')).toBe(`${record.shareUrl}/view`);
    expect(meta(html, 'og:image:type')).toBe('image/png');
    expect(meta(html, 'og:description')).toBe(`${record.size} bytes · image/png · shared with edgeshare`);
    expect(meta(html, 'twitter:card')).toBe('summary_large_image');
    expect(meta(html, 'twitter:image')).toBe(`${record.shareUrl}/view`);
    expect(meta(html, 'robots')).toBe('noindex');
    // The preview an unfurler fetches is the view route's: it never counts.
    expect(new URL(record.shareUrl).pathname).toBe(`/share/${token}`);
  });

  it('gives other files a summary card with the site icon', async () => {
    const { record, token } = await shared({ filename: 'notes.txt', type: 'text/plain', content: 'hi' });
    const { html } = await page(token);
    expect(meta(html, 'twitter:card')).toBe('summary');
    expect(meta(html, 'og:image')).toBe(`${new URL(record.shareUrl).origin}/assets/icon-192.png`);
    expect(meta(html, 'og:url')).toBe(record.shareUrl);
  });

  it('uses SITE_URL for its absolute URLs when set, like the share links', async () => {
    const { token } = await shared({ filename: 'p.png', type: 'image/png', content: PNG_1X1 });
    const { html } = await page(token, { SITE_URL: 'https://files.example.com' });
    expect(meta(html, 'og:url')).toBe(`https://files.example.com/share/${token}`);
    expect(meta(html, 'og:image')).toBe(`https://files.example.com/share/${token}/view`);
  });

  it('escapes a hostile name everywhere it appears', async () => {
    // (A double quote would reach the server percent-encoded: FormData encodes it in the part header.)
    const hostile = `'><svg onload=alert(1)>.png`;
    const { record, token } = await shared({ filename: hostile, type: 'image/png', content: PNG_1X1 });
    expect(record.filename).not.toContain('<');
    const { html } = await page(token);
    expect(html).not.toContain('<svg');
    const escaped = '&#39;&gt;&lt;svg onload=alert(1)&gt;.png';
    expect(html).toContain(`<h1>${escaped}</h1>`);
    expect(meta(html, 'og:title')).toBe(escaped);
    expect(html).toContain(`alt="Preview of ${escaped}"`);
  });
});

describe('the view route', () => {
  it.each([
    ['image/png', 'p.png', PNG_1X1],
    ['text/plain', 'a.txt', 'text'],
  ])('serves %s inline, still sandboxed', async (type, filename, content) => {
    const { token } = await shared({ filename, type, content });
    const response = await call(`/share/${token}/view`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toMatch(/^inline; filename="/);
    expect(response.headers.get('content-security-policy')).toBe('sandbox');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    await response.arrayBuffer();
    // The download route is unchanged: an attachment.
    const download = await call(`/share/${token}/download`);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment;/);
    await download.arrayBuffer();
  });

  it('serves a PDF inline without sandbox (browsers will not render one sandboxed), framable only by this origin', async () => {
    const { token } = await shared({ filename: 'r.pdf', type: 'application/pdf', content: PDF });
    const response = await call(`/share/${token}/view`);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toMatch(/^inline;/);
    expect(response.headers.get('content-security-policy')).toBe("frame-ancestors 'self'");
    expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(new TextDecoder().decode(await response.arrayBuffer())).toBe(PDF);
  });

  it.each([
    ['image/svg+xml', 'logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
    ['text/html', 'page.html', '<!doctype html><html><script>alert(1)</script></html>'],
  ])('keeps %s a sandboxed attachment', async (type, filename, content) => {
    const { token } = await shared({ filename, type, content });
    const response = await call(`/share/${token}/view`);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(response.headers.get('content-security-policy')).toBe('sandbox');
    await response.arrayBuffer();
  });

  it('answers a conditional request with 304, as the download route does', async () => {
    const { token } = await shared({ filename: 'p.png', type: 'image/png', content: PNG_1X1 });
    const first = await call(`/share/${token}/view`);
    await first.arrayBuffer();
    const again = await call(`/share/${token}/view`, { headers: { 'If-None-Match': first.headers.get('etag') ?? '' } });
    expect(again.status).toBe(304);
  });
});

describe('the 404 page', () => {
  it('is one well-formed page for a private, unknown or malformed link', async () => {
    const { token } = await shared({ filename: 'secret.txt', type: 'text/plain', content: 's' }, { isPublic: 'false' });
    const bodies = new Set<string>();
    for (const path of [`/share/${token}`, `/share/${'B'.repeat(32)}`, '/share/nope']) {
      const response = await call(path);
      expect(response.status, path).toBe(404);
      const html = await response.text();
      await expectWellFormedPage(response, html);
      bodies.add(html);
    }
    expect(bodies.size).toBe(1);
    const [html = ''] = bodies;
    expect(html).toContain('<h1>This link does not lead to a file</h1>');
    expect(html).not.toContain('secret.txt');
    expect(meta(html, 'og:title')).toBeUndefined();
  });
});
