/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks here run in the browser.)
// Made share links in real Chromium: the password form and its grant cookie (HttpOnly, SameSite,
// scoped to that link only), and the web app's link management (make with password, limit and
// expiry; copy; revoke).
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createKey, launchBrowser, newPage, screenshot, server, warnIfNoChromium } from '../helpers/browser.ts';
import { landscapePng } from '../helpers/png.ts';

type Link = {
  id: string;
  url: string;
  label: string | null;
  hasPassword: boolean;
  maxDownloads: number | null;
  expiresAt: string | null;
  status: string;
};

const PASSWORD = 'open sesame 42';

async function upload(key: string, name: string, isPublic: boolean) {
  const form = new FormData();
  form.append('file', new File([new Uint8Array(landscapePng(320, 200))], name, { type: 'image/png' }));
  form.append('isPublic', String(isPublic));
  const { status, body } = await api<{ data: { id: string } }>(server().origin, key, '/api/v2/upload', {
    method: 'POST',
    body: form,
  });
  expect(status).toBe(201);
  return body.data.id;
}

async function makeLink(key: string, fileId: string, options: Record<string, unknown>) {
  const { status, body } = await api<{ data: Link }>(server().origin, key, `/api/v2/files/${fileId}/links`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(options),
  });
  expect(status).toBe(201);
  return body.data;
}

async function linksOf(key: string, fileId: string) {
  const { body } = await api<{ data: { links: Link[] } }>(server().origin, key, `/api/v2/files/${fileId}/links`);
  return body.data.links;
}

