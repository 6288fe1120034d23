/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks here run in the browser.)
// A collection's share page with end-to-end encrypted members in real Chromium (issue 41,
// "Collections"): each encrypted member shows its real name (its `meta` opened with the link's
// key from the fragment), downloads decrypted, and "Download all" is a ZIP of the plaintext built
// in the browser (client-zip) and saved through the Service Worker; unzipped here, every entry has
// its plaintext's SHA-256. At 1280 and 390 px, without CSP violations.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRecipientHeader } from '../../src/lib/age/index.ts';
import { type AgeFile, ageFile, type Identity, newIdentity } from '../helpers/age-files.ts';
import { api, createKey, launchBrowser, newPage, screenshot, server, warnIfNoChromium } from '../helpers/browser.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function call<T>(key: string, path: string, init: RequestInit): Promise<T> {
  const { status, body } = await api<{ data: T }>(server().origin, key, path, init);
  expect(status, JSON.stringify(body)).toBe(201);
  return body.data;
}

const post = <T>(key: string, path: string, body: unknown) =>
  call<T>(key, path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

const status = (page: Page) => page.locator('.e2e-status');

describe.runIf(warnIfNoChromium('the encrypted collection page browser tests'))(
  'a collection page with encrypted members in Chromium',
  () => {
    let browser: Browser;
    let url: string;
    let link: Identity;
    let secrets: AgeFile[];

    /** Opens the collection page with its key, once ready, and clicks "Download all": the download begun. */
    async function downloadAll(page: Page) {
      await page.goto(`${url}#k=${link.identity}`);
      await expect.poll(() => status(page).getAttribute('data-state')).toBe('ready');
      await page.evaluate(() => navigator.serviceWorker.ready);
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 30_000 }),
        page.getByRole('link', { name: /^Download all/ }).click(),
      ]);
      return download;
    }

    const plain = 'Meet at the harbour at nine.\n';

    beforeAll(async () => {
      browser = await launchBrowser();
      const key = await createKey('encrypted collection page browser test');
      const owner = await newIdentity();
      secrets = [
        await ageFile(owner, 2 * 65536 + 5, 51, 'Contract (signed).pdf'),
        await ageFile(owner, 70_000, 52, 'Passport scan.jpg'),
      ];
      const ids: string[] = [];
      for (const secret of secrets) {
        const uploaded = await call<{ id: string }>(key, '/api/v2/upload/f.age?encryption=age', {
          method: 'PUT',
          headers: { 'Edgeshare-Meta': secret.meta },
          body: new Uint8Array(secret.bytes),
        });
        ids.push(uploaded.id);
      }
      const form = new FormData();
      form.append('file', new File([plain], 'plan.txt', { type: 'text/plain' }));
      ids.push((await call<{ id: string }>(key, '/api/v2/upload', { method: 'POST', body: form })).id);
      const collection = await post<{ id: string }>(key, '/api/v2/collections', {
        name: 'Moving abroad',
        fileIds: ids,
      });
      // The link's one key opens every encrypted member: one header per member, to its recipient.
      link = await newIdentity();
      const e2eHeaders: Record<string, string> = {};
      for (const [i, secret] of secrets.entries()) {
        const header = await addRecipientHeader(secret.fileKey, { recipient: link.recipient });
        e2eHeaders[ids[i] as string] = new TextDecoder().decode(header);
      }
      url = (await post<{ url: string }>(key, `/api/v2/collections/${collection.id}/links`, { e2eHeaders })).url;
    });

    afterAll(async () => {
      await browser?.close();
    });

    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 900 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      it(`lists encrypted members by their real names, and saves one decrypted (${name})`, async () => {
        const context = await browser.newContext({ viewport, acceptDownloads: true });
        const { page, problems } = await newPage(context);
        expect((await page.goto(`${url}#k=${link.identity}`))?.status()).toBe(200);
        await expect.poll(() => status(page).getAttribute('data-state')).toBe('ready');
        const names = await page.locator('.file-name').allTextContents();
        expect(names).toEqual([...secrets.map((secret) => secret.name), 'plan.txt']);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
        await screenshot(page, `e2e-collection-page-${name}`, true);
        await page.evaluate(() => navigator.serviceWorker.ready);
        const secret = secrets[1] as AgeFile;
        const [download] = await Promise.all([
          page.waitForEvent('download', { timeout: 30_000 }),
          page.getByRole('link', { name: new RegExp(`^Download ${secret.name.replace('.', '\\.')}`) }).click(),
        ]);
        expect(download.suggestedFilename()).toBe(secret.name);
        await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('done');
        expect(sha256(await readFile(await download.path()))).toBe(sha256(secret.plaintext));
        expect(problems).toEqual([]);
        await context.close();
      });
    }

    it('"Download all" saves a ZIP of the plaintext built in the browser', async () => {
      const context = await browser.newContext({ acceptDownloads: true });
      const { page, problems } = await newPage(context);
      const download = await downloadAll(page);
      expect(new URL(download.url()).pathname).toMatch(/^\/share\/_e2e-save\//);
      expect(download.suggestedFilename()).toBe('Moving abroad.zip');
      await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('done');
      const dir = await mkdtemp(join(tmpdir(), 'e2e-zip-'));
      try {
        await promisify(execFile)('unzip', ['-q', await download.path(), '-d', dir]);
        for (const secret of secrets) {
          expect(sha256(await readFile(join(dir, secret.name))), secret.name).toBe(sha256(secret.plaintext));
        }
        expect(await readFile(join(dir, 'plan.txt'), 'utf8')).toBe(plain);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
      expect(problems).toEqual([]);
      await context.close();
    });

    it('"Download all" with a member cut short is an error on the page, and no complete ZIP is saved', async () => {
      const context = await browser.newContext({ acceptDownloads: true });
      const { page } = await newPage(context);
      // The first member's download loses its last 100 bytes (inside its final chunk).
      await page.route(
        (target) => target.pathname.includes('/files/'),
        async (route) => {
          const response = await route.fetch();
          const body = (await response.body()).subarray(0, -100);
          const headers = { ...response.headers(), 'content-length': String(body.length) };
          await route.fulfill({ status: response.status(), headers, body });
        },
      );
      const download = await downloadAll(page);
      await expect.poll(() => status(page).getAttribute('data-state'), { timeout: 30_000 }).toBe('error');
      expect(await status(page).textContent()).toContain('cut short or altered');
      expect(await download.failure()).not.toBeNull();
      await context.close();
    });
  },
);
