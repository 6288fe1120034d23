/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks here run in the browser.)
// The web app under a policy, in real Chromium against the shared `wrangler dev`, for keys of an
// account whose own bounds (set through the admin API, as an operator overrides the configuration
// per account: docs/policy.md) are the policy: it reads GET /api/v2/policy and offers only the
// choices the bounds allow (the expiry of uploads, of a file and of a link; a link's password and
// download cap; a file request's lifetime, size and password; under link bounds no public files,
// only made links), and what it makes with them is taken.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  launchBrowser,
  newPage,
  screenshot,
  server as sharedServer,
  warnIfNoChromium,
} from '../helpers/browser.ts';

const DAY = 86_400;
const MiB = 1024 * 1024;
const POLICY = {
  fileMaxExpirySeconds: 2 * DAY,
  fileRequireExpiry: true,
  linkMaxExpirySeconds: 7 * DAY,
  linkRequirePassword: true,
  linkMaxDownloads: 5,
  passwordMinLength: 10,
  requestMaxExpirySeconds: 3 * DAY,
  requestMaxBytes: 10 * MiB,
};

/** The first key of a new account with POLICY as its own bounds (POST /admin/accounts). */
async function policyKey(name: string): Promise<string> {
  const { origin, adminToken } = sharedServer();
  const response = await fetch(`${origin}/admin/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, policy: POLICY }),
  });
  const body = (await response.json()) as { data?: { key?: { key?: string } } };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.data?.key?.key ?? '';
}

/** The labels of a <select>'s options, and the one selected. */
const optionsOf = (page: Page, selector: string) =>
  page.locator(selector).evaluate((select: HTMLSelectElement) => ({
    options: Array.from(select.options).map((option) => option.text),
    selected: select.selectedOptions[0]?.text ?? '',
  }));

const daysUntil = (iso: string | null) => (Date.parse(iso ?? '') - Date.now()) / (DAY * 1000);

describe.runIf(warnIfNoChromium('the web app policy browser tests'))('the web app under a policy, in Chromium', () => {
  const server = sharedServer();
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('offers only the expiries, passwords, caps and request limits the policy allows, and makes what they allow', async () => {
    const key = await policyKey('policy browser test');
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    const { page, problems } = await newPage(context);
    await page.goto(`${server.origin}/`);
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByRole('heading', { name: 'Your files' }).waitFor();

    // Uploads: no "service default" (files must expire), nothing past 2 days; the longest chosen.
    await expect
      .poll(() => optionsOf(page, '#upload-expiry'))
      .toEqual({ options: ['In 1 hour', 'In 1 day', 'In 2 days'], selected: 'In 2 days' });
    // Links need a password and a cap, which a default link cannot carry: no "public" choice, a word on made links.
    await expect.poll(() => page.locator('#made-links-only').isVisible()).toBe(true);
    expect(await page.getByLabel('Public share links', { exact: true }).isVisible()).toBe(false);
    await page
      .locator('#file-input')
      .setInputFiles({ name: 'bounded.txt', mimeType: 'text/plain', buffer: Buffer.from('kept two days') });
    const uploaded = page.locator('#uploads li[data-state="done"]');
    await uploaded.waitFor();
    // No dead share link is shown for it: it is private, shared through made links.
    expect(await uploaded.textContent()).toContain('share it with a link you make');
    expect(await uploaded.locator('input.share-url').count()).toBe(0);
    const listed = await api<{ data: { files: { id: string; expiresAt: string | null; isPublic: boolean }[] } }>(
      server.origin,
      key,
      '/api/v2/files',
    );
    const [file] = listed.body.data.files;
    expect(file?.isPublic).toBe(false);
    expect(daysUntil(file?.expiresAt ?? null)).toBeGreaterThan(1.99);
    expect(daysUntil(file?.expiresAt ?? null)).toBeLessThanOrEqual(2);

    // A file's row: no "Never", nothing past the bound; no public switch, no default link to copy.
    const row = page.locator('#files-body tr').filter({ hasText: 'bounded.txt' });
    await row.waitFor();
    expect(await row.getByText('Private: share it with Links').isVisible()).toBe(true);
    expect(await row.getByRole('switch').count()).toBe(0);
    expect(await row.getByRole('button', { name: /^Copy the share link/ }).count()).toBe(0);
    expect((await optionsOf(page, `#expiry-${file?.id}`)).options).toEqual([
      'Change to…',
      'In 1 hour',
      'In 1 day',
      'In 2 days',
    ]);

    // Its links: an expiry within 7 days (no "Never"), a password of 10 or more, a cap of at most 5.
    await page.getByRole('button', { name: 'Share links of bounded.txt' }).click();
    const dialog = page.locator('#links-dialog');
    await dialog.getByText('No links made to this file yet.').waitFor();
    expect(await optionsOf(page, '#link-expiry')).toEqual({
      options: ['In 1 hour', 'In 1 day', 'In 7 days'],
      selected: 'In 7 days',
    });
    const password = dialog.getByLabel('Password (required, at least 10 characters)');
    expect(await password.evaluate((input: HTMLInputElement) => [input.required, input.minLength])).toEqual([true, 10]);
    const cap = dialog.getByLabel('Download limit (at most 5)');
    expect(await cap.evaluate((input: HTMLInputElement) => [input.required, input.max, input.value])).toEqual([
      true,
      '5',
      '5',
    ]);
    await screenshot(page, 'web-app-policy-links');
    // What the browser refuses is never sent: a short password, a cap past 5.
    await password.fill('short');
    await dialog.getByRole('button', { name: 'Make link' }).click();
    expect(await password.evaluate((input: HTMLInputElement) => input.validity.tooShort)).toBe(true);
    await password.fill('long enough now');
    await cap.fill('6');
    await dialog.getByRole('button', { name: 'Make link' }).click();
    expect(await cap.evaluate((input: HTMLInputElement) => input.validity.rangeOverflow)).toBe(true);
    const none = await api<{ data: { links: unknown[] } }>(server.origin, key, `/api/v2/files/${file?.id}/links`);
    expect(none.body.data.links).toEqual([]);
    await cap.fill('5');
    await dialog.getByLabel('Label (only you see it)').fill('Bounded link');
    await dialog.getByRole('button', { name: 'Make link' }).click();
    await dialog.getByText('Bounded link').waitFor();
    const links = await api<{ data: { links: { hasPassword: boolean; maxDownloads: number; expiresAt: string }[] } }>(
      server.origin,
      key,
      `/api/v2/files/${file?.id}/links`,
    );
    expect(links.body.data.links).toHaveLength(1);
    expect(links.body.data.links[0]).toMatchObject({ hasPassword: true, maxDownloads: 5 });
    expect(daysUntil(links.body.data.links[0]?.expiresAt ?? null)).toBeGreaterThan(6.99);
    await dialog.getByRole('button', { name: 'Close' }).click();

    // File requests: open at most 3 days (the 7-day default is not offered), a size limit of at most 10 MiB.
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'File requests' }).click();
    expect(await optionsOf(page, '#request-expiry')).toEqual({
      options: ['1 hour', '1 day', '3 days'],
      selected: '3 days',
    });
    const size = page.getByLabel('Size limit in MiB (at most 10)');
    expect(await size.evaluate((input: HTMLInputElement) => [input.required, input.max, input.value])).toEqual([
      true,
      '10',
      '10',
    ]);
    const requestPassword = page.getByLabel('Password (optional, at least 10 characters)');
    expect(await requestPassword.evaluate((input: HTMLInputElement) => input.minLength)).toBe(10);
    // Received files stay private under the bounds: no choice of public share links.
    expect(await page.getByLabel('Received files get public share links').isVisible()).toBe(false);
    await page.getByLabel('Name (only you see it)').fill('Bounded request');
    await page.getByRole('button', { name: 'Make upload link' }).click();
    await page.locator('#requests-body tr[data-request-id]').filter({ hasText: 'Bounded request' }).waitFor();
    const requests = await api<{ data: { requests: { maxBytes: number; expiresAt: string; isPublic: boolean }[] } }>(
      server.origin,
      key,
      '/api/v2/requests',
    );
    expect(requests.body.data.requests[0]?.maxBytes).toBe(10 * MiB);
    expect(requests.body.data.requests[0]?.isPublic).toBe(false);
    expect(daysUntil(requests.body.data.requests[0]?.expiresAt ?? null)).toBeGreaterThan(2.99);

    // A collection's link form offers the same bounded choices as a file's.
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Collections' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Bounded collection');
    await page.getByRole('button', { name: 'Make collection' }).click();
    await page.getByRole('button', { name: 'Share links of Bounded collection' }).click();
    await dialog.getByText('No links made to this collection yet.').waitFor();
    expect(await optionsOf(page, '#link-expiry')).toEqual({
      options: ['In 1 hour', 'In 1 day', 'In 7 days'],
      selected: 'In 7 days',
    });
    const collectionPassword = dialog.getByLabel('Password (required, at least 10 characters)');
    expect(await collectionPassword.evaluate((input: HTMLInputElement) => [input.required, input.minLength])).toEqual([
      true,
      10,
    ]);
    const collectionCap = dialog.getByLabel('Download limit (at most 5)');
    expect(await collectionCap.evaluate((input: HTMLInputElement) => [input.required, input.max, input.value])).toEqual(
      [true, '5', '5'],
    );
    await collectionPassword.fill('long enough now');
    await dialog.getByLabel('Label (only you see it)').fill('Bounded collection link');
    await dialog.getByRole('button', { name: 'Make link' }).click();
    await dialog.getByText('Bounded collection link').waitFor();
    const collections = await api<{ data: { collections: { id: string }[] } }>(
      server.origin,
      key,
      '/api/v2/collections',
    );
    const collectionLinks = await api<{ data: { links: { hasPassword: boolean; maxDownloads: number }[] } }>(
      server.origin,
      key,
      `/api/v2/collections/${collections.body.data.collections[0]?.id}/links`,
    );
    expect(collectionLinks.body.data.links[0]).toMatchObject({ hasPassword: true, maxDownloads: 5 });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps what the person typed when the bounds arrive after it, and brings a size over them within', async () => {
    const key = await policyKey('policy late browser test');
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const { page, problems } = await newPage(context);
    // The bounds answer only once the form has been filled in (a slow network).
    let answerPolicy = () => {};
    const filled = new Promise<void>((resolve) => {
      answerPolicy = resolve;
    });
    await page.route('**/api/v2/policy', async (route) => {
      await filled;
      await route.continue();
    });
    await page.goto(`${server.origin}/`);
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'File requests' }).click();
    await page.getByLabel('Name (only you see it)').fill('Typed before the bounds');
    await page.getByLabel('Size limit in MiB (optional)').fill('50');
    const policyRead = page.waitForResponse('**/api/v2/policy');
    answerPolicy();
    await policyRead;
    const size = page.getByLabel('Size limit in MiB (at most 10)');
    await size.waitFor();
    expect(await page.getByLabel('Name (only you see it)').inputValue()).toBe('Typed before the bounds');
    expect(await size.inputValue()).toBe('10');
    await page.getByRole('button', { name: 'Make upload link' }).click();
    await page.locator('#requests-body tr[data-request-id]').filter({ hasText: 'Typed before the bounds' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });
});
