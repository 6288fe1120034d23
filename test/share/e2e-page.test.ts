// The server side of the encrypted share pages (issue 41, "Visitors"): the page of an encrypted
// file carries its link's header and sealed `meta` for the browser, loads the decrypting script
// from this origin, and its CSP lets it fetch, register its Service Worker and preview from blob:
// URLs, still with no inline script and nothing from another origin; a plain file's page runs no
// script. The browser side is test/share/e2e-share-page.browser.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import { type AgeFile, ageFile, linkHeader, newIdentity } from '../helpers/age-files';
import { json, makeLink, pathOf } from '../helpers/links';
import { expectWellFormedPage } from '../helpers/pages';
import { call, createKey } from '../helpers/worker';

type Key = Awaited<ReturnType<typeof createKey>>;

let key: Key;
let file: AgeFile;
let fileId: string;

const page = (path: string) => call(path, { headers: { Accept: 'text/html' } });

/** An attribute's value as the page sends it, entities decoded (the header's newlines stay as sent). */
const attribute = (html: string, name: string) => {
  const value = new RegExp(`\\s${name}="([^"]*)"`).exec(html)?.[1];
  return value
    ?.replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&gt;/g, '>')
    .replace(/&lt;/g, '<')
    .replace(/&amp;/g, '&');
};

beforeAll(async () => {
  key = await createKey('e2e share page');
  file = await ageFile(await newIdentity(), 70_000, 61, 'Secret plans.pdf');
  const response = await call('/api/v2/upload/f.age?encryption=age', {
    method: 'PUT',
    headers: { ...key.auth, 'Edgeshare-Meta': file.meta },
    body: file.bytes,
  });
  expect(response.status).toBe(201);
  fileId = ((await response.json()) as { data: { id: string } }).data.id;
});

describe('the share page of an encrypted file', () => {
  it('carries the link’s header and the sealed meta, loads the decrypting script, and never names the file', async () => {
    const way = await linkHeader(file);
    const link = await makeLink(key.auth, fileId, { e2eHeader: way.header });
    const response = await page(pathOf(link));
    const html = await response.text();
    expect(response.status).toBe(200);
    await expectWellFormedPage(response, html);
    expect(html).toContain('<script src="/assets/e2e-share.js" defer></script>');
    expect(attribute(html, 'data-header')).toBe(way.header);
    expect(attribute(html, 'data-meta')).toBe(file.meta);
    expect(attribute(html, 'data-download')).toBe(`${pathOf(link)}/download`);
    expect(html).not.toContain(file.name);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("worker-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("img-src 'self' blob:");
    expect(csp).toContain("media-src 'self' blob:");
    expect(csp).toContain("frame-src 'self'");
  });

  it('a plain file’s page runs no script and allows no worker', async () => {
    const plain = await call('/api/v2/upload/a.txt', { method: 'PUT', headers: key.auth, body: 'plain text' });
    const { data } = (await plain.json()) as { data: { id: string } };
    const link = await makeLink(key.auth, data.id);
    const response = await page(pathOf(link));
    const html = await response.text();
    expect(html).not.toContain('<script');
    expect(response.headers.get('content-security-policy')).not.toContain('worker-src');
  });
});

describe('the share page of a collection with encrypted members', () => {
  it('gives each encrypted member its link header and meta, and loads the decrypting script', async () => {
    const plain = await call('/api/v2/upload/b.txt', { method: 'PUT', headers: key.auth, body: 'plain' });
    const plainId = ((await plain.json()) as { data: { id: string } }).data.id;
    const made = await call('/api/v2/collections', json({ name: 'Mixed', fileIds: [fileId, plainId] }, key.auth));
    const collectionId = ((await made.json()) as { data: { id: string } }).data.id;
    const way = await linkHeader(file);
    const linked = await call(
      `/api/v2/collections/${collectionId}/links`,
      json({ e2eHeaders: { [fileId]: way.header } }, key.auth),
    );
    expect(linked.status).toBe(201);
    const link = ((await linked.json()) as { data: { url: string } }).data;
    const response = await page(pathOf(link));
    const html = await response.text();
    expect(response.status).toBe(200);
    await expectWellFormedPage(response, html);
    expect(html).toContain('<script src="/assets/e2e-share.js" defer></script>');
    expect(attribute(html, 'data-file-id')).toBe(fileId);
    expect(attribute(html, 'data-header')).toBe(way.header);
    expect(attribute(html, 'data-meta')).toBe(file.meta);
    expect(html).not.toContain(file.name);
    expect(response.headers.get('content-security-policy')).toContain("worker-src 'self'");
  });
});
