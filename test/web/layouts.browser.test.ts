/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks here run in the browser.)
// Every page at 390 px (a phone) in real Chromium: each view of the web app (files and its
// uploads, a file's share links and their access logs, collections, file requests, webhooks), the
// API keys page (the account's part and the operator's), the share page, a collection's page and
// the file request page with its receipt. Nothing scrolls sideways, neither the page nor a part of
// it; tables are cards there and whole tables at 1280 px, where the access log shows every
// column; the receipt wraps whole words (only a name too long for its line, and the digest, break
// inside one). One browser page, on data made once through the API.
import { createServer, type Server } from 'node:http';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  createKey,
  launchBrowser,
  newPage,
  screenshot,
  server,
  sidewaysScroll,
  splitWords,
  warnIfNoChromium,
} from '../helpers/browser.ts';
import { freePort } from '../helpers/dev-server.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

const LONG_NAME = 'quarterly-financial-statements-final-version-2026.txt';
const LINK_LABEL = 'For the accountant at the firm';
const REQUEST_LABEL = 'Signed contracts from the client';
const COLLECTION = 'Trip photos and documents';

type Setup = { key: string; shareUrl: string; collectionUrl: string; requestUrl: string };

async function json<T>(key: string, path: string, body: unknown): Promise<T> {
  const { status, body: answer } = await api<{ data: T }>(server().origin, key, path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect([200, 201], `${path}: ${status}`).toContain(status);
  return answer.data;
}

async function upload(key: string, name: string): Promise<{ id: string; shareUrl: string }> {
  const form = new FormData();
  form.append('file', new File([`the content of ${name}\n`], name, { type: 'text/plain' }));
  const { status, body } = await api<{ data: { id: string; shareUrl: string } }>(
    server().origin,
    key,
    '/api/v2/upload',
    {
      method: 'POST',
      body: form,
    },
  );
  expect(status).toBe(201);
  return body.data;
}

/** One account with something in every view: files, a link with visits, a collection, a request, a webhook. */
async function setUp(receiverUrl: string): Promise<Setup> {
  const key = await createKey('layouts at 390 px, a key with a rather long name');
  await json(key, '/api/v2/webhooks', { url: receiverUrl, events: ['*'] });
  const [statements, notes] = await Promise.all([upload(key, LONG_NAME), upload(key, 'notes.txt')]);
  const [link, collection, request] = await Promise.all([
    json<{ url: string }>(key, `/api/v2/files/${statements.id}/links`, {
      label: LINK_LABEL,
      password: 'correct horse battery',
    }),
    json<{ id: string }>(key, '/api/v2/collections', { name: COLLECTION, note: 'From the trip' }),
    json<{ url: string }>(key, '/api/v2/requests', { label: REQUEST_LABEL, message: 'Please send the signed copies' }),
  ]);
  const form = new FormData();
  form.append('file', new Blob(['signed']), 'contract-signed-by-both-parties.txt');
  const [collectionLink, sent] = await Promise.all([
    json<{ url: string }>(key, `/api/v2/collections/${collection.id}/links`, {}),
    fetch(`${request.url.replace('/r/', '/api/v2/r/')}/upload`, { method: 'POST', body: form }),
    json(key, `/api/v2/collections/${collection.id}/files`, { fileIds: [statements.id, notes.id] }),
    // Visits for the access log: the page, and a download refused without the password.
    ...['', '/download'].map(async (path) => (await fetch(`${link.url}${path}`)).arrayBuffer()),
  ]);
  expect(sent.status).toBe(201);
  return { key, shareUrl: notes.shareUrl, collectionUrl: collectionLink.url, requestUrl: request.url };
}

const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name, exact: true });

/** Nothing on the page scrolls sideways, the document no wider than the window (named `where`). */
async function expectFits(page: Page, where: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  expect.soft(await page.evaluate(() => document.documentElement.scrollWidth), where).toBeLessThanOrEqual(width);
  expect.soft(await page.evaluate(() => window.innerWidth), where).toBe(width);
  expect.soft(await sidewaysScroll(page), where).toEqual([]);
}

