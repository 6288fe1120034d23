/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks here run in the browser.)
// The share page in real Chromium: the image preview shows, viewing never counts, the Download
// button downloads and counts, a private link gets the 404 page, and the link unfurls (OG tags).
import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  createKey,
  expectDatesOneWay,
  launchBrowser,
  newPage,
  screenshot,
  server,
  warnIfNoChromium,
} from '../helpers/browser.ts';
import { landscapePng } from '../helpers/png.ts';

type Uploaded = { id: string; shareUrl: string; size: number };

async function upload(key: string, name: string, type: string, content: Uint8Array | string, isPublic = true) {
  const form = new FormData();
  form.append('file', new File([typeof content === 'string' ? content : new Uint8Array(content)], name, { type }));
  form.append('isPublic', String(isPublic));
  const { status, body } = await api<{ data: Uploaded }>(server().origin, key, '/api/v2/upload', {
    method: 'POST',
    body: form,
  });
  expect(status).toBe(201);
  return body.data;
}

async function downloadCount(key: string, id: string): Promise<number> {
  const { body } = await api<{ data: { downloadCount: number } }>(server().origin, key, `/api/v2/files/${id}`);
  return body.data.downloadCount;
}

describe.runIf(warnIfNoChromium('the share page browser tests'))('the share page in Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let key: string;
  const picture = landscapePng(480, 300);

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1000, height: 760 }, acceptDownloads: true });
    key = await createKey('share page browser test');
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('shows the image preview, counts no view, and downloads (and counts) with the Download button', async () => {
    const file = await upload(key, 'Hills at dusk.png', 'image/png', picture);
    const { page, problems } = await newPage(context);

    for (let view = 0; view < 2; view++) {
      const response = await page.goto(file.shareUrl);
      expect(response?.status()).toBe(200);
      const image = page.getByRole('img', { name: 'Preview of Hills at dusk.png' });
      await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(480);
      expect(await image.isVisible()).toBe(true);
    }
    await expect.poll(() => downloadCount(key, file.id)).toBe(0);
    await expect(page.locator('h1').textContent()).resolves.toBe('Hills at dusk.png');
    // The upload time as drawn, written as every page writes dates (no script rewrites it).
    expect(await expectDatesOneWay(page)).toHaveLength(1);
    await screenshot(page, 'share-page');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: /^Download/ }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Hills at dusk.png');
    const saved = await download.path();
    expect(Buffer.compare(await readFile(saved), picture)).toBe(0);
    // A default-link download reaches the file's row from its counter's alarm, within seconds.
    await expect.poll(() => downloadCount(key, file.id), { timeout: 15_000, interval: 500 }).toBe(1);
    expect(problems).toEqual([]);
  });

  it('reaches the Download button from the keyboard, past a skip link', async () => {
    const file = await upload(key, 'keyboard.png', 'image/png', picture);
    const { page } = await newPage(context);
    await page.goto(file.shareUrl);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toMatch(/^Download \(/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(download.suggestedFilename()).toBe('keyboard.png');
    await download.path();
  });

  it('unfurls: Open Graph and Twitter card tags with absolute URLs, the image itself as og:image', async () => {
    const file = await upload(key, 'Unfurl me.png', 'image/png', picture);
    const { page } = await newPage(context);
    await page.goto(file.shareUrl);
    const tag = (selector: string) => page.locator(`meta[${selector}]`).getAttribute('content');
    expect(await tag('property="og:title"')).toBe('Unfurl me.png');
    expect(await tag('property="og:url"')).toBe(file.shareUrl);
    expect(await tag('property="og:image"')).toBe(`${file.shareUrl}/view`);
    expect(await tag('name="twitter:card"')).toBe('summary_large_image');
    expect(await tag('name="twitter:image"')).toBe(`${file.shareUrl}/view`);
    // What a chat app's unfurler then fetches: the image, and it does not count.
    const unfurled = await fetch(`${file.shareUrl}/view`);
    expect(unfurled.headers.get('content-type')).toBe('image/png');
    expect(Buffer.compare(Buffer.from(await unfurled.arrayBuffer()), picture)).toBe(0);
    expect(await downloadCount(key, file.id)).toBe(0);
  });

  it('shows the same friendly 404 page for a private link and an unknown one', async () => {
    const file = await upload(key, 'private.txt', 'text/plain', 'not for you', false);
    const { page, problems } = await newPage(context);
    const pages: string[] = [];
    for (const url of [file.shareUrl, `${server().origin}/share/${'Z'.repeat(32)}`]) {
      const response = await page.goto(url);
      expect(response?.status()).toBe(404);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        'This link does not lead to a file',
      );
      // Styled like every page: the stylesheet loaded and applied.
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('main') as Element).maxWidth)).toBe(
        '768px',
      );
      pages.push(await page.locator('main').innerHTML());
    }
    expect(pages[0]).toBe(pages[1]);
    expect(pages[0]).not.toContain('private.txt');
    expect(problems).toEqual([]);
  });

  it('serves its static files from the Worker (assets first), with nosniff', async () => {
    const { origin } = server();
    for (const [path, type] of [
      ['/assets/style.css', 'text/css'],
      ['/assets/account-keys.js', 'text/javascript'],
      ['/favicon.ico', 'image/'],
      ['/assets/vendor/swagger-ui/swagger-ui-bundle.js', 'text/javascript'],
    ] as const) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toContain(type);
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      await response.arrayBuffer();
    }
    // Everything else still reaches the Worker: an unknown path is the API's JSON 404.
    const unknown = await fetch(`${origin}/assets-but-not/style.css`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { code: string }).code).toBe('NOT_FOUND');
  });
});