describe.runIf(warnIfNoChromium('the share link browser tests'))('made share links in Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let key: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server().origin });
    key = await createKey('share links browser test');
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('asks for the password in a form, then shows the file with a grant cookie for this link only', async () => {
    const fileId = await upload(key, 'Private plans.png', false);
    const link = await makeLink(key, fileId, { password: PASSWORD });
    const other = await makeLink(key, fileId, { password: PASSWORD });
    const { page, problems } = await newPage(context);

    const first = await page.goto(link.url);
    expect(first?.status()).toBe(200);
    expect(await page.title()).not.toContain('Private plans');
    expect(await page.content()).not.toContain('Private plans');
    expect(await page.locator('img[alt^="Preview"]').count()).toBe(0);
    await screenshot(page, 'share-link-password');

    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Open' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not right');
    expect(page.url()).toBe(link.url);
    expect(await context.cookies(link.url)).toEqual([]);

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.locator('h1', { hasText: 'Private plans.png' }).waitFor();
    // The password is in no address the browser went to.
    expect(page.url()).toBe(link.url);
    const image = page.getByRole('img', { name: 'Preview of Private plans.png' });
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(320);

    const path = new URL(link.url).pathname;
    const cookies = await context.cookies(link.url);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ path, httpOnly: true, sameSite: 'Strict' });
    expect(cookies[0]?.expires ?? 0).toBeGreaterThan(Date.now() / 1000);
    expect(cookies[0]?.expires ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(Date.now() / 1000 + 3600);
    // Scripts on the page cannot read it, and it goes to no other path.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await context.cookies(other.url)).toEqual([]);
    expect(await context.cookies(`${server().origin}/`)).toEqual([]);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: /^Download/ }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Private plans.png');

    // The other link still asks.
    await page.goto(other.url);
    expect(await page.getByLabel('Password').isVisible()).toBe(true);
    expect(problems.filter((text) => !text.includes('status of 401'))).toEqual([]);
    await page.close();
  });

  it('lists, makes (password, limit, expiry), copies and revokes a file’s links in the web app', async () => {
    const fileId = await upload(key, 'Handout.png', true);
    await makeLink(key, fileId, { label: 'Existing link' });
    const { page, problems } = await newPage(context);
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${server().origin}/`);
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByRole('heading', { name: 'Your files' }).waitFor();

    await page.getByRole('button', { name: 'Share links of Handout.png' }).click();
    const dialog = page.locator('#links-dialog');
    await dialog.getByText('Existing link').waitFor();

    await dialog.getByLabel('Label (only you see it)').fill('For the class');
    await dialog.getByLabel('Password (optional)').fill(PASSWORD);
    await dialog.getByLabel('Download limit (optional)').fill('2');
    await dialog.getByLabel('Link expires').selectOption({ label: 'In 1 day' });
    await dialog.getByRole('button', { name: 'Make link' }).click();
    await dialog.getByText('For the class').waitFor();
    await screenshot(page, 'web-app-share-links');

    const made = (await linksOf(key, fileId)).find((link) => link.label === 'For the class');
    expect(made).toMatchObject({ hasPassword: true, maxDownloads: 2, status: 'active' });
    const hours = (Date.parse(made?.expiresAt ?? '') - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23);
    expect(hours).toBeLessThanOrEqual(24);
    // Made and copied at once.
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(made?.url);
    const item = dialog.locator('li').filter({ hasText: 'For the class' });
    expect(await item.textContent()).toContain('0 of 2 downloads');
    expect(await item.textContent()).not.toContain(PASSWORD);

    await page.evaluate(() => navigator.clipboard.writeText(''));
    await dialog.getByRole('button', { name: 'Copy Existing link' }).click();
    const existing = (await linksOf(key, fileId)).find((link) => link.label === 'Existing link');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(existing?.url);

    await dialog.getByRole('button', { name: 'Revoke For the class' }).click();
    await expect.poll(() => item.getAttribute('data-status')).toBe('revoked');
    expect((await linksOf(key, fileId)).find((link) => link.label === 'For the class')?.status).toBe('revoked');
    const gone = await fetch(`${made?.url}/download`);
    expect(gone.status).toBe(404);

    await dialog.getByRole('button', { name: 'Close' }).click();
    expect(await dialog.isVisible()).toBe(false);
    expect(problems).toEqual([]);
  });

  it('shows each link’s downloads, last access and visitors, and its access log', async () => {
    const fileId = await upload(key, 'Poster.png', true);
    const link = await makeLink(key, fileId, { label: 'Poster link' });
    expect((await fetch(`${link.url}/download`, { headers: { 'User-Agent': 'curl/8.5.0' } })).status).toBe(200);
    await fetch(link.url).then((response) => response.arrayBuffer());
    // Recording runs after each answer: wait until the link's record has both visits.
    await expect
      .poll(async () => (await linksOf(key, fileId))[0] as unknown as { visitors: number }, { timeout: 10_000 })
      .toMatchObject({ visitors: 1 });

    const { page, problems } = await newPage(context);
    await page.goto(`${server().origin}/`);
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByRole('button', { name: 'Share links of Poster.png' }).click();
    const dialog = page.locator('#links-dialog');
    const item = dialog.locator('li').filter({ hasText: 'Poster link' });
    await item.waitFor();
    expect(await item.textContent()).toContain('1 downloads');
    expect(await item.textContent()).toMatch(/last access \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC · 1 visitor(?!s)/);

    await item.getByRole('button', { name: 'Access log of Poster link' }).click();
    const log = item.getByRole('region', { name: 'Access log of Poster link' });
    const rows = log.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain('Page');
    expect(await rows.nth(1).textContent()).toContain('Download');
    expect(await rows.nth(1).textContent()).toContain('Served (200)');
    expect(await rows.nth(1).textContent()).toContain('curl');
    await screenshot(page, 'web-app-access-log');

    // The file's links together: the same two visits.
    await dialog.getByRole('button', { name: 'Access log of all these links' }).click();
    const all = dialog.getByRole('region', { name: 'Access log of the file’s links' });
    await expect.poll(() => all.locator('tbody tr').count()).toBe(2);
    expect(problems).toEqual([]);
    await page.close();
  });
});
