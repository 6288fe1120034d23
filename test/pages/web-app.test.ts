// The web app's shell at `/`: a well-formed page with a strict CSP that loads one script, the
// bundle of src/web/ (test/web/webapp.browser.test.ts drives it in a real browser).
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { expectWellFormedPage, findElements, localReferences, parseElements } from '../helpers/pages';
import { call } from '../helpers/worker';

describe('the web app at /', () => {
  it('is a page whose one script is the web app bundle, talking only to this origin', async () => {
    const response = await call('/');
    expect(response.status).toBe(200);
    const html = await response.text();
    await expectWellFormedPage(response, html);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("form-action 'none'");
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect([...html.matchAll(/<script\b[^>]*>/g)].map((tag) => tag[0])).toEqual([
      '<script src="/assets/app.js" defer>',
    ]);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\/(?!getsharex\.com)/);
    // HEAD answers too (link checkers, uptime probes).
    expect((await call('/', { method: 'HEAD' })).status).toBe(200);
  });

  it('serves a bundle built from src/web/ that carries the typed client and tus-js-client', async () => {
    const bundle = await env.ASSETS.fetch('http://assets.local/assets/app.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    const code = await bundle.text();
    expect(code).toMatch(/^\/\* edgeshare web app, bundled from src\/web\/ .*tus-js-client 4\.3\.1 \(MIT\)/);
    // The app's own strings: the API paths of the typed client and the tus endpoint.
    expect(code).toContain('/api/v2');
    expect(code).toContain('/uploads');
    // Nothing a strict CSP without 'unsafe-eval' would refuse, and no import from elsewhere.
    expect(code).not.toMatch(/\beval\(|new Function\(/);
    expect(code).not.toMatch(/\bimport\s*\(\s*["'`]https?:/);
  });

  it('closes each table inside the section it opens in: the file requests end before Webhooks', async () => {
    const html = await (await call('/')).text();
    const { root, problem } = parseElements(html);
    expect(problem).toBeUndefined();
    const tables = findElements(root, (element) => element.name === 'table');
    const placed = tables.map(({ element, ancestors }) => {
      const section = ancestors.findLast((ancestor) => ancestor.name === 'section');
      const heading = section && findElements(section, (child) => child.name === 'h2')[0]?.element.id;
      const body = findElements(element, (child) => child.name === 'tbody')[0]?.element.id;
      return [body, heading];
    });
    expect(placed).toEqual([
      ['files-body', 'files-heading'],
      ['requests-body', 'requests-heading'],
      ['webhook-deliveries-body', 'webhooks-heading'],
    ]);
    // Nothing but captions, column groups and rows inside a table: a browser moves anything else out.
    for (const { element } of tables) {
      expect(
        element.children
          .map((child) => child.name)
          .filter((name) => !/^(caption|colgroup|thead|tbody|tfoot)$/.test(name)),
      ).toEqual([]);
    }
    // Every section is a sibling under the app, none inside another or inside a table.
    for (const { ancestors } of findElements(root, (element) => element.name === 'section')) {
      expect(ancestors.map((ancestor) => ancestor.name)).not.toContain('table');
      expect(ancestors.map((ancestor) => ancestor.name)).not.toContain('section');
    }
  });

  it('asks for the key in a password field and labels every control', async () => {
    const html = await (await call('/')).text();
    expect(html).toMatch(/<label for="api-key">API key<\/label>\s*<input id="api-key" name="key" type="password"/);
    const ids = [...html.matchAll(/<(?:input|select) id="([^"]+)"([^>]*)>/g)];
    expect(ids.length).toBeGreaterThanOrEqual(8);
    for (const [, id, attributes] of ids) {
      const labelled = html.includes(`<label for="${id}">`) || /aria-label="[^"]+"/.test(attributes ?? '');
      expect(labelled, `#${id} has a label`).toBe(true);
    }
    // Progress and usage are native elements with labels; the page says where the key is kept.
    expect(html).toContain('<label for="usage-bytes">Space used</label><meter id="usage-bytes"');
    expect(html).toMatch(/session storage.*local storage/s);
    expect(html).toContain('id="forget-key"');
  });

  it('is the same page with or without an admin token, and never carries a key or token', async () => {
    const withToken = await (await call('/')).text();
    const without = await (await call('/', {}, { ADMIN_TOKEN: undefined })).text();
    expect(without).toBe(withToken);
    expect(withToken).not.toContain(env.ADMIN_TOKEN ?? 'unset');
    expect(withToken).not.toMatch(/esk_(?!REPLACE_WITH)[A-Za-z0-9_-]{20,}/);
    expect(localReferences(withToken)).toContain('/assets/app.js');
  });
});
