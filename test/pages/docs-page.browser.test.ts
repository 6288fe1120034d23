// /docs in real Chromium with every request outside 127.0.0.1 blocked: the reference renders from
// this Worker alone, and "Try it out" reaches this origin's API with a key. One page, loaded once
// (Swagger UI takes seconds to render the reference): the cases go on from where the one before
// left it, the switch to v1 last.
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, launchBrowser, newPage, screenshot, server, warnIfNoChromium } from '../helpers/browser.ts';

describe.runIf(warnIfNoChromium('the /docs browser tests'))('/docs in Chromium, offline', () => {
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let response: Response | null;
  const blocked: string[] = [];
  const requested: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    await context.route('**/*', (route) => {
      const url = route.request().url();
      requested.push(url);
      if (new URL(url).hostname === '127.0.0.1') return route.continue();
      blocked.push(url);
      return route.abort('blockedbyclient');
    });
    ({ page, problems } = await newPage(context));
    response = await page.goto(`${server().origin}/docs`);
    // Swagger UI renders for 10-15 s here, longer while other files keep both cores busy.
    await page.locator('.opblock').first().waitFor({ timeout: 90_000 });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('renders every operation with nothing from outside this Worker', async () => {
    expect(response?.status()).toBe(200);
    await expect.poll(() => page.locator('.opblock').count()).toBeGreaterThanOrEqual(7);
    expect(await page.locator('.info .title').textContent()).toContain('edgeshare API v2');
    for (const path of ['/upload', '/files', '/files/{id}', '/files/bulk']) {
      expect(await page.locator(`.opblock-summary-path[data-path="${path}"]`).count(), path).toBeGreaterThan(0);
    }
    await screenshot(page, 'docs-page');
    expect(blocked).toEqual([]);
    expect(requested.some((url) => url.endsWith('/assets/vendor/swagger-ui/swagger-ui-bundle.js'))).toBe(true);
    expect(problems).toEqual([]);
  });

  it('sends "Try it out" to this origin with the key given to Authorize', async () => {
    const { origin } = server();
    const key = await createKey('docs try-it-out');

    await page.locator('.auth-wrapper button.authorize').click();
    await page.locator('.auth-container input').fill(key);
    await page.locator('.auth-btn-wrapper button.authorize').click();
    await page.locator('.auth-btn-wrapper button.btn-done').click();

    const operation = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path[data-path="/files"]') });
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    const [apiResponse] = await Promise.all([
      page.waitForResponse((r) => r.url().startsWith(`${origin}/api/v2/files`)),
      operation.locator('.execute').click(),
    ]);
    expect(apiResponse.status()).toBe(200);
    expect(await apiResponse.request().headerValue('authorization')).toBe(`Bearer ${key}`);
    await expect
      .poll(() => operation.locator('.live-responses-table tbody .response-col_status').first().textContent())
      .toContain('200');
    expect(blocked).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('switches to the v1 reference', async () => {
    await page.getByLabel('API version').selectOption('/api/v1/openapi.json');
    await expect.poll(() => page.locator('.info .title').textContent()).toContain('edgeshare API v1');
    expect(await page.locator('.opblock-summary-path[data-path="/upload/bulk"]').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'OpenAPI document' }).getAttribute('href')).toBe(
      '/api/v1/openapi.json',
    );
    expect(blocked).toEqual([]);
  });
});
