/// <reference lib="dom" />
// The file request page in real Chromium against wrangler dev, 390 px wide: the uploader (no key)
// sends two files, one in a multipart request and one through tus, with progress; a file over the
// request's limit is refused before any byte goes; the receipt lists what was sent; no CSP
// violation; the files are in the owner's account with requestId.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TUS_FROM_BYTES } from '../../src/lib/web-settings.ts';
import {
  api,
  createKey,
  expectDatesOneWay,
  expectTablesInPlace,
  launchBrowser,
  newPage,
  screenshot,
  server,
  WEB_APP_TABLES,
  warnIfNoChromium,
} from '../helpers/browser.ts';

const MiB = 1024 * 1024;

describe.runIf(warnIfNoChromium('the file request page browser test'))('the file request page in Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let dir: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    dir = mkdtempSync(join(tmpdir(), 'edgeshare-request-'));
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('uploads two files with progress, refuses one over the limit before sending, and shows the receipt', async () => {
    const { origin } = server();
    const key = await createKey('request page browser test');
    const created = await api<{ data: { id: string; url: string } }>(origin, key, '/api/v2/requests', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: 'Please send the photos', maxFileSize: TUS_FROM_BYTES + 4 * MiB }),
    });
    expect(created.status).toBe(201);
    const request = created.body.data;

    const small = join(dir, 'notes.txt');
    writeFileSync(small, 'hello from the uploader\n');
    const big = join(dir, 'footage.bin');
    writeFileSync(big, randomBytes(TUS_FROM_BYTES + MiB));
    const tooBig = join(dir, 'too big.bin');
    writeFileSync(tooBig, randomBytes(TUS_FROM_BYTES + 5 * MiB));

    const { page, problems } = await newPage(context);
    const sent: string[] = [];
    page.on('request', (each) => {
      const path = new URL(each.url()).pathname;
      if (path.includes('/api/v2/r/'))
        sent.push(`${each.method()} ${path.replace(/\/r\/[^/]+/, '/r/:token').replace(/[^/]{20,}$/, ':id')}`);
      // The page never sends a key.
      expect(each.headers().authorization ?? '').not.toMatch(/^Bearer/);
    });
    await page.goto(request.url);
    await page.getByText('Please send the photos').waitFor();
    // The link's expiry, written as every page writes dates (not 12/3/2026, which reads as March in Europe).
    expect(await expectDatesOneWay(page)).toHaveLength(1);
    expect(await page.locator('#request-limits').textContent()).toMatch(/Open until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    // Record every value each progress bar takes.
    await page.evaluate(() => {
      const seen: { [label: string]: number[] } = {};
      (window as unknown as { seen: typeof seen }).seen = seen;
      new MutationObserver((records) => {
        for (const record of records) {
          const nodes = record.type === 'attributes' ? [record.target] : Array.from(record.addedNodes);
          for (const node of nodes) {
            if (!(node instanceof Element)) continue;
            for (const bar of node.matches('progress') ? [node] : Array.from(node.querySelectorAll('progress'))) {
              const label = bar.getAttribute('aria-label') ?? '';
              seen[label] ??= [];
              seen[label].push(Number(bar.getAttribute('value')));
            }
          }
        }
      }).observe(document.getElementById('uploads') as HTMLElement, {
        subtree: true,
        childList: true,
        attributes: true,
      });
    });
    // Slow the network a little so progress shows part way, as it does for real.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 5,
      downloadThroughput: 50 * MiB,
      uploadThroughput: 20 * MiB,
    });

    await page.locator('#file-input').setInputFiles([small, big, tooBig]);
    const item = (name: string) => page.locator('#uploads li').filter({ hasText: name });
    await expect.poll(() => item('too big.bin').getAttribute('data-state')).toBe('error');
    expect(await item('too big.bin').textContent()).toContain('Not sent. Too large');
    await expect.poll(() => item('notes.txt').getAttribute('data-state'), { timeout: 30_000 }).toBe('done');
    await expect.poll(() => item('footage.bin').getAttribute('data-state'), { timeout: 60_000 }).toBe('done');

    const rows = page.locator('#receipt tr');
    await expect.poll(() => rows.count()).toBe(2);
    const receipt = await rows.allTextContents();
    expect(receipt.some((row) => row.includes('notes.txt') && row.includes('24 bytes'))).toBe(true);
    expect(receipt.some((row) => row.includes('footage.bin'))).toBe(true);
    await expectTablesInPlace(page, { receipt: 'receipt-heading' });

    const seen = await page.evaluate(() => (window as unknown as { seen: { [label: string]: number[] } }).seen);
    const footage = seen['Upload of footage.bin'] ?? [];
    expect(footage.some((value) => value > 0 && value < 100)).toBe(true);
    expect(footage.at(-1)).toBe(100);
    expect((seen['Upload of notes.txt'] ?? []).at(-1)).toBe(100);
    // The small file in one multipart request, the large one through tus; nothing of the refused one.
    expect(sent).toContain('POST /api/v2/r/:token/upload');
    expect(sent).toContain('POST /api/v2/r/:token/tus');
    expect(sent.filter((line) => line.startsWith('PATCH')).length).toBeGreaterThan(0);
    // Works at 390 px: nothing wider than the viewport.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'request-page', true);
    expect(problems).toEqual([]);

    const files = await api<{ data: { files: { originalName: string; requestId: string; isPublic: boolean }[] } }>(
      origin,
      key,
      `/api/v2/requests/${request.id}/files`,
    );
    expect(files.body.data.files.map((file) => file.originalName).sort()).toEqual(['footage.bin', 'notes.txt']);
    expect(files.body.data.files.every((file) => file.requestId === request.id && !file.isPublic)).toBe(true);
  });
  it('the web app makes a request, copies its link, lists what it received, and closes it', async () => {
    const { origin } = server();
    const key = await createKey('web app requests browser test');
    const wide = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await wide.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const { page, problems } = await newPage(wide);
    await page.goto(`${origin}/`);
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'File requests' }).click();
    await page.getByRole('heading', { name: 'File requests' }).waitFor();
    await page.getByLabel('Name (only you see it)').fill('Contracts');
    await page.getByLabel('Message for the people sending').fill('Signed copies, please');
    await page.getByLabel('Files', { exact: true }).fill('2');
    await page.getByRole('button', { name: 'Make upload link' }).click();
    const row = page.locator('#requests-body tr[data-request-id]').filter({ hasText: 'Contracts' });
    await row.waitFor();
    expect(await row.textContent()).toContain('0 of 2 files');
    const url = await row.locator('input.share-url').inputValue();
    expect(url).toMatch(new RegExp(`^${origin}/r/[A-Za-z0-9_-]{32}$`));
    await page.getByRole('button', { name: 'Copy the link of Contracts' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);

    // Someone sends a file through the link (no key); the app shows it under the request.
    const form = new FormData();
    form.append('file', new Blob(['signed']), 'contract.txt');
    const uploadUrl = `${url.replace('/r/', '/api/v2/r/')}/upload`;
    expect((await fetch(uploadUrl, { method: 'POST', body: form })).status).toBe(201);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => row.textContent()).toContain('1 of 2 files');
    await page.getByRole('button', { name: 'Files received by Contracts' }).click();
    await page.locator('#requests-body .received').getByText('contract.txt').waitFor();
    // The file requests' table, its rows and the received files' row, drawn in its own section.
    await expectTablesInPlace(page, WEB_APP_TABLES);
    // The request's expiry and the received file's upload time.
    expect((await expectDatesOneWay(page)).length).toBeGreaterThanOrEqual(2);

    await page.getByRole('button', { name: 'Close Contracts' }).click();
    await expect.poll(() => row.locator('[data-status]').textContent()).toBe('Closed');
    expect((await fetch(uploadUrl, { method: 'POST', body: form })).status).toBe(410);
    await screenshot(page, 'web-app-requests', true);
    expect(problems).toEqual([]);
    await wide.close();
  });
  it('asks for the password in a form, says when it is wrong, and then takes files with it', async () => {
    const { origin } = server();
    const key = await createKey('request page password browser test');
    const created = await api<{ data: { id: string; url: string } }>(origin, key, '/api/v2/requests', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: 'Only for the auditors', password: 'letmein' }),
    });
    const request = created.body.data;
    const small = join(dir, 'audit.txt');
    writeFileSync(small, 'numbers\n');
    const { page, problems } = await newPage(context);
    await page.goto(request.url);
    await page.getByRole('heading', { name: 'This link has a password' }).waitFor();
    // Nothing of the request before the password.
    expect(await page.getByText('Only for the auditors').count()).toBe(0);
    await page.getByLabel('Password', { exact: true }).fill('wrong');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('That password is not right.').waitFor();
    await page.getByLabel('Password', { exact: true }).fill('letmein');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('Only for the auditors').waitFor();
    expect(await page.locator('#password-section').isHidden()).toBe(true);
    await page.locator('#file-input').setInputFiles([small]);
    await expect.poll(() => page.locator('#receipt tr').count()).toBe(1);
    expect(await page.locator('#receipt').textContent()).toContain('audit.txt');
    // The 401s of the wrong password are the page working.
    expect(problems.filter((text) => !text.includes('status of 401'))).toEqual([]);
    const files = await api<{ data: { files: { originalName: string }[] } }>(
      origin,
      key,
      `/api/v2/requests/${request.id}/files`,
    );
    expect(files.body.data.files.map((file) => file.originalName)).toEqual(['audit.txt']);
  });
});
