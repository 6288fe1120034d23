/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks here run in the browser.)
// The share page of an end-to-end encrypted file in real Chromium (issue 41, "Visitors"): the key
// comes from the link's fragment and never leaves the browser; the page shows the real name from
// `meta`, decrypts while it downloads and saves through its Service Worker (kept alive past a
// minute); a download cut short or with a flipped byte near its end is an error on the page and
// never a complete file; without a Service Worker it saves through the File System Access API (a
// picker backed by the origin private file system; a cut or altered download commits nothing) or a
// Blob (refused, with a clear message, above its stated limit); a passphrase link asks for the
// phrase, and one that asks too much scrypt work is refused; no CSP violation at 1280 or 390 px.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRecipientHeader, encodeHeader, sealMeta } from '../../src/lib/age/index.ts';
import { type AgeFile, ageFile, linkHeader, newIdentity } from '../helpers/age-files.ts';
import { api, createKey, launchBrowser, newPage, screenshot, server, warnIfNoChromium } from '../helpers/browser.ts';
import { landscapePng } from '../helpers/png.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Uploads an age file (header ‖ payload, its `meta`) through the API, as the CLI does. */
async function uploadAge(key: string, file: AgeFile): Promise<string> {
  const { status, body } = await api<{ data: { id: string } }>(
    server().origin,
    key,
    '/api/v2/upload/f.age?encryption=age',
    {
      method: 'PUT',
      headers: { 'Edgeshare-Meta': file.meta },
      body: new Uint8Array(file.bytes),
    },
  );
  expect(status, JSON.stringify(body)).toBe(201);
  return body.data.id;
}

/** A link to the file with this header; its URL (without a fragment) and id. */
async function makeLink(key: string, fileId: string, e2eHeader: string): Promise<{ url: string; id: string }> {
  const { status, body } = await api<{ data: { url: string; id: string } }>(
    server().origin,
    key,
    `/api/v2/files/${fileId}/links`,
    { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ e2eHeader }) },
  );
  expect(status, JSON.stringify(body)).toBe(201);
  return body.data;
}

/** Every request the context makes, as text (URL, headers, body), to look for the key in. */
function recordRequests(context: BrowserContext): string[] {
  const seen: string[] = [];
  context.on('request', (request) => {
    seen.push(`${request.url()}\n${JSON.stringify(request.headers())}\n${request.postData() ?? ''}`);
  });
  return seen;
}

const status = (page: Page) => page.locator('.e2e-status');

/** Waits until the page's status is in `state`. */
const stateIs = (page: Page, state: string, timeout: number) =>
  page.locator(`.e2e-status[data-state="${state}"]`).waitFor({ state: 'attached', timeout });

/** Clicks the page's decrypting Download button; the download the browser starts. */
async function startDownload(page: Page): Promise<Download> {
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 30_000 }),
    page.getByRole('button', { name: /^Download \(/ }).click(),
  ]);
  return download;
}

/** Serves the download with `alter` applied to its bytes (a cut, a flipped byte). */
async function alterDownload(page: Page, alter: (bytes: Buffer) => Buffer) {
  await page.route(
    (url) => url.pathname.endsWith('/download'),
    async (route) => {
      const response = await route.fetch();
      const body = alter(await response.body());
      const headers = { ...response.headers(), 'content-length': String(body.length) };
      await route.fulfill({ status: response.status(), headers, body });
    },
  );
}

/**
 * The case "a download slowed past a minute…": a 1 MiB file downloaded at 16 KiB/s by the
 * browser's own network throttling (about 64 s, past Firefox's 30 s and Chromium's idle timeout),
 * in a context of its own. It costs time, not CPU, so the file starts it first and the case awaits
 * what it saw: the time the save took, its failure, the SHA-256 saved and the plaintext's. (It waits
 * with Playwright, not expect.poll: vitest would hold whichever case is running until a poll ends.)
 */
