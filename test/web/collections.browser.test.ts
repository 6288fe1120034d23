/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks here run in the browser.)
// The web app's views and collections in real Chromium against wrangler dev: navigation between
// the views (also at 390 px, where file rows are compact cards), selecting files and making a
// collection of them, adding to it, removing a file, making and copying its link (offering only
// what the policy allows, as a file's link form does), and the link working for a visitor.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createKey, launchBrowser, newPage, screenshot, server, warnIfNoChromium } from '../helpers/browser.ts';

type Collection = { id: string; name: string; fileCount: number };
type Link = { url: string; label: string | null; maxDownloads: number | null; collectionId: string | null };

async function upload(key: string, name: string, content: string): Promise<string> {
  const form = new FormData();
  form.append('file', new File([content], name, { type: 'text/plain' }));
  const { status, body } = await api<{ data: { id: string } }>(server().origin, key, '/api/v2/upload', {
    method: 'POST',
    body: form,
  });
  expect(status).toBe(201);
  return body.data.id;
}

async function collectionsOf(key: string): Promise<Collection[]> {
  const { body } = await api<{ data: { collections: Collection[] } }>(server().origin, key, '/api/v2/collections');
  return body.data.collections;
}

async function membersOf(key: string, id: string): Promise<string[]> {
  const { body } = await api<{ data: { files: { originalName: string }[] } }>(
    server().origin,
    key,
    `/api/v2/collections/${id}/files`,
  );
  return body.data.files.map((file) => file.originalName);
}

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name, exact: true });