/** How a table is drawn: as cards (each row a grid, the header hidden) or as a table. */
const drawnAs = (table: Locator) =>
  table.evaluate((element: HTMLTableElement) => {
    const rows = Array.from(element.tBodies[0]?.rows ?? []).filter((row) => !row.hidden);
    const header = element.tHead?.getBoundingClientRect();
    const displays = new Set(rows.map((row) => getComputedStyle(row).display));
    if (rows.length > 0 && displays.size === 1 && displays.has('grid') && (header?.height ?? 0) <= 1) return 'cards';
    if (rows.length > 0 && displays.size === 1 && displays.has('table-row')) return 'table';
    return `neither: ${rows.length} rows, ${[...displays].join(', ')}, header ${header?.height}`;
  });

/**
 * Every column of a table is there to see: its header cells drawn side by side within the box
 * that holds the table, and each row's cells as many as its header's.
 */
const columnsShown = (table: Locator) =>
  table.evaluate((element: HTMLTableElement) => {
    const holder = (element.parentElement as HTMLElement).getBoundingClientRect();
    const shown = Array.from(element.tHead?.rows[0]?.cells ?? []).filter((cell) => {
      const box = cell.getBoundingClientRect();
      return box.width > 8 && box.left >= holder.left - 1 && box.right <= holder.right + 1;
    });
    return shown.map((cell) => cell.textContent);
  });