async function saveSlowly(browser: Browser, key: string) {
  const slow = await ageFile(await newIdentity(), 1024 * 1024, 42, 'slow.bin');
  const slowId = await uploadAge(key, slow);
  const way = await linkHeader(slow);
  const link = await makeLink(key, slowId, way.header);
  const context = await browser.newContext({ acceptDownloads: true });
  try {
    const { page, problems } = await newPage(context);
    await page.goto(`${link.url}#k=${way.identity}`);
    await stateIs(page, 'ready', 30_000);
    await page.evaluate(() => navigator.serviceWorker.ready);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: 16 * 1024,
      uploadThroughput: -1,
    });
    const started = Date.now();
    const download = await startDownload(page);
    await stateIs(page, 'done', 240_000);
    const ms = Date.now() - started;
    return {
      ms,
      failure: await download.failure(),
      sha256: sha256(await readFile(await download.path())),
      expected: sha256(slow.plaintext),
      problems,
    };
  } finally {
    await context.close();
  }
}

describe.runIf(warnIfNoChromium('the encrypted share page browser tests'))(
  'an encrypted file’s share page in Chromium',
  () => {
    let browser: Browser;
    let key: string;
    let file: AgeFile;
    let fileId: string;
    let keyed: { url: string; id: string; identity: string };
    let slowSave: ReturnType<typeof saveSlowly>;

    beforeAll(async () => {
      browser = await launchBrowser();
      key = await createKey('encrypted share page browser test');
      slowSave = saveSlowly(browser, key);
      // Awaited by its case; a failure here is that case's (and none unhandled meanwhile).
      slowSave.catch(() => undefined);
      const owner = await newIdentity();
      // Three full chunks and a bit: a cut at a chunk boundary and a flip in the last chunk both matter.
      file = await ageFile(owner, 3 * 65536 + 777, 41, 'Quarterly numbers – final.bin');
      fileId = await uploadAge(key, file);
      const way = await linkHeader(file);
      keyed = { ...(await makeLink(key, fileId, way.header)), identity: way.identity };
    });

    afterAll(async () => {
      // (Closing the browser ends the slowed download too, when its case did not run or failed.)
      await browser?.close();
    });

    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 900 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      it(`shows the real name, saves the plaintext through the Service Worker, and never sends the key (${name})`, async () => {
        const context = await browser.newContext({ viewport, acceptDownloads: true });
        const requests = recordRequests(context);
        const { page, problems } = await newPage(context);
        expect((await page.goto(`${keyed.url}#k=${keyed.identity}`))?.status()).toBe(200);
        await expect.poll(() => page.locator('h1').textContent()).toBe(file.name);
        await expect.poll(() => status(page).getAttribute('data-state')).toBe('ready');
        // The Service Worker is this origin's, scoped to the share pages only.
        const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
        expect(scope).toBe(`${server().origin}/share/`);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
        await screenshot(page, `e2e-share-page-${name}`, true);

        const download = await startDownload(page);
        expect(new URL(download.url()).pathname).toMatch(/^\/share\/_e2e-save\//);
        expect(download.suggestedFilename()).toBe(file.name);
        await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('done');
        expect(await download.failure()).toBeNull();
        expect(sha256(await readFile(await download.path()))).toBe(sha256(file.plaintext));

        // The key went nowhere: no request (URL, header, body) and no access-log entry holds it.
        expect(requests.length).toBeGreaterThan(0);
        expect(requests.filter((request) => request.includes(keyed.identity))).toEqual([]);
        const log = await api(server().origin, key, `/api/v2/links/${keyed.id}/access`);
        expect(log.status).toBe(200);
        expect(JSON.stringify(log.body)).not.toContain(keyed.identity);
        expect(JSON.stringify(log.body)).not.toContain(keyed.identity.toLowerCase());
        expect(problems).toEqual([]);
        await context.close();
      });
    }

    // Cut right after the second of four chunks: every byte there authenticates, but no final chunk.
    const cutAtChunk = (bytes: Buffer) => bytes.subarray(0, file.header.length + 16 + 2 * 65552);
    const flipNearEnd = (bytes: Buffer) => {
      const copy = Buffer.from(bytes);
      copy[copy.length - 20] = (copy[copy.length - 20] ?? 0) ^ 0x01;
      return copy;
    };

    // (A context each: in one page, Chromium held back the third such download in a row, as it may
    // for a site's repeated automatic downloads.)
    for (const [what, alter] of [
      ['cut short at a chunk boundary', cutAtChunk],
      ['cut inside its last chunk', (bytes: Buffer) => bytes.subarray(0, bytes.length - 100)],
      ['with a flipped byte near its end', flipNearEnd],
    ] as const) {
      it(`a download ${what} is an error on the page, and no complete file is saved`, async () => {
        const context = await browser.newContext({ acceptDownloads: true });
        const { page } = await newPage(context);
        await alterDownload(page, alter);
        await page.goto(`${keyed.url}#k=${keyed.identity}`);
        await expect.poll(() => status(page).getAttribute('data-state')).toBe('ready');
        await page.evaluate(() => navigator.serviceWorker.ready);
        const download = await startDownload(page);
        await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('error');
        expect(await status(page).textContent()).toMatch(/cut short or altered|not what its owner sent/);
        // The browser marks the download failed: no file stands complete under its name.
        expect(await download.failure()).not.toBeNull();
        await context.close();
      });
    }

    it('a file whose meta states another SHA-256 than its plaintext’s is an error, and no complete file is saved', async () => {
      // Every chunk opens (the payload is whole): only the SHA-256 against `meta` tells, hashed
      // beside the decryption in the page's Web Worker. 2 MiB: more than one batch handed over.
      const made = await ageFile(await newIdentity(), 2 * 1024 * 1024 + 5, 44, 'ledger.bin');
      const meta = sealMeta(made.fileKey, {
        name: 'ledger.bin',
        type: 'application/octet-stream',
        size: made.plaintext.length,
        sha256: sha256(made.plaintext).replace(/^./, (digit) => (digit === '0' ? '1' : '0')),
      });
      const id = await uploadAge(key, { ...made, meta });
      const way = await linkHeader(made);
      const link = await makeLink(key, id, way.header);
      const context = await browser.newContext({ acceptDownloads: true });
      const { page } = await newPage(context);
      await page.goto(`${link.url}#k=${way.identity}`);
      await expect.poll(() => status(page).getAttribute('data-state')).toBe('ready');
      const download = await startDownload(page);
      await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('error');
      expect(await status(page).textContent()).toMatch(/not what its owner sent/);
      expect(await download.failure()).not.toBeNull();
      await context.close();
    });

    it('an image previews after decryption, from a blob: URL the CSP allows', async () => {
      const picture = landscapePng(320, 200);
      const made = await ageFile(await newIdentity(), 0, 43, 'harbour.png', picture);
      const meta = sealMeta(made.fileKey, {
        name: 'harbour.png',
        type: 'image/png',
        size: picture.length,
        sha256: sha256(picture),
      });
      const id = await uploadAge(key, { ...made, meta });
      const way = await linkHeader(made);
      const link = await makeLink(key, id, way.header);
      const context = await browser.newContext();
      const { page, problems } = await newPage(context);
      await page.goto(`${link.url}#k=${way.identity}`);
      await page.getByRole('button', { name: 'Show preview' }).click();
      const image = page.getByRole('img', { name: 'Preview of harbour.png' });
      await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(320);
      expect(await image.getAttribute('src')).toMatch(/^blob:/);
      expect(problems).toEqual([]);
      await context.close();
    });

    it('a wrong key and a missing key are errors on the page, before anything downloads', async () => {
      const context = await browser.newContext();
      const { page, problems } = await newPage(context);
      const other = await newIdentity();
      await page.goto(`${keyed.url}#k=${other.identity}`);
      await expect.poll(() => status(page).getAttribute('data-state')).toBe('error');
      expect(await status(page).textContent()).toContain('does not open this file');
      await page.goto(keyed.url);
      await page.reload();
      await expect.poll(() => status(page).textContent()).toContain('This link is incomplete');
      expect(await page.getByRole('button', { name: /^Download \(/ }).isVisible()).toBe(false);
      expect(problems).toEqual([]);
      await context.close();
    });

    it('a passphrase link asks for the phrase, refuses a wrong one, and saves with the right one', async () => {
      const header = new TextDecoder().decode(
        await addRecipientHeader(file.fileKey, { passphrase: 'correct horse', logN: 10 }),
      );
      const link = await makeLink(key, fileId, header);
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, acceptDownloads: true });
      const { page, problems } = await newPage(context);
      await page.goto(link.url);
      const phrase = page.getByLabel('Passphrase');
      await phrase.fill('wrong horse');
      await page.getByRole('button', { name: 'Open' }).click();
      await expect.poll(() => status(page).textContent()).toBe('That passphrase does not open this file.');
      await phrase.fill('correct horse');
      await page.getByRole('button', { name: 'Open' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe(file.name);
      await page.evaluate(() => navigator.serviceWorker.ready);
      const download = await startDownload(page);
      await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('done');
      expect(sha256(await readFile(await download.path()))).toBe(sha256(file.plaintext));
      expect(problems).toEqual([]);
      await context.close();
    });

    describe('without a Service Worker (a private window that refuses it, or Safari)', () => {
      // One context for these: the Service Worker blocked, and a File System Access picker backed
      // by the origin private file system (the page's code runs as for a picker the visitor used;
      // the saved bytes are read back from there). The Blob tests delete the picker first.
      let context: BrowserContext;
      let page: Page;
      let problems: string[];

      /** The saved file in the origin private file system: its size and SHA-256, or null if there is none. */
      const opfsFile = (name: string) =>
        page.evaluate(async (name) => {
          const dir = await navigator.storage.getDirectory();
          const handle = await dir.getFileHandle(name).catch(() => null);
          if (!handle) return null;
          const bytes = await (await handle.getFile()).arrayBuffer();
          const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
          const hex = Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
          return { size: bytes.byteLength, sha256: hex };
        }, name);

      const clearOpfs = () =>
        page.evaluate(async () => {
          const dir = await navigator.storage.getDirectory();
          for await (const name of (dir as unknown as { keys(): AsyncIterable<string> }).keys()) {
            await dir.removeEntry(name);
          }
        });

      /** Opens the keyed link and waits until the page is ready to save. */
      async function openKeyed(url = `${keyed.url}#k=${keyed.identity}`) {
        // (Through about:blank: the same URL again would only move to its fragment, not load.)
        await page.goto('about:blank');
        await page.goto(url);
        await expect.poll(() => status(page).getAttribute('data-state')).toBe('ready');
      }

      const download = () => page.getByRole('button', { name: /^Download \(/ }).click();

      beforeAll(async () => {
        context = await browser.newContext({ serviceWorkers: 'block', acceptDownloads: true });
        await context.addInitScript(() => {
          Object.defineProperty(window, 'showSaveFilePicker', {
            configurable: true,
            writable: true,
            value: async ({ suggestedName }: { suggestedName: string }) =>
              (await navigator.storage.getDirectory()).getFileHandle(suggestedName, { create: true }),
          });
        });
        ({ page, problems } = await newPage(context));
      });

      afterAll(async () => {
        await context?.close();
      });

      it('saves through the File System Access API: the file holds the plaintext', async () => {
        await openKeyed();
        expect(await page.evaluate(() => navigator.serviceWorker.controller)).toBeNull();
        await download();
        await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('done');
        expect(await opfsFile(file.name)).toEqual({ size: file.plaintext.length, sha256: sha256(file.plaintext) });
        expect(problems).toEqual([]);
        await clearOpfs();
      });

      for (const [what, alter] of [
        ['cut short at a chunk boundary', cutAtChunk],
        ['with a flipped byte near its end', flipNearEnd],
      ] as const) {
        it(`a download ${what} through the File System Access API commits nothing: the file stays empty`, async () => {
          await alterDownload(page, alter);
          try {
            await openKeyed();
            await download();
            await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('error');
            expect(await status(page).textContent()).toMatch(/cut short or altered|not what its owner sent/);
            // The picker made the file; the aborted writable left it as it was: nothing written.
            expect(await opfsFile(file.name)).toEqual({ size: 0, sha256: sha256(new Uint8Array()) });
          } finally {
            await page.unrouteAll();
            await clearOpfs();
          }
        });
      }

      it('without a picker either, saves through a Blob once every byte is checked', async () => {
        await openKeyed();
        await page.evaluate(() => delete (window as { showSaveFilePicker?: unknown }).showSaveFilePicker);
        expect(await page.evaluate(() => 'showSaveFilePicker' in window)).toBe(false);
        const [saved] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), download()]);
        expect(new URL(saved.url()).protocol).toBe('blob:');
        expect(saved.suggestedFilename()).toBe(file.name);
        await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('done');
        expect(sha256(await readFile(await saved.path()))).toBe(sha256(file.plaintext));
        expect(problems).toEqual([]);
      });

      it('through a Blob, a file above the stated limit (512 MiB) is refused with a clear message, before any download', async () => {
        // The limit applies to the size `meta` states: a small file whose sealed `meta` says 600 MiB
        // stands for a big one (no test hook, and no 600 MiB in the suite).
        const big = await ageFile(await newIdentity(), 1000, 44, 'archive.tar');
        const meta = sealMeta(big.fileKey, {
          name: 'archive.tar',
          type: 'application/x-tar',
          size: 600 * 1024 * 1024,
          sha256: sha256(big.plaintext),
        });
        const id = await uploadAge(key, { ...big, meta });
        const way = await linkHeader(big);
        const link = await makeLink(key, id, way.header);
        await openKeyed(`${link.url}#k=${way.identity}`);
        await page.evaluate(() => delete (window as { showSaveFilePicker?: unknown }).showSaveFilePicker);
        const downloads: string[] = [];
        page.on('request', (request) => {
          if (request.url().includes('/download')) downloads.push(request.url());
        });
        await page.getByRole('button', { name: 'Download (600 MiB)' }).click();
        await expect.poll(() => status(page).getAttribute('data-state')).toBe('error');
        expect(await status(page).textContent()).toBe(
          'This browser can save at most 512 MiB from a page: open this file with edgeshare’s command line or age.',
        );
        expect(downloads).toEqual([]);
      });
    });

    it('a passphrase link whose scrypt work factor is above 2^20 is refused with a clear message', async () => {
      // A well-formed header asking 2^21 (the page refuses before any scrypt work).
      const stanza = { args: ['scrypt', 'AAAAAAAAAAAAAAAAAAAAAA', '21'], body: new Uint8Array(32) };
      const header = new TextDecoder().decode(encodeHeader([stanza], new Uint8Array(32)));
      const link = await makeLink(key, fileId, header);
      const context = await browser.newContext();
      const { page } = await newPage(context);
      await page.goto(link.url);
      await page.getByLabel('Passphrase').fill('anything');
      await page.getByRole('button', { name: 'Open' }).click();
      await expect.poll(() => status(page).textContent()).toContain('above 2^20');
      await context.close();
    });

    it('a download slowed past a minute still saves every byte through the Service Worker', {
      timeout: 300_000,
    }, async () => {
      // Begun in beforeAll (saveSlowly, above), and last here: its minute of waiting overlaps the other cases.
      const saved = await slowSave;
      // A floor set by the throttle, not a timing guess: the save really outlived a minute.
      expect(saved.ms).toBeGreaterThan(60_000);
      expect(saved.failure).toBeNull();
      expect(saved.sha256).toBe(saved.expected);
      expect(saved.problems).toEqual([]);
    });
  },
);
