/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks here run in the browser.)
// The web app at `/` in real Chromium against wrangler dev: paste a key, upload a small file in
// one request and a 20 MiB one through tus with progress shown, copy share links, make a file
// private, change expiry, page and search, delete one and several, download, the ShareX file,
// and a key revoked on /keys that the app then reports as refused.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/wrangler.ts';
import { PAGE_SIZE, TUS_CHUNK_BYTES, TUS_FROM_BYTES } from '../../src/lib/web-settings.ts';
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
const BIG_SIZE = 20 * MiB;
/** Under TUS_FROM_BYTES: one request, yet large enough for progress events part way. */
const MEDIUM_SIZE = 12 * MiB;

type Record = { id: string; originalName: string; isPublic: boolean; expiresAt: string | null; shareUrl: string };
type Listing = { data: { files: Record[]; pagination: { total: number } } };

/** The file's row in "Your files". */
const fileRow = (page: Page, name: string) => page.locator('#files-body tr').filter({ hasText: name });
/** The file's item in the upload list. */
const uploadItem = (page: Page, name: string) => page.locator('#uploads li').filter({ hasText: name });

async function signIn(page: Page, key: string, remember = false) {
  await page.goto(`${server().origin}/`);
  await page.getByLabel('API key', { exact: true }).fill(key);
  if (remember) await page.getByLabel('Remember the key in this browser after the tab closes').check();
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.getByRole('heading', { name: 'Your files' }).waitFor();
}

/** Every value each <progress> of the upload list takes, by its label, from now on. */
function recordProgress(page: Page) {
  return page.evaluate(() => {
    const seen: { [label: string]: number[] } = {};
    (window as unknown as { progressSeen: typeof seen }).progressSeen = seen;
    const note = (node: Node) => {
      if (!(node instanceof Element)) return;
      for (const bar of node.matches('progress') ? [node] : Array.from(node.querySelectorAll('progress'))) {
        const label = bar.getAttribute('aria-label') ?? '';
        seen[label] ??= [];
        seen[label].push(Number(bar.getAttribute('value')));
      }
    };
    new MutationObserver((records) => {
      for (const record of records) {
        if (record.type === 'attributes') note(record.target);
        else for (const node of Array.from(record.addedNodes)) note(node);
      }
    }).observe(document.getElementById('uploads') as HTMLElement, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['value'],
    });
  });
}

const progressSeen = (page: Page) =>
  page.evaluate(() => (window as unknown as { progressSeen: { [label: string]: number[] } }).progressSeen);

async function listed(key: string, query = ''): Promise<Listing['data']> {
  const { status, body } = await api<Listing>(server().origin, key, `/api/v2/files?limit=100${query}`);
  expect(status).toBe(200);
  return body.data;
}

/** Problems other than the 401 answers a test provokes on purpose. */
const unexpected = (problems: string[]) => problems.filter((text) => !text.includes('status of 401'));

