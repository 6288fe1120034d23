/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks here run in the browser.)
// A collection's share page in real Chromium, on a desktop and 390 px wide: the name, the note,
// every file with its preview and its own download, and "Download all" (the ZIP, the same bytes
// as the owner's archive); nothing runs off the side on a phone.
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createKey, launchBrowser, newPage, screenshot, server, warnIfNoChromium } from '../helpers/browser.ts';
import { landscapePng } from '../helpers/png.ts';

async function upload(key: string, name: string, type: string, content: Uint8Array | string) {
  const form = new FormData();
  form.append('file', new File([typeof content === 'string' ? content : new Uint8Array(content)], name, { type }));
  const { status, body } = await api<{ data: { id: string } }>(server().origin, key, '/api/v2/upload', {
    method: 'POST',
    body: form,
  });
  expect(status).toBe(201);
  return body.data.id;
}

async function post<T>(key: string, path: string, body: unknown): Promise<T> {
  const { status, body: answer } = await api<{ data: T }>(server().origin, key, path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(status, JSON.stringify(answer)).toBe(201);
  return answer.data;
}

describe.runIf(warnIfNoChromium('the collection page browser tests'))('a collection’s share page in Chromium', () => {
  let browser: Browser;
  let key: string;
  let url: string;
  let collectionId: string;
  const picture = landscapePng(480, 300);
  const notes = 'Meet at the harbour at nine.\n';

  beforeAll(async () => {
    browser = await launchBrowser();
    key = await createKey('collection page browser test');
    const image = await upload(key, 'Harbour at dawn.png', 'image/png', picture);
    const text = await upload(key, 'plan.txt', 'text/plain', notes);
    const collection = await post<{ id: string }>(key, '/api/v2/collections', {
      name: 'Weekend sailing',
      note: 'Photos and the plan.',
      fileIds: [image, text],
    });
    collectionId = collection.id;
    url = (await post<{ url: string }>(key, `/api/v2/collections/${collection.id}/links`, {})).url;
  });

  afterAll(async () => {
    await browser?.close();
  });

  for (const [name, viewport] of [
    ['desktop', { width: 1200, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    it(`shows every file with its preview and download, and downloads all as the ZIP (${name})`, async () => {
      const context = await browser.newContext({ viewport, acceptDownloads: true });
      const { page, problems } = await newPage(context);
      expect((await page.goto(url))?.status()).toBe(200);
      await expect(page.locator('h1').textContent()).resolves.toBe('Weekend sailing');
      expect(await page.getByText('Photos and the plan.').isVisible()).toBe(true);
      const image = page.getByRole('img', { name: 'Preview of Harbour at dawn.png' });
      await image.scrollIntoViewIfNeeded();
      await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(480);
      expect(await page.getByLabel('Contents of plan.txt').textContent()).toBe(notes);
      // Nothing wider than the screen, the image included.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await screenshot(page, `collection-page-${name}`, true);

      // One file's own button.
      const [one] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download plan.txt (29 bytes)' }).click(),
      ]);
      expect(one.suggestedFilename()).toBe('plan.txt');
      expect(await readFile(await one.path(), 'utf8')).toBe(notes);

      // Download all: the ZIP, byte for byte the owner's archive.
      const [all] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: /^Download all \(ZIP, / }).click(),
      ]);
      expect(all.suggestedFilename()).toBe('Weekend sailing.zip');
      const owners = await fetch(`${server().origin}/api/v2/collections/${collectionId}/archive`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(Buffer.compare(await readFile(await all.path()), Buffer.from(await owners.arrayBuffer()))).toBe(0);
      expect(problems).toEqual([]);
      await context.close();
    });
  }
});