async function signIn(page: Page, key: string) {
  await page.goto(`${server().origin}/`);
  await page.getByLabel('API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.getByRole('heading', { name: 'Your files' }).waitFor();
}

const fileRow = (page: Page, name: string) => page.locator('#files-body tr').filter({ hasText: name });

describe.runIf(warnIfNoChromium('the collections browser tests'))('views and collections in the web app', () => {
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server().origin });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('shows one view at a time, from its navigation and its address, at 390 px too', async () => {
    const key = await createKey('web app views');
    await upload(key, 'a-rather-long-file-name-for-a-phone-screen.txt', 'phone');
    const { page, problems } = await newPage(context);
    await signIn(page, key);
    expect(await nav(page, 'Files').getAttribute('aria-current')).toBe('page');
    for (const [link, heading] of [
      ['Collections', 'Collections'],
      ['File requests', 'File requests'],
      ['Webhooks', 'Webhooks'],
      ['Files', 'Your files'],
    ] as const) {
      await nav(page, link).click();
      await page.getByRole('heading', { name: heading, exact: true }).waitFor();
      expect(await nav(page, link).getAttribute('aria-current')).toBe('page');
      // The other views are hidden.
      expect(await page.locator('.view:not([hidden])').count()).toBe(1);
    }
    // The address opens a view, and back returns to the one before.
    await page.goto(`${server().origin}/#collections`);
    await page.getByRole('heading', { name: 'Collections', exact: true }).waitFor();
    await nav(page, 'Webhooks').click();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Collections', exact: true }).waitFor();

    // A phone: the navigation fits, and a file row is a compact card.
    await page.setViewportSize({ width: 390, height: 844 });
    await nav(page, 'Files').click();
    const row = fileRow(page, 'a-rather-long-file-name');
    await row.waitFor();
    for (const name of ['Files', 'Collections', 'File requests', 'Webhooks']) {
      expect(await nav(page, name).isVisible()).toBe(true);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // Size and upload time share one line under the name.
    const tops = await row.evaluate((tr: HTMLTableRowElement) =>
      ['Size', 'Uploaded'].map((label) => tr.querySelector(`td[data-label="${label}"]`)?.getBoundingClientRect().top),
    );
    expect(tops[0], JSON.stringify(tops)).toBeTypeOf('number');
    expect(Math.abs((tops[0] ?? 0) - (tops[1] ?? 0)), JSON.stringify(tops)).toBeLessThan(4);
    await screenshot(page, 'web-app-phone', true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('makes a collection of selected files, adds and removes files, makes and copies its link', async () => {
    const key = await createKey('web app collections');
    for (const name of ['first.txt', 'second.txt', 'third.txt']) await upload(key, name, `content of ${name}`);
    const { page, problems } = await newPage(context);
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(page, key);

    // Select two files and make a collection of them.
    await fileRow(page, 'first.txt').waitFor();
    await page.getByLabel('Select first.txt').check();
    await page.getByLabel('Select second.txt').check();
    expect(await page.getByLabel('Collection', { exact: true }).inputValue()).toBe('');
    await page.getByLabel('New collection’s name').fill('Trip');
    await page.getByRole('button', { name: 'Add selected (2) to collection' }).click();
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Made the collection “Trip” of 2 files.');
    const [trip] = await collectionsOf(key);
    expect(trip).toMatchObject({ name: 'Trip', fileCount: 2 });
    expect(await membersOf(key, trip?.id ?? '')).toEqual(expect.arrayContaining(['first.txt', 'second.txt']));

    // Add a third to it: the collection is now the one chosen.
    await page.getByLabel('Select third.txt').check();
    expect(await page.getByLabel('Collection', { exact: true }).inputValue()).toBe(trip?.id);
    await page.getByRole('button', { name: 'Add selected (1) to collection' }).click();
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Added 1 file to “Trip”.');
    expect(await membersOf(key, trip?.id ?? '')).toHaveLength(3);

    // The Collections view: open it, remove one.
    await nav(page, 'Collections').click();
    await page.getByRole('button', { name: 'Open Trip' }).click();
    await page.getByRole('heading', { name: 'Trip', exact: true }).waitFor();
    const members = page.locator('#collection-files li');
    await expect.poll(() => members.count()).toBe(3);
    await page.getByRole('button', { name: 'Remove second.txt from Trip' }).click();
    await expect.poll(() => members.count()).toBe(2);
    expect(await membersOf(key, trip?.id ?? '')).not.toContain('second.txt');

    // Make a collection here too (empty).
    await page.getByLabel('Name', { exact: true }).fill('Later');
    await page.getByLabel('Note for visitors (optional)').fill('Coming soon');
    await page.getByRole('button', { name: 'Make collection' }).click();
    await page.locator('#collections-list li').filter({ hasText: 'Later' }).waitFor();

    // Its links: make one with a label and a limit; it is copied, and a visitor gets the ZIP.
    await page.getByRole('button', { name: 'Share links of Trip' }).click();
    const dialog = page.locator('#links-dialog');
    await dialog.getByText('No links made to this collection yet.').waitFor();
    expect(await dialog.getByLabel('Link expires').locator('option').first().textContent()).toBe('Never');
    await dialog.getByLabel('Label (only you see it)').fill('For the crew');
    await dialog.getByLabel('Download limit (optional)').fill('3');
    await dialog.getByRole('button', { name: 'Make link' }).click();
    await dialog.getByText('For the crew').waitFor();
    const { body } = await api<{ data: { links: Link[] } }>(
      server().origin,
      key,
      `/api/v2/collections/${trip?.id}/links`,
    );
    const made = body.data.links[0];
    expect(made).toMatchObject({ label: 'For the crew', maxDownloads: 3, collectionId: trip?.id });
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(made?.url);
    await screenshot(page, 'web-app-collection-links');
    const zip = await fetch(`${made?.url}/archive.zip`);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    await zip.arrayBuffer();
    // The collection's access log, through the dialog.
    await dialog.getByRole('button', { name: 'Access log of all these links' }).click();
    await expect.poll(() => dialog.locator('#links-access-log tbody tr').count()).toBeGreaterThanOrEqual(1);
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(problems).toEqual([]);
    await page.close();
  });
});