describe.runIf(warnIfNoChromium('the web app browser tests'))('the web app in Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let dir: string;
  let bigPath: string;
  let mediumPath: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server().origin });
    dir = mkdtempSync(join(tmpdir(), 'edgeshare-webapp-'));
    bigPath = join(dir, 'big video.bin');
    // Random bytes: nothing along the way can compress them into a quick upload.
    writeFileSync(bigPath, randomBytes(BIG_SIZE));
    mediumPath = join(dir, 'medium.bin');
    writeFileSync(mediumPath, randomBytes(MEDIUM_SIZE));
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('uploads a small file in one request and 20 MiB through tus with progress, shares, hides and deletes', async () => {
    // The 20 MiB file must take the tus path, in one chunk under the body limit.
    expect(BIG_SIZE).toBeGreaterThanOrEqual(TUS_FROM_BYTES);
    expect(MEDIUM_SIZE).toBeLessThan(TUS_FROM_BYTES);
    expect(TUS_CHUNK_BYTES).toBeLessThan(100_000_000);
    const { origin } = server();
    const key = await createKey('web app browser test');
    const { page, problems } = await newPage(context);
    await signIn(page, key);

    // Kept in this tab's sessionStorage, never in the address.
    expect(page.url()).toBe(`${origin}/`);
    expect(await page.evaluate(() => sessionStorage.getItem('edgeshare.apiKey'))).toBe(key);
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    await expect.poll(() => page.locator('#usage-files-text').textContent()).toBe('0 of 100,000 files');
    expect(await page.locator('#usage-bytes-text').textContent()).toBe('0 bytes of 1 GiB');

    const requests: string[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith('/api/v2/upload')) {
        requests.push(`${request.method()} ${path.replace(/[^/]{20,}$/, ':id')} ${request.resourceType()}`);
      }
    });
    await recordProgress(page);
    // Chromium hands a request body to a local server at once; at 40 MiB/s the progress events
    // come part way, as they do over a real network.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 40 * MiB,
    });
    const notesPath = join(dir, 'notes.txt');
    writeFileSync(notesPath, 'hello from the web app\n');
    await page.locator('#file-input').setInputFiles([notesPath, mediumPath, bigPath]);
    for (const name of ['notes.txt', 'medium.bin', 'big video.bin']) {
      await expect.poll(() => uploadItem(page, name).getAttribute('data-state'), { timeout: 30_000 }).toBe('done');
    }

    // Progress: every bar ends full; the larger ones were seen part way, in one request and in tus.
    const seen = await progressSeen(page);
    expect(seen['Upload of notes.txt']?.at(-1)).toBe(100);
    for (const name of ['medium.bin', 'big video.bin']) {
      const values = seen[`Upload of ${name}`] ?? [];
      expect(values.at(-1)).toBe(100);
      expect(
        values.some((value) => value > 0 && value < 100),
        `${name}: progress ${values.join(', ')}`,
      ).toBe(true);
    }
    expect(await uploadItem(page, 'big video.bin').locator('.upload-status').textContent()).toBe('Uploaded.');
    // Files under TUS_FROM_BYTES in one multipart request each, through XMLHttpRequest for its
    // progress events; the large one through tus (creation, then PATCH).
    expect(requests.filter((request) => request.startsWith('POST /api/v2/upload '))).toEqual([
      'POST /api/v2/upload xhr',
      'POST /api/v2/upload xhr',
    ]);
    expect(requests).toEqual(expect.arrayContaining(['POST /api/v2/uploads xhr', 'PATCH /api/v2/uploads/:id xhr']));

    // The share link appears, copies, and works for anyone.
    const link = page.getByLabel('Share link of notes.txt', { exact: true });
    const shareUrl = await link.inputValue();
    expect(shareUrl).toMatch(new RegExp(`^${origin}/share/[A-Za-z0-9_-]+$`));
    await uploadItem(page, 'notes.txt').getByRole('button', { name: 'Copy the share link of notes.txt' }).click();
    await expect.poll(() => uploadItem(page, 'notes.txt').locator('.copy-status').textContent()).toBe('Copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(shareUrl);
    const download = await fetch(`${shareUrl}/download`);
    expect(await download.text()).toBe('hello from the web app\n');

    // Usage and the list follow.
    await expect.poll(() => page.locator('#usage-files-text').textContent()).toBe('3 of 100,000 files');
    expect(await page.locator('#usage-bytes-text').textContent()).toBe('32 MiB of 1 GiB');
    await expect.poll(() => page.locator('#files-body tr').count()).toBe(3);
    expect(await page.locator('#files-caption').textContent()).toBe('3 files.');
    await screenshot(page, 'web-app', true);
    // Responsive: on a phone-sized screen nothing runs off the side (the table becomes cards).
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(ROOT, '.tmp/screenshots/web-app-narrow.png'), fullPage: true });
    await page.setViewportSize({ width: 1200, height: 900 });

    // The row's copy button copies the same link.
    await fileRow(page, 'notes.txt').getByRole('button', { name: 'Copy the share link of notes.txt' }).click();
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('Share link of “notes.txt” copied.');

    // Private: the switch turns the share link off (404 for anyone), the owner still downloads.
    await fileRow(page, 'notes.txt').getByRole('switch', { name: 'Public' }).uncheck();
    await expect.poll(async () => (await fetch(shareUrl)).status).toBe(404);
    await expect.poll(() => fileRow(page, 'notes.txt').getByRole('switch').isChecked()).toBe(false);
    const [saved] = await Promise.all([
      page.waitForEvent('download'),
      fileRow(page, 'notes.txt').getByRole('button', { name: 'Download notes.txt' }).click(),
    ]);
    expect(saved.suggestedFilename()).toBe('notes.txt');
    expect(readFileSync(await saved.path(), 'utf8')).toBe('hello from the web app\n');
    await fileRow(page, 'notes.txt').getByRole('switch', { name: 'Public' }).check();
    await expect.poll(async () => (await fetch(shareUrl)).status).toBe(200);

    // Delete one, confirming; usage goes down.
    page.once('dialog', (dialog) => dialog.accept());
    await fileRow(page, 'big video.bin').getByRole('button', { name: 'Delete big video.bin' }).click();
    await expect.poll(() => page.locator('#usage-files-text').textContent()).toBe('2 of 100,000 files');
    expect(await page.locator('#usage-bytes-text').textContent()).toBe('12 MiB of 1 GiB');
    await expect.poll(() => page.locator('#files-body tr').count()).toBe(2);
    expect((await listed(key)).files.map((file) => file.originalName).sort()).toEqual(['medium.bin', 'notes.txt']);

    await page.getByRole('button', { name: 'Clear finished uploads' }).click();
    expect(await page.locator('#uploads li').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Clear finished uploads' }).isVisible()).toBe(false);
    expect(unexpected(problems)).toEqual([]);
  }, 90_000);

  it('deletes several at once, pages and searches, sets expiry, and takes dropped and chosen files', async () => {
    const key = await createKey('web app list test');
    const { origin } = server();
    // PAGE_SIZE + 3 files, through the API's bulk upload.
    const names = Array.from({ length: PAGE_SIZE + 3 }, (_, i) => `report ${String(i + 1).padStart(2, '0')}.txt`);
    for (let start = 0; start < names.length; start += 10) {
      const form = new FormData();
      for (const name of names.slice(start, start + 10))
        form.append('files', new File([name], name, { type: 'text/plain' }));
      expect((await api(origin, key, '/api/v2/upload/bulk', { method: 'POST', body: form })).status).toBe(201);
    }
    const { page, problems } = await newPage(context);
    await signIn(page, key);

    await expect.poll(() => page.locator('#page-info').textContent()).toBe('Page 1 of 2');
    expect(await page.locator('#files-body tr').count()).toBe(PAGE_SIZE);
    await expectTablesInPlace(page, WEB_APP_TABLES);
    // Each file's upload time, written as every page writes dates.
    expect((await expectDatesOneWay(page)).length).toBeGreaterThanOrEqual(PAGE_SIZE);
    expect(await page.getByRole('button', { name: 'Previous page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => page.locator('#page-info').textContent()).toBe('Page 2 of 2');
    expect(await page.locator('#files-body tr').count()).toBe(3);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);

    // Search by name (ignoring case), ordered by name.
    await page.getByLabel('Search by name').fill('REPORT 1');
    await page.getByLabel('Order').selectOption({ label: 'Name, A to Z' });
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.locator('#files-caption').textContent()).toBe('10 files matching “REPORT 1”.');
    expect(await page.locator('#files-body th a').allTextContents()).toEqual(
      names.filter((name) => name.startsWith('report 1')).sort(),
    );

    // Several at once: select two, delete them in one request.
    await page.getByLabel('Select report 10.txt').check();
    await page.getByLabel('Select report 11.txt').check();
    const deleting = page.waitForRequest(
      (request) => request.method() === 'DELETE' && request.url().endsWith('/api/v2/files/bulk'),
    );
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete selected (2)' }).click();
    expect((await deleting).postDataJSON().ids).toHaveLength(2);
    await expect.poll(() => page.locator('#files-caption').textContent()).toBe('8 files matching “REPORT 1”.');
    await expect
      .poll(() => page.locator('#usage-files-text').textContent())
      .toBe(`${names.length - 2} of 100,000 files`);
    expect((await listed(key, '&q=report%2010')).pagination.total).toBe(0);

    // Select all on the page, then delete: the search's remaining 8 go.
    await page.getByLabel('Select all on this page').check();
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete selected (8)' }).click();
    await expect.poll(() => page.locator('#files-caption').textContent()).toBe('No files match “REPORT 1”.');
    expect((await listed(key)).pagination.total).toBe(names.length - 10);

    // Expiry: set one, then clear it again.
    await page.getByLabel('Search by name').fill('report 05');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.locator('#files-body tr').count()).toBe(1);
    const row = fileRow(page, 'report 05.txt');
    await row.getByLabel('New expiry of report 05.txt').selectOption({ label: 'In 1 day' });
    await row.getByRole('button', { name: 'Set the expiry of report 05.txt' }).click();
    await expect.poll(async () => (await listed(key, '&q=report%2005')).files[0]?.expiresAt).not.toBeNull();
    const expiresAt = Date.parse((await listed(key, '&q=report%2005')).files[0]?.expiresAt ?? '');
    expect(Math.abs(expiresAt - (Date.now() + 86_400_000))).toBeLessThan(120_000);
    await expect.poll(() => page.locator('#live-status').textContent()).toMatch(/^“report 05.txt” now expires /);
    expect(await page.locator('#live-status').textContent()).toMatch(/now expires \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/);
    await expectDatesOneWay(page);
    // The choice is spent once set; a choice not yet set survives the list being drawn again.
    await expect.poll(() => row.getByLabel('New expiry of report 05.txt').inputValue()).toBe('');
    await row.getByLabel('New expiry of report 05.txt').selectOption({ label: 'Never' });
    const drawn = await row.elementHandle();
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => drawn?.evaluate((element) => element.isConnected)).toBe(false);
    expect(await row.getByLabel('New expiry of report 05.txt').inputValue()).toBe('never');
    // The list re-renders its rows after a change (a choice not yet set is carried over, checked
    // above); should a click still meet a row in the instant it is replaced ("Choose a new expiry
    // first."), the choice is made again on the fresh row.
    for (let attempt = 0; attempt < 5; attempt++) {
      await row.getByLabel('New expiry of report 05.txt').selectOption({ label: 'Never' });
      await row.getByRole('button', { name: 'Set the expiry of report 05.txt' }).click();
      await expect.poll(() => page.locator('#live-status').textContent()).toMatch(/never expires|Choose a new expiry/);
      if ((await page.locator('#live-status').textContent()) !== 'Choose a new expiry first.') break;
    }
    await expect.poll(() => page.locator('#live-status').textContent()).toBe('“report 05.txt” now never expires.');
    expect((await listed(key, '&q=report%2005')).files[0]?.expiresAt).toBeNull();
    // A change the service refuses keeps its choice, to be set again.
    const before = problems.length;
    await page.route('**/api/v2/files/*', (route) =>
      route.request().method() === 'PATCH'
        ? route.fulfill({
            status: 409,
            contentType: 'application/json',
            body: JSON.stringify({ error: 'Try again', code: 'CONFLICT' }),
          })
        : route.fallback(),
    );
    await row.getByLabel('New expiry of report 05.txt').selectOption({ label: 'In 1 day' });
    await row.getByRole('button', { name: 'Set the expiry of report 05.txt' }).click();
    await expect.poll(() => page.locator('#banner').textContent()).toMatch(/Try again/);
    await expect.poll(() => page.locator('#files-body tr').count()).toBe(1);
    expect(await row.getByLabel('New expiry of report 05.txt').inputValue()).toBe('86400');
    await page.unroute('**/api/v2/files/*');
    // The browser reports the refused PATCH as a failed load: expected here, and nothing else.
    expect(problems.splice(before).every((text) => text.includes('status of 409'))).toBe(true);
    expect((await listed(key, '&q=report%2005')).files[0]?.expiresAt).toBeNull();

    // A dropped file uploads (the drop zone, as a browser delivers a drop)...
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File(['dropped'], 'dropped.txt', { type: 'text/plain' }));
      const zone = document.getElementById('drop-zone') as HTMLElement;
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await expect.poll(() => uploadItem(page, 'dropped.txt').getAttribute('data-state')).toBe('done');
    // ...and so does one chosen with the keyboard: Enter on "Choose files" opens the file chooser.
    // (Waiting first: Playwright starts intercepting file choosers with the first such listener.)
    const choosing = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Choose files' }).focus();
    await page.keyboard.press('Enter');
    const chooser = await choosing;
    expect(chooser.isMultiple()).toBe(true);
    await chooser.setFiles({ name: 'chosen.txt', mimeType: 'text/plain', buffer: Buffer.from('chosen') });
    await expect.poll(() => uploadItem(page, 'chosen.txt').getAttribute('data-state')).toBe('done');
    const stored = (await listed(key)).files.map((file) => file.originalName);
    expect(stored).toEqual(expect.arrayContaining(['dropped.txt', 'chosen.txt']));
    expect(unexpected(problems)).toEqual([]);
  }, 90_000);

  it('downloads a ShareX uploader for this origin, with the key only when asked', async () => {
    const key = await createKey('web app sharex test');
    const { origin } = server();
    const { page } = await newPage(context);
    await signIn(page, key);
    const expected = JSON.parse(readFileSync(join(ROOT, 'docs/sharex/edgeshare.sxcu'), 'utf8'));
    expected.RequestURL = `${origin}/api/v2/upload`;

    const fetchUploader = async () => {
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download edgeshare.sxcu' }).click(),
      ]);
      expect(file.suggestedFilename()).toBe('edgeshare.sxcu');
      return JSON.parse(readFileSync(await file.path(), 'utf8'));
    };
    expect(await fetchUploader()).toEqual(expected);
    await page.getByLabel('Put my API key in the file').check();
    expect(await fetchUploader()).toEqual({ ...expected, Headers: { Authorization: `Bearer ${key}` } });
  });

  it('takes a key made on /keys, and says clearly when it is revoked there', async () => {
    const { origin, adminToken } = server();
    const keysTab = (await newPage(context)).page;
    await keysTab.goto(`${origin}/keys`);
    await keysTab.getByLabel('Admin token').fill(adminToken);
    await keysTab.getByRole('button', { name: 'Sign in' }).click();
    await keysTab.locator('#create-form').getByLabel('Name').fill('Web app key');
    await keysTab.getByRole('button', { name: 'Create key' }).click();
    const shown = keysTab.getByLabel('New API key');
    await expect.poll(() => shown.inputValue()).toMatch(/^esk_/);
    const key = await shown.inputValue();

    // A wrong key first: refused, nothing kept.
    const { page, problems } = await newPage(context);
    await page.goto(`${origin}/`);
    await page.getByLabel('API key', { exact: true }).fill(`esk_${'x'.repeat(43)}`);
    await page.getByRole('button', { name: 'Use key' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('refused (401)');
    expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);

    // The real one, remembered (localStorage); an upload works.
    await page.getByLabel('API key', { exact: true }).fill(key);
    await page.getByLabel('Remember the key in this browser after the tab closes').check();
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.getByRole('heading', { name: 'Your files' }).waitFor();
    expect(await page.getByRole('alert').isVisible()).toBe(false);
    expect(await page.evaluate(() => localStorage.getItem('edgeshare.apiKey'))).toBe(key);
    expect(await page.locator('#key-place').textContent()).toBe('in this browser until you forget it');
    await page
      .locator('#file-input')
      .setInputFiles({ name: 'before.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
    await expect.poll(() => uploadItem(page, 'before.txt').getAttribute('data-state')).toBe('done');
    // Remembered: a new tab starts signed in.
    const other = (await newPage(context)).page;
    await other.goto(`${origin}/`);
    await other.getByRole('heading', { name: 'Your files' }).waitFor();
    await expect.poll(() => other.locator('#files-body tr').count()).toBe(1);
    await other.close();

    // Revoked on /keys: the app's next action is refused, said plainly, and the key is forgotten.
    keysTab.once('dialog', (dialog) => dialog.accept());
    await keysTab
      .locator('tbody tr', { has: keysTab.getByRole('rowheader', { name: 'Web app key' }) })
      .getByRole('button', { name: 'Revoke Web app key' })
      .click();
    await expect
      .poll(() => keysTab.locator('tbody tr').filter({ hasText: 'Web app key' }).textContent())
      .toContain('Revoked');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('This API key was refused (401): it is invalid or has been revoked. Paste a valid key to go on.');
    expect(await page.getByLabel('API key', { exact: true }).isVisible()).toBe(true);
    expect(await page.locator('#app').isVisible()).toBe(false);
    expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
    expect(unexpected(problems)).toEqual([]);
  });

  it('forgets the key on request', async () => {
    const key = await createKey('web app forget test');
    const { page } = await newPage(context);
    await signIn(page, key);
    await page.getByRole('button', { name: 'Forget key' }).click();
    expect(await page.evaluate(() => sessionStorage.length + localStorage.length)).toBe(0);
    expect(await page.getByRole('alert').textContent()).toBe('The key is forgotten: this browser no longer keeps it.');
    await page.reload();
    expect(await page.getByLabel('API key', { exact: true }).isVisible()).toBe(true);
  });
});