describe.runIf(warnIfNoChromium('the layout browser test'))('every page at 390 px', () => {
  let browser: Browser;
  let receiver: Server;
  let receiverUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    receiverUrl = `http://127.0.0.1:${port}/a/receiver/with/a/long/path/for/the/webhook/deliveries`;
    receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => response.end('ok'));
    });
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('never scrolls sideways, draws tables as cards, and shows every column at 1280 px', async () => {
    const { origin, adminToken } = server();
    const setup = await setUp(receiverUrl);
    const context = await browser.newContext({ viewport: PHONE });
    const { page, problems } = await newPage(context);

    // The web app: files, and an upload with its share link.
    await page.goto(`${origin}/`);
    await expectFits(page, 'the web app, signed out');
    await page.getByLabel('API key', { exact: true }).fill(setup.key);
    await page.getByRole('button', { name: 'Use key' }).click();
    await page.locator('#files-body tr').filter({ hasText: LONG_NAME }).waitFor();
    await page.locator('#file-input').setInputFiles({
      name: 'uploaded-from-a-phone-with-a-long-name.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('x'),
    });
    await page.locator('#uploads li[data-state="done"] .share-link').waitFor();
    expect(await drawnAs(page.locator('table:has(#files-body)'))).toBe('cards');
    await expectFits(page, 'files and uploads');

    // A file's share links, one link's access log and all of them together: cards, two facts a line.
    await page.getByRole('button', { name: `Share links of ${LONG_NAME}` }).click();
    await page.getByRole('button', { name: `Access log of ${LINK_LABEL}` }).click();
    await page.getByRole('button', { name: 'Access log of all these links' }).click();
    const logs = page.locator('#links-dialog .access-table');
    await expect.poll(() => logs.locator('tbody tr').count()).toBeGreaterThanOrEqual(4);
    for (const log of await logs.all()) expect(await drawnAs(log)).toBe('cards');
    const card = logs.first().locator('tbody tr').first();
    const tops = await card.evaluate((row: HTMLTableRowElement) =>
      ['When', 'What'].map((label) => row.querySelector(`td[data-label="${label}"]`)?.getBoundingClientRect().top),
    );
    expect(Math.abs((tops[0] ?? 0) - (tops[1] ?? -10)), JSON.stringify(tops)).toBeLessThan(2);
    await expectFits(page, 'share links and access logs');
    // A desktop: the access logs are tables again, every column in view.
    await page.setViewportSize(DESKTOP);
    for (const log of await logs.all()) {
      expect(await drawnAs(log)).toBe('table');
      expect(await columnsShown(log)).toEqual(['When', 'What', 'Outcome', 'Sent', 'Client', 'Where', 'Visitor']);
    }
    await expectFits(page, 'share links and access logs at 1280 px');
    await page.setViewportSize(PHONE);
    await page.getByRole('button', { name: 'Close', exact: true }).click();

    // Collections, with one open.
    await nav(page, 'Collections').click();
    await page.getByRole('button', { name: `Open ${COLLECTION}` }).click();
    await page.locator('#collection-files li').first().waitFor();
    await expectFits(page, 'collections');

    // File requests: a card per request, its received files under it; a table at 1280 px.
    await nav(page, 'File requests').click();
    await page.getByRole('button', { name: `Files received by ${REQUEST_LABEL}` }).click();
    await page.locator('#requests-body .received li').waitFor();
    const requests = page.locator('table:has(#requests-body)');
    expect(await drawnAs(requests)).toBe('cards');
    await expectFits(page, 'file requests');
    await screenshot(page, 'web-app-requests-phone', true);
    await page.setViewportSize(DESKTOP);
    expect(await drawnAs(requests)).toBe('table');
    expect(await columnsShown(requests)).toEqual(['Request', 'Status', 'Received', 'Link', 'Actions']);
    await expectFits(page, 'file requests at 1280 px');
    await page.setViewportSize(PHONE);

    // Webhooks, with the deliveries of one (the uploads above made them).
    await nav(page, 'Webhooks').click();
    const deliveries = page.locator('#webhook-deliveries-body tr[data-id]');
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Deliveries' }).click();
          return deliveries.count();
        },
        { timeout: 15_000 },
      )
      .toBeGreaterThan(0);
    expect(await drawnAs(page.locator('table:has(#webhook-deliveries-body)'))).toBe('cards');
    await expectFits(page, 'webhooks and deliveries');

    // /keys: the account's part, then the operator's, with one key's limits open.
    await page.goto(`${origin}/keys`);
    await expectFits(page, '/keys, signed out');
    await page.getByLabel('Your API key').fill(setup.key);
    await page.getByRole('button', { name: 'Open my keys' }).click();
    await page.locator('#account-keys-body tr').first().waitFor();
    expect(await drawnAs(page.locator('table:has(#account-keys-body)'))).toBe('cards');
    await expectFits(page, '/keys, the account’s keys');
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByLabel('Admin token').fill(adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#keys-body tr').first().waitFor();
    await page.locator('#keys-body tr').first().getByText('Change limits').click();
    expect(await drawnAs(page.locator('table:has(#keys-body)'))).toBe('cards');
    await expectFits(page, '/keys, the operator’s keys');
    await page.getByRole('button', { name: 'Sign out' }).click();

    // A file's share page and a collection's page.
    await page.goto(setup.shareUrl);
    await page.getByRole('link', { name: /^Download/ }).waitFor();
    await expectFits(page, 'the share page');
    await page.goto(setup.collectionUrl);
    await page.getByRole('heading', { name: COLLECTION }).waitFor();
    await expectFits(page, 'a collection’s page');

    // The file request page and its receipt.
    await page.goto(setup.requestUrl);
    await page.getByText('Please send the signed copies').waitFor();
    const ordinary = ['Quarterly report for the board of directors, final version.txt', 'notes.txt'];
    const unbroken = 'IMG_20261128_224312_HDR_portrait_mode_edited_version_two.txt';
    await page
      .locator('#file-input')
      .setInputFiles(
        [...ordinary, unbroken].map((name) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(`${name}\n`) })),
      );
    const receipt = page.locator('table:has(#receipt)');
    await expect.poll(() => receipt.locator('tbody tr').count()).toBe(3);
    await expectFits(page, 'the file request page and its receipt');
    // Whole words, as cards and as a table: only the digest and a name with no place to break
    // break inside a word, and no cell of it breaks words anywhere (no word-break: break-all).
    const words = receipt.locator('tbody tr').filter({ hasNotText: unbroken }).locator('th, td:not(.digest)');
    for (const size of [PHONE, DESKTOP]) {
      await page.setViewportSize(size);
      expect(await drawnAs(receipt)).toBe(size === PHONE ? 'cards' : 'table');
      expect(await splitWords(words), `${size.width} px`).toEqual([]);
      if (size === DESKTOP) expect(await splitWords(receipt.locator('thead th'))).toEqual([]);
      await expectFits(page, `the receipt at ${size.width} px`);
    }
    await page.setViewportSize(PHONE);
    const styles = await receipt.evaluate((table: HTMLTableElement) => ({
      breakAll: Array.from(table.querySelectorAll('*'), (cell) => getComputedStyle(cell).wordBreak).filter(
        (value) => value === 'break-all',
      ),
      digest: Array.from(table.querySelectorAll('td.digest'), (cell) => {
        const style = getComputedStyle(cell);
        return { font: /mono/i.test(style.fontFamily), wrap: style.overflowWrap, text: cell.textContent };
      }),
    }));
    expect(styles.breakAll).toEqual([]);
    for (const digest of styles.digest) {
      expect(digest).toEqual({ font: true, wrap: 'anywhere', text: expect.stringMatching(/^[0-9a-f]{64}$/) });
    }
    await screenshot(page, 'request-page-receipt-phone', true);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
