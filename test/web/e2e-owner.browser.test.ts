/// <reference lib="dom" />
// End-to-end encryption, the owner's half, in real Chromium against wrangler dev (docs/e2e.md,
// "In the browser"): an encrypted upload through the web app (encrypted in a Web Worker, through
// tus) with the network cut at about 40 % and the page reloaded, which resumes where the server's
// copy ends and completes; the stored bytes are not the plaintext and Debian's `age -d` opens them
// with the identity the app exports; the identity made on first use, its passphrase backup saved
// before the upload finishes, and restored in a fresh browser context; the file list's real names,
// a keyed link whose whole URL opens with `age`, and one from the Links dialog, a decrypting
// download; a guest's encrypted upload through an `e2e` file request (refused without `#r=`),
// opened by the owner; a collection link from the web app that the collection page decrypts; an
// encrypted upload cancelled (deleted from the server too) or refused leaving no key behind; the pages at 1280 and 390 px
// without CSP violations.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateIdentity, openMeta, payloadLength, recoverFileKey } from '../../src/lib/age/index.ts';
import { E2E_TUS_CHUNK_BYTES } from '../../src/lib/web-settings.ts';
import {
  api,
  createKey,
  launchBrowser,
  newPage,
  screenshot,
  server,
  sidewaysScroll,
  warnIfNoChromium,
} from '../helpers/browser.ts';

const MiB = 1024 * 1024;
/** PATCHes of 8 MiB (E2E_TUS_CHUNK_BYTES): the first brings the upload to 40 %, every later one is cut. */
const BIG_SIZE = 20 * MiB;
const PASSPHRASE = 'correct horse battery staple, twice over';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

type FileRecord = {
  id: string;
  originalName: string;
  size: number;
  encryption: 'age' | null;
  meta: string | null;
  requestId?: string | null;
};

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const fileRow = (page: Page, name: string) => page.locator('#files-body tr').filter({ hasText: name });

async function signIn(page: Page, key: string) {
  await page.goto(`${server().origin}/`);
  await page.getByLabel('API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Use key' }).click();
  await page.getByRole('heading', { name: 'Your files' }).waitFor();
}

async function listed(key: string): Promise<FileRecord[]> {
  const { status, body } = await api<{ data: { files: FileRecord[] } }>(
    server().origin,
    key,
    '/api/v2/files?limit=100',
  );
  expect(status).toBe(200);
  return body.data.files;
}

