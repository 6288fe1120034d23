/// <reference lib="dom" />
// The web app's Webhooks section in real Chromium against wrangler dev: add a webhook with
// chosen events, copy its secret (shown once), see a delivery to a real receiver on 127.0.0.1,
// resend it, and delete the webhook.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  createKey,
  expectDatesOneWay,
  expectTablesInPlace,
  launchBrowser,
  newPage,
  server,
  WEB_APP_TABLES,
  warnIfNoChromium,
} from '../helpers/browser.ts';
import { freePort } from '../helpers/dev-server.ts';

type Hit = { headers: IncomingHttpHeaders; body: string };

async function signIn(page: Page, key: string) {
  await page.goto(`${server().origin}/`);
  await page.getByLabel('API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Use key' }).click();
  // The web app's views: Webhooks is one of them (its address keeps it open across a reload).
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
}

describe.runIf(warnIfNoChromium('the webhooks browser tests'))('webhooks in the web app', () => {
  let browser: Browser;
  let context: BrowserContext;
  let receiver: Server;
  let receiverUrl: string;
  const hits: Hit[] = [];

  beforeAll(async () => {
    const port = await freePort();
    receiverUrl = `http://127.0.0.1:${port}/hook`;
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        hits.push({ headers: request.headers, body });
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server().origin });
  });

  afterAll(async () => {
    await browser?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('adds a webhook for chosen events, shows its secret once, lists deliveries, resends, deletes', async () => {
    const key = await createKey('web app webhooks test');
    const { page, problems } = await newPage(context);
    await signIn(page, key);

    await page.getByLabel('Receiver URL').fill(receiverUrl);
    await page.getByLabel('All events, including ones added later').uncheck();
    await page.getByLabel('file.uploaded').check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secretField = page.getByLabel('Signing secret');
    await secretField.waitFor();
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('#webhook-secret-box').isVisible()).toBe(false);

    const item = page.locator('#webhooks-list li').filter({ hasText: receiverUrl });
    await expect.poll(() => item.textContent()).toContain('file.uploaded');
    // After a reload the secret is nowhere on the page.
    await page.reload();
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await expect.poll(() => item.count()).toBe(1);
    expect(await page.content()).not.toContain(secret.slice(6));

    const form = new FormData();
    form.append('file', new Blob(['for the webhook'], { type: 'text/plain' }), 'hooked.txt');
    const uploaded = await fetch(`${server().origin}/api/v2/upload`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    await expect.poll(() => hits.length, { timeout: 15_000 }).toBe(1);

    const rows = page.locator('#webhook-deliveries-body tr');
    await expect
      .poll(
        async () => {
          await item.getByRole('button', { name: 'Deliveries' }).click();
          return rows.first().textContent();
        },
        { timeout: 15_000 },
      )
      .toContain('delivered');
    expect(await rows.first().textContent()).toContain('file.uploaded');
    expect(await rows.first().textContent()).toContain('200');
    await expectTablesInPlace(page, WEB_APP_TABLES);
    expect((await expectDatesOneWay(page)).length).toBeGreaterThanOrEqual(1);

    await rows.first().getByRole('button', { name: 'Resend' }).click();
    await expect.poll(() => hits.length, { timeout: 15_000 }).toBe(2);
    expect(hits[1]?.headers['webhook-id']).toBe(hits[0]?.headers['webhook-id']);

    page.once('dialog', (dialog) => void dialog.accept());
    await item.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => item.count()).toBe(0);
    const { body } = await api<{ data: { webhooks: unknown[] } }>(server().origin, key, '/api/v2/webhooks');
    expect(body.data.webhooks).toEqual([]);
    expect(problems).toEqual([]);
  }, 90_000);
});
