/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks here run in the browser.)
// The API keys page in real Chromium: sign in with the admin token, create a key (shown once,
// copied), use it, change its limits, revoke it, and see it refused with 401.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/limiter/scopes.ts';
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

type AdminKey = { id: string; name: string; prefix: string; status: string; maxFiles: number | null };

/** The key's row in the page's table. */
const row = (page: Page, name: string) => page.locator('tbody tr', { has: page.getByRole('rowheader', { name }) });

/** A request with the key, sent by the page itself (same origin, as the web app will). */
const statusFromPage = (page: Page, key: string) =>
  page.evaluate(
    async (bearer) => (await fetch('/api/v2/files', { headers: { Authorization: `Bearer ${bearer}` } })).status,
    key,
  );

describe.runIf(warnIfNoChromium('the API keys page browser tests'))('the API keys page in Chromium', () => {
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

  it('refuses a wrong admin token with a clear message', async () => {
    const { page } = await newPage(context);
    await page.goto(`${server().origin}/keys`);
    await page.getByLabel('Admin token').fill('not-the-admin-token-0123456789abcdef');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not accepted (401)');
    expect(await page.locator('#signed-in').isVisible()).toBe(false);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('creates a key, which works until it is revoked, then gets 401', async () => {
    const { origin, adminToken } = server();
    const { page, problems } = await newPage(context);
    await page.goto(`${origin}/keys`);
    await page.getByLabel('Admin token').fill(adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Create a key' }).waitFor();
    // Kept in this tab only: never in the URL.
    expect(await page.evaluate(() => sessionStorage.getItem('edgeshare.adminToken'))).toBe(adminToken);
    expect(page.url()).toBe(`${origin}/keys`);

    const form = page.locator('#create-form');
    await form.getByLabel('Name').fill('Browser test key');
    await form.getByLabel('Requests per window').fill('50');
    await form.getByLabel('Window (seconds)').fill('60');
    await form.getByLabel('Storage quota (MiB)').fill('10');
    await form.getByLabel('Most files').fill('20');
    await page.getByRole('button', { name: 'Create key' }).click();

    const shown = page.getByLabel('New API key');
    await expect.poll(() => shown.inputValue()).toMatch(/^esk_[A-Za-z0-9_-]{43}$/);
    const key = await shown.inputValue();
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.locator('#copy-status').textContent()).toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    const listed = row(page, 'Browser test key');
    await expect.poll(() => listed.textContent()).toContain('Active');
    const text = (await listed.textContent()) ?? '';
    const prefix = /esk_[A-Za-z0-9_-]+(?=…)/.exec(text)?.[0] ?? '';
    expect(key.startsWith(prefix) && prefix.length > 4).toBe(true);
    expect(text).toContain('Requests: 50 per 60 s');
    expect(text).toContain('Storage: 10 MiB');
    expect(text).toContain('Files: 20');
    // Each key's creation time, written as every page writes dates.
    expect(await listed.locator('time').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    await expectDatesOneWay(page);
    await screenshot(page, 'keys-page', true);

    // The key works, from the page and from anywhere else.
    expect(await statusFromPage(page, key)).toBe(200);
    expect((await api(origin, key, '/api/v1/files')).status).toBe(200);

    // Change a limit: saved through PATCH, shown in the list.
    await listed.getByText('Change limits').click();
    await listed.getByLabel('Most files').fill('30');
    await listed.getByRole('button', { name: 'Save limits' }).click();
    await expect.poll(() => row(page, 'Browser test key').textContent()).toContain('Files: 30');
    const { body } = await api<{ data: { keys: AdminKey[] } }>(origin, adminToken, '/admin/keys');
    const record = body.data.keys.find((k) => k.name === 'Browser test key');
    expect(record?.maxFiles).toBe(30);

    // Revoke, confirming the dialog; the very next request with the key is refused.
    page.once('dialog', (dialog) => dialog.accept());
    await row(page, 'Browser test key').getByRole('button', { name: 'Revoke Browser test key' }).click();
    await expect.poll(() => row(page, 'Browser test key').textContent()).toContain('Revoked');
    expect(await row(page, 'Browser test key').textContent()).toMatch(/Revoked \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    await expectDatesOneWay(page);
    expect(problems).toEqual([]);
    expect(await statusFromPage(page, key)).toBe(401);
    const refused = await api<{ code: string }>(origin, key, '/api/v1/files');
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('UNAUTHORIZED');

    // Signing out forgets the token.
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await page.getByLabel('Admin token').isVisible()).toBe(true);
  });

  it('lets an account holder manage the account’s keys with a keys:write key', async () => {
    const { origin } = server();
    const owner = await createKey('Account owner');
    const { page, problems } = await newPage(context);
    await page.goto(`${origin}/keys`);
    await page.getByLabel('Your API key').fill(owner);
    await page.getByRole('button', { name: 'Open my keys' }).click();
    await page.getByRole('heading', { name: 'Make a key' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('edgeshare.accountKey'))).toBe(owner);
    expect(page.url()).toBe(`${origin}/keys`);
    const ownRow = page.locator('#account-keys-body tr', {
      has: page.getByRole('rowheader', { name: 'Account owner' }),
    });
    await expect.poll(() => ownRow.textContent()).toContain('keys:write');

    // A reader key: only files:read checked, shown once, copied.
    const form = page.locator('#account-create-form');
    await form.getByLabel('Key name').fill('Read-only reader');
    for (const scope of SCOPES.filter((name) => name !== 'files:read')) await form.getByLabel(scope).uncheck();
    await page.getByRole('button', { name: 'Make key' }).click();
    const shown = page.getByLabel('The new key');
    await expect.poll(() => shown.inputValue()).toMatch(/^esk_[A-Za-z0-9_-]{43}$/);
    const reader = await shown.inputValue();
    await page.getByRole('button', { name: 'Copy key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(reader);
    const readerRow = page.locator('#account-keys-body tr', {
      has: page.getByRole('rowheader', { name: 'Read-only reader' }),
    });
    await expect.poll(() => readerRow.textContent()).toContain('files:read');
    expect(await readerRow.textContent()).not.toContain('files:write');
    // The owner key's last use (this page's own requests), written as every page writes dates.
    await expect.poll(async () => (await expectDatesOneWay(page)).length).toBeGreaterThanOrEqual(1);
    await screenshot(page, 'keys-page-account', true);

    // Its scopes hold: it reads the account's files, and may not upload.
    expect((await api(origin, reader, '/api/v1/files')).status).toBe(200);
    const upload = await api<{ code: string }>(origin, reader, '/api/v1/upload', {
      method: 'POST',
      body: new FormData(),
    });
    expect(upload).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });

    // Revoked from the page: refused on its next request.
    page.once('dialog', (dialog) => dialog.accept());
    await readerRow.getByRole('button', { name: 'Revoke Read-only reader' }).click();
    await expect.poll(() => readerRow.textContent()).toContain('revoked');
    expect((await api(origin, reader, '/api/v1/files')).status).toBe(401);
    expect(problems).toEqual([]);

    // A key without keys:write cannot open the account's keys.
    await page.getByRole('button', { name: 'Close' }).click();
    expect(await page.evaluate(() => sessionStorage.getItem('edgeshare.accountKey'))).toBeNull();
  });

  it('keeps a revoke that is not confirmed from happening', async () => {
    const { origin, adminToken } = server();
    const { page } = await newPage(context);
    await page.goto(`${origin}/keys`);
    await page.getByLabel('Admin token').fill(adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#create-form').getByLabel('Name').fill('Kept key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByLabel('New API key');
    await expect.poll(() => shown.inputValue()).toMatch(/^esk_/);
    const key = await shown.inputValue();
    page.once('dialog', (dialog) => dialog.dismiss());
    await row(page, 'Kept key').getByRole('button', { name: 'Revoke Kept key' }).click();
    expect(await row(page, 'Kept key').textContent()).toContain('Active');
    expect((await api(origin, key, '/api/v1/files')).status).toBe(200);
  });
});
