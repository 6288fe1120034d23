// /keys (its operator part only with ADMIN_TOKEN set) and /docs as HTML: headers, what they load, and that every
// file they load is in public/ (test/pages/*.browser.test.ts drive them in a real browser).
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { expectWellFormedPage, localReferences } from '../helpers/pages';
import { call } from '../helpers/worker';

/** Status and body with the per-request id taken out, to compare two answers. */
async function comparable(response: Response) {
  const body = (await response.text()).replace(/"requestId":"[^"]+"/, '');
  return { status: response.status, type: response.headers.get('content-type'), body };
}

describe('/keys', () => {
  it("is, without ADMIN_TOKEN, still the account holders' page, whose operator part says how to turn the admin API on", async () => {
    for (const unset of [{ ADMIN_TOKEN: undefined }, { ADMIN_TOKEN: '' }]) {
      const response = await call('/keys', {}, unset);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await response.text();
      expect(html).toContain('wrangler secret put ADMIN_TOKEN');
      expect(html).toContain('.dev.vars');
      // The account's own keys (through /api/v2/keys), and no operator sign-in or its script.
      expect(html).toContain('<script src="/assets/account-keys.js" defer></script>');
      expect(html).toContain('id="account-sign-in-form"');
      expect(html).not.toContain('/assets/keys.js');
      expect(html).not.toContain('id="admin-token"');
      // The admin API itself stays a plain JSON 404, like any unknown path.
      const admin = await comparable(await call('/admin/keys', {}, unset));
      expect(admin.status).toBe(404);
      expect(admin.type).toMatch(/^application\/json/);
    }
  });

  it('is a sign-in page whose script talks only to this origin', async () => {
    const response = await call('/keys');
    expect(response.status).toBe(200);
    const html = await response.text();
    await expectWellFormedPage(response, html);
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(html).toContain('<script src="/assets/keys.js" defer></script>');
    expect(html).toMatch(
      /<label for="admin-token">Admin token<\/label>\s*<input id="admin-token" name="token" type="password"/,
    );
    // The page never carries the token, whoever asks.
    expect(html).not.toContain(env.ADMIN_TOKEN ?? 'unset');
  });

  it('labels every input of its forms', async () => {
    const html = await (await call('/keys')).text();
    const ids = [...html.matchAll(/<input id="([^"]+)"/g)].map((match) => match[1]);
    expect(ids.length).toBeGreaterThan(8);
    for (const id of ids) expect(html, id).toContain(`<label for="${id}">`);
  });
});

describe('/docs', () => {
  it('loads Swagger UI and its own script from this origin, and nothing else', async () => {
    const response = await call('/docs');
    expect(response.status).toBe(200);
    const html = await response.text();
    await expectWellFormedPage(response, html);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("img-src 'self' data:");
    expect(localReferences(html)).toEqual(
      expect.arrayContaining([
        '/assets/vendor/swagger-ui/swagger-ui.css',
        '/assets/vendor/swagger-ui/swagger-ui-bundle.js',
        '/assets/docs.js',
      ]),
    );
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('serves the vendored Swagger UI from the static assets', async () => {
    const bundle = await env.ASSETS.fetch('http://assets.local/assets/vendor/swagger-ui/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    const code = await bundle.text();
    expect(code).toContain('SwaggerUIBundle');
    expect(code).not.toContain('sourceMappingURL');
  });
});
