/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks here run in the browser.)
// The API from another origin, as a browser app on its own site uses it: real Chromium, a page
// served from a second loopback port (another origin), fetch and tus-js-client with an API key.
// Chromium enforces CORS itself here: every request with Authorization is preflighted, and a
// response header the service does not expose reads as null.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/wrangler.ts';
import { api, createKey, launchBrowser, newPage, server, warnIfNoChromium } from '../helpers/browser.ts';

const TUS_CLIENT = readFileSync(join(ROOT, 'node_modules/tus-js-client/dist/tus.min.js'), 'utf8');
// The page's one helper: a tus upload (no resuming across page loads), resolved with the file's id.
const PAGE = `<!doctype html><meta charset="utf-8"><title>another site</title><script src="/tus.min.js"></script>
<script>
window.uploadWithTus = (file, options) =>
  new Promise((resolve, reject) =>
    new tus.Upload(file, {
      ...options,
      storeFingerprintForResuming: false,
      retryDelays: [],
      onSuccess: ({ lastResponse }) => resolve(lastResponse.getHeader('X-File-Id') ?? ''),
      onError: reject,
    }).start(),
  );
</script>`;

/** What the page defines (used inside page.evaluate). */
type SiteWindow = { uploadWithTus(file: Blob, options: Record<string, unknown>): Promise<string> };

/** The other site: a page and tus-js-client's browser build, on 127.0.0.1 at a port of its own. */
function startSite(): Promise<{ site: Server; origin: string }> {
  const site = createServer((request, response) => {
    const script = request.url === '/tus.min.js';
    response.writeHead(200, { 'Content-Type': script ? 'text/javascript' : 'text/html; charset=utf-8' });
    response.end(script ? TUS_CLIENT : PAGE);
  });
  return new Promise((resolve) =>
    site.listen(0, '127.0.0.1', () => {
      const { port } = site.address() as AddressInfo;
      resolve({ site, origin: `http://127.0.0.1:${port}` });
    }),
  );
}