async function rawDownload(key: string, id: string): Promise<Uint8Array> {
  const response = await fetch(`${server().origin}/api/v2/files/${id}/download`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

/** Polls `check` until it is true or `ms` pass (no sleeps in the tests' logic). */
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What this origin's localStorage keeps of uploads: the e2e keys (e2e-upload.ts), and tus's addresses. */
const keptUploads = (page: Page) =>
  page.evaluate(() =>
    Object.keys(localStorage).filter((name) => name.startsWith('edgeshare.e2e.upload.') || name.startsWith('tus::')),
  );

const savedBytes = async (download: Download) => readFileSync((await download.path()) as string);

describe.runIf(warnIfNoChromium('the end-to-end encryption browser tests (owner)'))(
  'end-to-end encryption in the web app and the file request page',
  () => {
    let browser: Browser;
    let context: BrowserContext;
    let dir: string;
    let key: string;
    const plaintext = randomBytes(BIG_SIZE);
    const bigName = 'holiday footage.bin';
    // A guest's file through an e2e request; then a member of a collection.
    const scanName = 'passport scan.pdf';
    const scan = randomBytes(3 * MiB + 12_345);
    let identityPath: string;

    beforeAll(async () => {
      browser = await launchBrowser();
      context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true });
      dir = mkdtempSync(join(tmpdir(), 'edgeshare-e2e-owner-'));
      // Every test of the file signs in with this key, and the app asks a lot of it (the shared
      // server's keys have room for that: test/helpers/dev-server.ts).
      key = await createKey('e2e owner browser test');
    });

    afterAll(async () => {
      await browser?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('uploads encrypted through tus, resumes after a cut at 40 % and a reload, and age opens it with the exported identity', async () => {
      const big = join(dir, bigName);
      writeFileSync(big, plaintext);
      const { page, problems } = await newPage(context);
      await signIn(page, key);
      await expect.poll(() => page.locator('#e2e-status').textContent()).toContain('No identity yet');
      await page.getByLabel('Encrypt end to end').check();

      // The network goes at about 40 %: every PATCH from there on is cut, until the page reloads.
      let cuts = 0;
      const patches: number[] = [];
      await page.route('**/api/v2/uploads/**', async (route) => {
        const request = route.request();
        if (request.method() !== 'PATCH') return route.fallback();
        const offset = Number(request.headers()['upload-offset']);
        patches.push(offset);
        // The PATCH that would carry the upload past 40 %, and every one after it.
        if (offset + E2E_TUS_CHUNK_BYTES > 0.4 * BIG_SIZE) {
          cuts++;
          return route.abort('internetdisconnected');
        }
        return route.fallback();
      });
      await page.locator('#file-input').setInputFiles(big);

      // The identity is made on first use, and its backup offered while the upload runs.
      const backup = page.getByLabel('Backup passphrase');
      await backup.waitFor();
      await backup.fill(PASSPHRASE);
      await page.getByRole('button', { name: 'Save the backup' }).click();
      await expect.poll(() => page.locator('#e2e-note').textContent(), { timeout: 30_000 }).toContain('Backup saved');
      const identity = await api<{ data: { recipient: string; backup: string } }>(
        server().origin,
        key,
        '/api/v2/e2e/identity',
      );
      expect(identity.body.data.recipient).toMatch(/^age1/);
      expect(identity.body.data.backup).toContain('-----BEGIN AGE ENCRYPTED FILE-----');

      await until(() => cuts > 0, 'the PATCH at 40 % to be cut');
      expect((await listed(key)).length).toBe(0);
      // The page goes away mid-upload; the same file chosen again resumes.
      await page.reload();
      await page.unroute('**/api/v2/uploads/**');
      await page.getByRole('heading', { name: 'Your files' }).waitFor();
      expect(await page.getByLabel('Encrypt end to end').isChecked()).toBe(true);
      const offsets: number[] = [];
      let creations = 0;
      page.on('response', (response) => {
        if (!response.url().includes('/api/v2/uploads')) return;
        const method = response.request().method();
        if (method === 'HEAD') offsets.push(Number(response.headers()['upload-offset']));
        if (method === 'POST') creations++;
      });
      await page.locator('#file-input').setInputFiles(big);
      const item = page.locator('#uploads li').filter({ hasText: bigName });
      await expect.poll(() => item.getAttribute('data-state'), { timeout: 120_000 }).toBe('done');
      expect(offsets[0]).toBeGreaterThan(0);
      expect(creations).toBe(0);

      expect(patches[0]).toBe(0);
      const [file] = await listed(key);
      expect(file?.encryption).toBe('age');
      expect(file?.originalName).toMatch(/^[0-9a-f]{16}\.age$/);
      expect(file?.size).toBe(payloadLength(BIG_SIZE));
      expect(file?.meta).toBeTruthy();
      const stored = await rawDownload(key, file?.id as string);
      expect(sha256(stored)).not.toBe(sha256(plaintext));
      expect(Buffer.from(stored).includes(plaintext.subarray(0, 4096))).toBe(false);
      const agePath = join(dir, 'stored.age');
      writeFileSync(agePath, stored);

      // The exported identity opens it with Debian's age: the same SHA-256.
      const [exported] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: /Export identity/ }).click(),
      ]);
      identityPath = join(dir, 'identity.txt');
      writeFileSync(identityPath, await savedBytes(exported));
      expect(readFileSync(identityPath, 'utf8')).toMatch(
        /^# created: .*\n# public key: age1\S+\nAGE-SECRET-KEY-1\S+\n$/,
      );
      const opened = execFileSync('age', ['-d', '-i', identityPath, agePath], { maxBuffer: 64 * MiB });
      expect(sha256(opened)).toBe(sha256(plaintext));

      // The list shows its real name; the owner downloads the plaintext.
      const row = fileRow(page, bigName);
      await expect.poll(() => row.count()).toBe(1);
      const [decrypted] = await Promise.all([
        page.waitForEvent('download', { timeout: 60_000 }),
        row.getByRole('button', { name: `Download ${bigName} (decrypted)` }).click(),
      ]);
      expect(decrypted.suggestedFilename()).toBe(bigName);
      // Saved as the share pages save: streamed through the Service Worker, never held as a Blob.
      expect(new URL(decrypted.url()).pathname).toMatch(/^\/share\/_e2e-save\//);
      expect(sha256(await savedBytes(decrypted))).toBe(sha256(plaintext));
      // The cut PATCHes are the only failures the page reports.
      expect(problems.filter((problem) => !problem.includes('ERR_INTERNET_DISCONNECTED'))).toEqual([]);
      await page.close();
    }, 240_000);

    it('shares an encrypted file with a keyed link whose whole URL opens the file, or with a passphrase', async () => {
      const { page, problems } = await newPage(context);
      await signIn(page, key);
      const row = fileRow(page, bigName);
      await row.getByRole('button', { name: `Share ${bigName} (encrypted)` }).click();
      await row.getByRole('button', { name: `Make an encrypted link to ${bigName}` }).click();
      const field = row.locator('input.share-url');
      await field.waitFor();
      const url = await field.inputValue();
      expect(url).toMatch(/\/share\/[^#]+#k=AGE-SECRET-KEY-1[0-9A-Z]+$/);
      await expect(row.getByRole('button', { name: `Copy the share link of ${bigName}` }).count()).resolves.toBe(1);
      const [address, secret] = url.split('#k=') as [string, string];
      const response = await fetch(`${address}/download`);
      expect(response.status).toBe(200);
      const linkFile = join(dir, 'link.age');
      writeFileSync(linkFile, new Uint8Array(await response.arrayBuffer()));
      const linkKey = join(dir, 'link-key.txt');
      writeFileSync(linkKey, `${secret}\n`);
      expect(sha256(execFileSync('age', ['-d', '-i', linkKey, linkFile], { maxBuffer: 64 * MiB }))).toBe(
        sha256(plaintext),
      );
      // The owner's identity does not open the link's header: it is the link's own.
      expect(() => execFileSync('age', ['-d', '-i', identityPath, linkFile], { stdio: 'pipe' })).toThrow();

      await row.getByLabel('Passphrase', { exact: true }).check();
      await row.getByLabel('Passphrase for the link').fill('a long passphrase for the link');
      await row.getByRole('button', { name: `Make an encrypted link to ${bigName}` }).click();
      await expect.poll(() => field.inputValue()).not.toContain('#k=');
      expect(problems).toEqual([]);
      await page.close();
    }, 120_000);

    it('the Links dialog of an encrypted file makes only links that open it: a key in the whole URL, shown with a copy button', async () => {
      const { page, problems } = await newPage(context);
      await signIn(page, key);
      const row = fileRow(page, bigName);
      await row.getByRole('button', { name: `Share links of ${bigName}` }).click();
      const dialog = page.locator('#links-dialog');
      // The way in is asked (a plain link would be refused: the API wants a header for it).
      await expect.poll(() => dialog.getByLabel('Key in the link').isChecked()).toBe(true);
      expect(await dialog.getByLabel('Passphrase', { exact: true }).isVisible()).toBe(true);
      await dialog.getByLabel('Label (only you see it)').fill('For the accountant');
      await dialog.getByRole('button', { name: 'Make link' }).click();
      const field = dialog.locator('input.share-url');
      await field.waitFor();
      const url = await field.inputValue();
      expect(url).toMatch(/\/share\/[^#]+#k=AGE-SECRET-KEY-1[0-9A-Z]+$/);
      expect(await dialog.getByRole('button', { name: `Copy the share link of ${bigName}` }).count()).toBe(1);
      await dialog.getByText('For the accountant').waitFor();
      // The link's own header opens with the key in its URL: the file key, whose meta holds the plaintext's SHA-256.
      const [address, secret] = url.split('#k=') as [string, string];
      const [file] = (await listed(key)).filter((record) => record.meta && record.size === payloadLength(BIG_SIZE));
      const links = await api<{ data: { links: { id: string; url: string; label: string | null }[] } }>(
        server().origin,
        key,
        `/api/v2/files/${file?.id}/links`,
      );
      const made = links.body.data.links.find((link) => link.url === address);
      expect(made?.label).toBe('For the accountant');
      const headers = await api<{ data: { headers: { fileId: string; header: string }[] } }>(
        server().origin,
        key,
        `/api/v2/links/${made?.id}/headers`,
      );
      const header = headers.body.data.headers[0]?.header ?? '';
      const fileKey = await recoverFileKey(new TextEncoder().encode(header), { identity: secret });
      expect(openMeta(fileKey, file?.meta ?? '').sha256).toBe(sha256(plaintext));
      await dialog.getByRole('button', { name: 'Close' }).click();
      expect(problems).toEqual([]);
      await page.close();
    }, 60_000);

    it('restores the identity in a fresh browser from its passphrase backup', async () => {
      const fresh = await browser.newContext({ viewport: DESKTOP });
      try {
        const { page, problems } = await newPage(fresh);
        await signIn(page, key);
        await expect.poll(() => page.locator('#e2e-status').textContent()).toContain('is not in this browser');
        // Without the identity the list has only the neutral name.
        await expect.poll(() => page.locator('#files-body tr').count()).toBe(1);
        expect(await fileRow(page, bigName).count()).toBe(0);
        await page.getByLabel('Passphrase of the backup').fill('not the passphrase at all');
        await page.getByRole('button', { name: 'Restore the identity' }).click();
        await expect
          .poll(() => page.locator('#e2e-note').textContent(), { timeout: 30_000 })
          .toContain('does not open');
        await page.getByLabel('Passphrase of the backup').fill(PASSPHRASE);
        await page.getByRole('button', { name: 'Restore the identity' }).click();
        await expect
          .poll(() => page.locator('#e2e-note').textContent(), { timeout: 30_000 })
          .toContain('Identity restored');
        const restored = await page.evaluate(() => localStorage.getItem('edgeshare.e2e.identities'));
        const exported = readFileSync(identityPath, 'utf8').trim().split('\n').pop();
        expect(JSON.parse(restored ?? '[]')).toEqual([exported]);
        await expect.poll(() => fileRow(page, bigName).count()).toBe(1);
        expect(problems).toEqual([]);
      } finally {
        await fresh.close();
      }
    }, 120_000);

    it('imports an exported identity for the command line’s use, refusing another account’s', async () => {
      const fresh = await browser.newContext({ viewport: DESKTOP });
      try {
        const { page, problems } = await newPage(fresh);
        await signIn(page, key);
        await page.getByText('Import an identity file').click();
        const other = await generateIdentity();
        await page.getByLabel(/Identity file/).fill(other);
        await page.getByRole('button', { name: 'Import', exact: true }).click();
        await expect.poll(() => page.locator('#e2e-note').textContent()).toContain('not your account’s');
        await page.getByLabel(/Identity file/).fill(readFileSync(identityPath, 'utf8'));
        await page.getByRole('button', { name: 'Import', exact: true }).click();
        await expect.poll(() => page.locator('#e2e-note').textContent()).toContain('imported');
        await expect.poll(() => fileRow(page, bigName).count()).toBe(1);
        expect(problems).toEqual([]);
      } finally {
        await fresh.close();
      }
    }, 60_000);

    it('a guest sends an encrypted file through an e2e request made in the web app, refused without #r=, and the owner opens it', async () => {
      const { origin } = server();
      const recipient = (await api<{ data: { recipient: string } }>(origin, key, '/api/v2/e2e/identity')).body.data
        .recipient;
      // The owner makes the request in the web app: its link carries the recipient after #r=.
      const owner = await newPage(context);
      await signIn(owner.page, key);
      await owner.page.goto(`${origin}/#requests`);
      await owner.page.getByLabel('Name (only you see it)').fill('Scans, encrypted');
      await owner.page.getByLabel(/End-to-end encrypted/).check();
      await owner.page.getByRole('button', { name: 'Make upload link' }).click();
      const linkField = owner.page.getByRole('textbox', { name: 'Link of Scans, encrypted' });
      await linkField.waitFor();
      const link = await linkField.inputValue();
      expect(link).toBe(`${link.split('#')[0]}#r=${recipient}`);
      expect(owner.problems).toEqual([]);
      await owner.page.close();
      const requests = await api<{ data: { requests: { id: string; url: string; e2e: boolean }[] } }>(
        origin,
        key,
        '/api/v2/requests',
      );
      const made = requests.body.data.requests.find((request) => link.startsWith(request.url));
      expect(made?.e2e).toBe(true);
      const created = { body: { data: { id: made?.id as string, url: link.split('#')[0] as string } } };
      const scanPath = join(dir, scanName);
      writeFileSync(scanPath, scan);

      const guestContext = await browser.newContext({ viewport: PHONE });
      try {
        const { page, problems } = await newPage(guestContext);
        // Without the fragment the page says the link is incomplete and takes nothing.
        await page.goto(created.body.data.url);
        await expect.poll(() => page.locator('#banner').textContent()).toContain('This link is incomplete');
        expect(await page.locator('#drop-zone').isVisible()).toBe(false);

        await page.goto(link);
        await page.locator('#request-e2e').waitFor();
        await page.locator('#file-input').setInputFiles(scanPath);
        const sent = page.locator('#uploads li').filter({ hasText: scanName });
        await expect
          .poll(async () => `${await sent.getAttribute('data-state')}: ${await sent.textContent()}`, {
            timeout: 60_000,
          })
          .toMatch(/^(done|error):/);
        expect(await sent.textContent()).toContain('Sent.');
        expect(await page.locator('#receipt').textContent()).toContain(scanName);
        expect(await page.locator('#receipt').textContent()).toContain(sha256(scan));
        await screenshot(page, 'e2e-request-390');
        await page.setViewportSize(DESKTOP);
        expect(await sidewaysScroll(page)).toEqual([]);
        await page.setViewportSize(PHONE);
        expect(await sidewaysScroll(page)).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await guestContext.close();
      }

      const received = (await listed(key)).find((file) => file.requestId === created.body.data.id);
      expect(received?.encryption).toBe('age');
      expect(received?.originalName).not.toContain('passport');
      const stored = await rawDownload(key, received?.id as string);
      expect(Buffer.from(stored).includes(scan.subarray(0, 4096))).toBe(false);

      const { page, problems } = await newPage(context);
      await signIn(page, key);
      const row = fileRow(page, scanName);
      await expect.poll(() => row.count()).toBe(1);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        row.getByRole('button', { name: `Download ${scanName} (decrypted)` }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(scanName);
      expect(sha256(await savedBytes(download))).toBe(sha256(scan));

      // The web app at both widths, the encryption section in view: nothing sideways, no CSP violation.
      for (const size of [DESKTOP, PHONE]) {
        await page.setViewportSize(size);
        await page.locator('#e2e-section').scrollIntoViewIfNeeded();
        expect(await sidewaysScroll(page)).toEqual([]);
        await screenshot(page, `e2e-web-app-${size.width}`);
      }
      expect(problems).toEqual([]);
      await page.close();
    }, 180_000);
    it('a collection link made in the web app carries each encrypted member’s header: the collection page decrypts the member', async () => {
      const { origin } = server();
      const received = (await listed(key)).find((file) => file.requestId);
      const made = await api<{ data: { id: string } }>(origin, key, '/api/v2/collections', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Papers', fileIds: [received?.id] }),
      });
      expect(made.status).toBe(201);
      const { page, problems } = await newPage(context);
      await signIn(page, key);
      await page.goto(`${origin}/#collections`);
      await page.getByRole('button', { name: 'Share links of Papers' }).click();
      const dialog = page.locator('#links-dialog');
      await dialog.getByText('No links made to this collection yet.').waitFor();
      await dialog.getByRole('button', { name: 'Make link' }).click();
      const field = dialog.locator('input.share-url');
      await field.waitFor();
      const url = await field.inputValue();
      expect(url).toMatch(/\/share\/[^#]+#k=AGE-SECRET-KEY-1[0-9A-Z]+$/);
      expect(problems).toEqual([]);

      // The collection page: the member by its real name, saved decrypted.
      await page.goto(url);
      await expect.poll(() => page.locator('.e2e-status').getAttribute('data-state')).toBe('ready');
      expect(await page.locator('.file-name').allTextContents()).toEqual([scanName]);
      await page.evaluate(() => navigator.serviceWorker.ready);
      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: 30_000 }),
        page.getByRole('link', { name: new RegExp(`^Download ${scanName}`) }).click(),
      ]);
      await expect.poll(() => page.locator('.e2e-status').getAttribute('data-state'), { timeout: 30_000 }).toBe('done');
      expect(sha256(await savedBytes(download))).toBe(sha256(scan));
      expect(problems).toEqual([]);
      await page.close();
    }, 90_000);

    it('an encrypted upload cancelled, or refused by the server, leaves no key in the browser', async () => {
      const { origin, adminToken } = server();
      const small = join(dir, 'draft contract.bin');
      writeFileSync(small, randomBytes(MiB));
      const { page, problems } = await newPage(context);
      const kept = () => keptUploads(page);
      await signIn(page, key);
      await page.getByLabel('Encrypt end to end').check();

      // Cancelled while its first PATCH is under way (held here until then).
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let patching = false;
      await page.route('**/api/v2/uploads/**', async (route) => {
        if (route.request().method() !== 'PATCH') return route.fallback();
        patching = true;
        await held;
        await route.abort('aborted').catch(() => {});
      });
      let uploadUrl = '';
      page.on('response', (response) => {
        if (response.request().method() === 'POST' && response.url().endsWith('/api/v2/uploads')) {
          uploadUrl = new URL(response.headers().location ?? '', response.url()).href;
        }
      });
      await page.locator('#file-input').setInputFiles(small);
      await until(() => patching, 'the first PATCH');
      // The keys are kept while it runs (what a resume needs), and tus's address of it.
      await expect.poll(kept).toHaveLength(2);
      await page.getByRole('button', { name: 'Cancel the upload of draft contract.bin' }).click();
      const item = page.locator('#uploads li').filter({ hasText: 'draft contract.bin' });
      await expect.poll(() => item.getAttribute('data-state')).toBe('error');
      expect(await item.textContent()).toContain('Its keys are deleted from this browser');
      await expect.poll(kept).toEqual([]);
      // And the server's copy goes with them (tus termination): nothing is left to resume.
      expect(uploadUrl).toMatch(/\/api\/v2\/uploads\/[\w-]+$/);
      // (The item says cancelled once the DELETE is answered: one HEAD, not a poll the rate limit
      // would stop.) 410: terminated, where an upload still there answers 200 with its offset.
      const head = await fetch(uploadUrl, {
        method: 'HEAD',
        headers: { Authorization: `Bearer ${key}`, 'Tus-Resumable': '1.0.0' },
      });
      expect(head.status).toBe(410);
      release();
      await page.unrouteAll();

      // Refused by the server: an account whose quota the file does not fit in (413 at creation).
      const response = await fetch(`${origin}/admin/keys`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'e2e owner, small quota', storageQuotaBytes: 256 * 1024 }),
      });
      expect(response.status).toBe(201);
      const { data } = (await response.json()) as { data: { key: string } };
      expect(problems).toEqual([]);
      await page.close();
      // (Another tab: this one keeps the first key for its session.)
      const other = await newPage(context);
      await signIn(other.page, data.key);
      await other.page.getByLabel('Encrypt end to end').check();
      await other.page.locator('#file-input').setInputFiles(small);
      const refused = other.page.locator('#uploads li').filter({ hasText: 'draft contract.bin' });
      await expect.poll(() => refused.getAttribute('data-state'), { timeout: 30_000 }).toBe('error');
      expect(await refused.textContent()).toMatch(/quota|storage|space/i);
      expect(await keptUploads(other.page)).toEqual([]);
      expect(other.problems.filter((problem) => !problem.includes('status of 413'))).toEqual([]);
      await other.page.close();
    }, 90_000);
  },
);
