/// <reference lib="dom" />
// (DOM types: the page.evaluate callbacks here run in the browser.)
// Reports in real Chromium, at 1280 and 390 px wide: a visitor reports a share link from its page
// (a plain form post without JavaScript, and with it), and the operator reviews the open report
// on /keys and quarantines its file, which then answers 451; a recent decision is released again.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, launchBrowser, newPage, screenshot, server, warnIfNoChromium } from '../helpers/browser.ts';

const WIDTHS = [1280, 390] as const;

/** The page is no wider than the window: nothing scrolls sideways. */
const fitsTheWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** A public file of a fresh account, through the API: its id and share link. */
async function sharedFile(name: string): Promise<{ id: string; shareUrl: string }> {
  const { origin } = server();
  const key = await createKey(name);
  const form = new FormData();
  form.append('file', new Blob([`the file of ${name}`], { type: 'text/plain' }), `${name}.txt`);
  const response = await fetch(`${origin}/api/v2/upload`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}` },
    body: form,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { id: string; shareUrl: string } }).data;
}

describe.runIf(warnIfNoChromium('the report form and the operator’s review browser tests'))(
  'reports in Chromium',
  () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await launchBrowser();
    });

    afterAll(async () => {
      await browser?.close();
    });

    it('a visitor reports a link from its page: the form fits 1280 and 390 px, and posts with or without JavaScript', async () => {
      const file = await sharedFile('reported-in-chromium');
      for (const [width, javaScriptEnabled] of [
        [1280, true],
        [390, false],
      ] as const) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, javaScriptEnabled });
        const { page, problems } = await newPage(context);
        await page.goto(file.shareUrl);
        await page.getByRole('link', { name: 'Report this link' }).click();
        await page.waitForURL(/\/report\?url=/);
        expect(await page.getByLabel('The link', { exact: true }).inputValue()).toBe(file.shareUrl);
        expect(await fitsTheWidth(page), `the form at ${width} px`).toBe(true);
        await page.getByLabel('What is wrong with it').selectOption('phishing');
        await page.getByLabel('Details (optional)').fill(`A fake login page, seen at ${width} px`);
        await screenshot(page, `report-form-${width}`, true);
        await page.getByRole('button', { name: 'Send the report' }).click();
        await page.getByRole('heading', { name: 'Report received' }).waitFor();
        expect(await page.locator('body').textContent()).toMatch(/Reference: rpt_[A-Za-z0-9_-]{22}/);
        expect(await fitsTheWidth(page), `the answer at ${width} px`).toBe(true);
        expect(problems).toEqual([]);
        await context.close();
      }
    });

    it('the operator reviews an open report on /keys at 1280 and 390 px and quarantines its file: the link answers 451', async () => {
      const { origin, adminToken } = server();
      for (const width of WIDTHS) {
        const file = await sharedFile(`review-at-${width}`);
        const sent = await fetch(`${origin}/api/v2/reports`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            url: file.shareUrl,
            reason: 'malware',
            details: `An installer, reviewed at ${width} px`,
          }),
        });
        expect(sent.status).toBe(202);
        const { id } = ((await sent.json()) as { data: { id: string } }).data;

        const context = await browser.newContext({ viewport: { width, height: 900 } });
        const { page, problems } = await newPage(context);
        page.on('dialog', (dialog) => dialog.accept());
        await page.goto(`${origin}/keys`);
        await page.getByLabel('Admin token').fill(adminToken);
        await page.getByRole('button', { name: 'Sign in' }).click();
        const card = page.locator(`#reports-list li[data-report-id="${id}"]`);
        await card.waitFor();
        expect(await card.getByRole('heading').textContent()).toBe(`Malware: File ${file.id}`);
        expect(await card.textContent()).toContain(`An installer, reviewed at ${width} px`);
        expect(await card.textContent()).toContain('1 visitor');
        expect(await fitsTheWidth(page), `/keys at ${width} px`).toBe(true);
        await screenshot(page, `keys-reports-${width}`, true);

        await card.getByLabel('Statement').fill(`Quarantined: malware reported at ${width} px.`);
        await card.getByRole('button', { name: 'Quarantine the file' }).click();
        await expect.poll(() => page.getByRole('alert').textContent()).toContain('Decided: quarantine');
        const refused = await fetch(`${file.shareUrl}/download`);
        expect(refused.status).toBe(451);
        expect(await refused.json()).toMatchObject({ statement: `Quarantined: malware reported at ${width} px.` });

        // The decision is listed, with the way back: released, the link serves the file again.
        const decided = page.locator(`#decided-list li[data-report-id="${id}"]`);
        await decided.getByRole('button', { name: 'Release the file' }).click();
        await expect.poll(() => page.getByRole('alert').textContent()).toContain('Release the file: done.');
        expect((await fetch(`${file.shareUrl}/download`)).status).toBe(200);
        expect(await fitsTheWidth(page), `/keys at ${width} px, decided`).toBe(true);
        expect(problems).toEqual([]);
        await context.close();
      }
    });
  },
);