describe.runIf(warnIfNoChromium('the cross-origin browser tests'))('the API from another origin in Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let site: Server;
  let siteOrigin: string;
  let key: string;

  beforeAll(async () => {
    ({ site, origin: siteOrigin } = await startSite());
    browser = await launchBrowser();
    context = await browser.newContext();
    key = await createKey('cross-origin browser test');
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.close(resolve));
  });

  it('uploads, reads, changes, downloads by range and deletes with the headers a browser app reads', async () => {
    const { page, problems } = await newPage(context);
    await page.goto(`${siteOrigin}/`);
    expect(new URL(page.url()).origin).not.toBe(server().origin);
    const seen = await page.evaluate(
      async ({ api, key }) => {
        const auth = { Authorization: `Bearer ${key}` };
        const exposed = (response: Response, names: string[]) =>
          Object.fromEntries(names.map((name) => [name, response.headers.get(name)]));
        const form = new FormData();
        form.append('file', new File(['hello from another origin'], 'hello.txt', { type: 'text/plain' }));
        const uploaded = await fetch(`${api}/api/v2/upload`, { method: 'POST', headers: auth, body: form });
        const record = (await uploaded.json()) as { data: { id: string; sha256: string } };
        const id = record.data.id;

        const read = await fetch(`${api}/api/v2/files/${id}`, {
          headers: { ...auth, 'X-Request-Id': 'from-another-origin-1' },
        });
        const changed = await fetch(`${api}/api/v2/files/${id}`, {
          method: 'PATCH',
          headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': '"cors-patch-1"' },
          body: JSON.stringify({ originalName: 'héllo.txt' }),
        });
        const range = await fetch(`${api}/api/v2/files/${id}/download`, { headers: { ...auth, Range: 'bytes=0-4' } });
        const rangeText = await range.text();
        const etag = range.headers.get('ETag') ?? '';
        const unchanged = await fetch(`${api}/api/v2/files/${id}/download`, {
          headers: { ...auth, 'If-None-Match': etag },
        });
        const removed = await fetch(`${api}/api/v2/files/bulk`, {
          method: 'DELETE',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ ids: [id] }),
        });
        return {
          upload: {
            status: uploaded.status,
            sha256: record.data.sha256,
            requestId: uploaded.headers.get('X-Request-Id'),
          },
          read: {
            status: read.status,
            ...exposed(read, [
              'X-Request-Id',
              'X-RateLimit-Limit',
              'X-RateLimit-Remaining',
              'X-RateLimit-Reset',
              'Server-Timing',
            ]),
          },
          change: {
            status: changed.status,
            name: ((await changed.json()) as { data: { originalName: string } }).data.originalName,
          },
          range: {
            status: range.status,
            text: rangeText,
            ...exposed(range, ['Content-Range', 'Content-Disposition', 'Accept-Ranges', 'Repr-Digest', 'ETag']),
          },
          unchanged: unchanged.status,
          removed: { status: removed.status, body: await removed.json() },
        };
      },
      { api: server().origin, key },
    );

    expect(seen.upload.status).toBe(201);
    expect(seen.upload.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.read).toMatchObject({
      status: 200,
      'X-Request-Id': 'from-another-origin-1',
      'X-RateLimit-Limit': expect.stringMatching(/^\d+$/),
      'X-RateLimit-Remaining': expect.stringMatching(/^\d+$/),
      'X-RateLimit-Reset': expect.stringMatching(/^\d{10}$/),
      'Server-Timing': expect.stringContaining('total;dur='),
    });
    expect(seen.change).toEqual({ status: 200, name: 'héllo.txt' });
    const digest = Buffer.from(seen.upload.sha256, 'hex').toString('base64');
    expect(seen.range).toEqual({
      status: 206,
      text: 'hello',
      'Content-Range': 'bytes 0-4/25',
      'Content-Disposition': `attachment; filename="hello.txt"; filename*=UTF-8''h%C3%A9llo.txt`,
      'Accept-Ranges': 'bytes',
      'Repr-Digest': `sha-256=:${digest}:`,
      ETag: expect.stringMatching(/^"/),
    });
    expect(seen.unchanged).toBe(304);
    expect(seen.removed).toMatchObject({ status: 200, body: { data: { total: 1, deleted: 1 } } });
    expect(problems).toEqual([]);
  });

  it('reads the error envelope and its headers when the key is wrong', async () => {
    const { page, problems } = await newPage(context);
    await page.goto(`${siteOrigin}/`);
    const seen = await page.evaluate(async (api) => {
      const response = await fetch(`${api}/api/v2/files`, { headers: { Authorization: 'Bearer esk_not-a-key' } });
      return {
        status: response.status,
        challenge: response.headers.get('WWW-Authenticate'),
        requestId: response.headers.get('X-Request-Id'),
        body: await response.json(),
      };
    }, server().origin);
    expect(seen).toMatchObject({
      status: 401,
      challenge: expect.stringMatching(/^Bearer/),
      requestId: expect.any(String),
      body: { code: 'UNAUTHORIZED', error: 'Invalid or inactive API key' },
    });
    // The refused request is the page's own to handle; Chromium reports its status, nothing else.
    expect(problems.filter((problem) => !problem.includes('status of 401'))).toEqual([]);
  });

  it('uploads with tus-js-client in 3 parallel streams and with a raw PUT that asserts its digest', async () => {
    const { page, problems } = await newPage(context);
    await page.goto(`${siteOrigin}/`);
    const seen = await page.evaluate(
      async ({ api, key }) => {
        const { uploadWithTus } = window as unknown as SiteWindow;
        const auth = { Authorization: `Bearer ${key}` };
        const hex = async (bytes: BufferSource) =>
          [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))]
            .map((byte) => byte.toString(16).padStart(2, '0'))
            .join('');
        const bytes = new Uint8Array(3 * 1024 * 1024 + 4321);
        for (let at = 0; at < bytes.length; at += 65536) crypto.getRandomValues(bytes.subarray(at, at + 65536));
        bytes[0] = 0; // no type detection claims it
        const fileId = await uploadWithTus(new Blob([bytes]), {
          endpoint: `${api}/api/v2/uploads`,
          parallelUploads: 3,
          chunkSize: 1024 * 1024,
          headers: auth,
          metadata: { filename: 'parallel.bin', filetype: 'application/octet-stream' },
        });
        const downloaded = await fetch(`${api}/api/v2/files/${fileId}/download`, { headers: auth });
        const tusBytes = await downloaded.arrayBuffer();

        const small = new TextEncoder().encode('put from another origin');
        const claimed = btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', small))));
        const put = await fetch(`${api}/api/v2/upload/put.txt?isPublic=false`, {
          method: 'PUT',
          headers: { ...auth, 'Content-Type': 'text/plain', 'Repr-Digest': `sha-256=:${claimed}:` },
          body: small,
        });
        const putRecord = (await put.json()) as { data: { isPublic: boolean; sha256: string; size: number } };
        return {
          fileId,
          sent: await hex(bytes),
          got: await hex(tusBytes),
          size: tusBytes.byteLength,
          put: { status: put.status, ...putRecord.data, expected: await hex(small) },
        };
      },
      { api: server().origin, key },
    );
    expect(seen.fileId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(seen.size).toBe(3 * 1024 * 1024 + 4321);
    expect(seen.got).toBe(seen.sent);
    expect(seen.put).toMatchObject({ status: 201, isPublic: false, size: 23 });
    expect(seen.put.sha256).toBe(seen.put.expected);
    expect(problems).toEqual([]);
  });

  it('sends files to a file request with no key: a form post and tus-js-client to its tusUrl', async () => {
    const { status, body } = await api<{ data: { id: string; uploadUrl: string; tusUrl: string } }>(
      server().origin,
      key,
      '/api/v2/requests',
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ maxFiles: 2 }) },
    );
    expect(status).toBe(201);
    const { page, problems } = await newPage(context);
    // The tus creation as the network saw it: its request's id and body type, its answer's offset.
    const creations: { requestId?: string; type?: string; status: number; offset?: string }[] = [];
    page.on('response', (response) => {
      const request = response.request();
      if (request.method() !== 'POST' || request.url() !== body.data.tusUrl) return;
      creations.push({
        requestId: request.headers()['x-request-id'],
        type: request.headers()['content-type'],
        status: response.status(),
        offset: response.headers()['upload-offset'],
      });
    });
    await page.goto(`${siteOrigin}/`);
    const seen = await page.evaluate(
      async ({ uploadUrl, tusUrl }) => {
        const { uploadWithTus } = window as unknown as SiteWindow;
        const form = new FormData();
        form.append('file', new File(['a note for the requester'], 'note.txt', { type: 'text/plain' }));
        const posted = await fetch(uploadUrl, { method: 'POST', body: form });
        const fileId = await uploadWithTus(new Blob([new Uint8Array(300_000).fill(7)]), {
          endpoint: tusUrl,
          chunkSize: 100_000,
          // The first chunk rides on the creation (creation-with-upload); each request carries an X-Request-ID.
          uploadDataDuringCreation: true,
          addRequestId: true,
          metadata: { filename: 'sevens.bin', filetype: 'application/octet-stream' },
        });
        return { posted: posted.status, fileId };
      },
      { uploadUrl: body.data.uploadUrl, tusUrl: body.data.tusUrl },
    );
    expect(seen.posted).toBe(201);
    expect(seen.fileId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(creations).toEqual([
      {
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        type: 'application/offset+octet-stream',
        status: 201,
        offset: '100000',
      },
    ]);
    const listed = await api<{ data: { files: { size: number; requestId: string | null }[] } }>(
      server().origin,
      key,
      '/api/v2/files',
    );
    const received = listed.body.data.files.filter((file) => file.requestId === body.data.id);
    expect(received.map((file) => file.size).sort((a, b) => a - b)).toEqual([24, 300_000]);
    expect(problems).toEqual([]);
  });
});
