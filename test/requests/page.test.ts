// The request's page as HTML: a well-formed shell with a strict CSP and its own script, nothing
// of the owner on it; 404 and 410 pages for links that do not take files.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../helpers/digests';
import { expectWellFormedPage } from '../helpers/pages';
import { makeRequest, newOwner, patchRequest, send, tokenOf } from '../helpers/requests';
import { base64, OCTETS, TUS } from '../helpers/tus';
import { call } from '../helpers/worker';

describe('the page at {site_url}/r/<token>', () => {
  it('is a well-formed page with a strict CSP, its script, and the upload urls; nothing of the owner', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { label: 'Private label', message: 'Hello there' });
    const response = await call(`/r/${tokenOf(request)}`);
    const html = await response.text();
    expect(response.status).toBe(200);
    await expectWellFormedPage(response, html);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(html).toContain('<script src="/assets/request.js" defer></script>');
    expect(html).toContain(`data-upload-url="${request.uploadUrl}"`);
    expect(html).toContain(`data-tus-url="${request.tusUrl}"`);
    expect(html).not.toContain('Private label');
    expect(html).not.toContain(owner.id);
    expect(html).toContain('name="viewport" content="width=device-width,initial-scale=1"');
  });

  it('of an e2e request: the same page marked to encrypt, its worker allowed from this origin only, no recipient in it', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { e2e: true });
    const response = await call(`/r/${tokenOf(request)}`);
    const html = await response.text();
    expect(response.status).toBe(200);
    await expectWellFormedPage(response, html);
    expect(response.headers.get('content-security-policy')).toContain("worker-src 'self'");
    expect(html).toContain('<script src="/assets/request.js" defer></script>');
    expect(html).toContain('data-e2e="1"');
    expect(html).toContain('id="request-e2e"');
    expect(html).not.toMatch(/age1[0-9a-z]{20,}/);
    const plain = await call(`/r/${tokenOf(await makeRequest(owner.auth))}`);
    expect(await plain.text()).not.toContain('data-e2e');
  });

  it('answers 404 for an unknown link and 410 for a closed one, as HTML pages', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const unknown = await call(`/r/${'B'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('Link not found');
    await patchRequest(owner.auth, request.id, { closed: true });
    const closed = await call(`/r/${tokenOf(request)}`);
    expect(closed.status).toBe(410);
    const html = await closed.text();
    await expectWellFormedPage(closed, html);
    expect(html).toContain('closed by its owner');
  });
});

describe('the uploader’s receipt', () => {
  it('shows each file’s name, size, type and SHA-256: multipart, tus, and on the page', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const text = 'receipt bytes, hashed while they stream';
    const bytes = new TextEncoder().encode(text);
    const form = await send(request, [{ filename: 'r.txt', content: text, type: 'text/plain' }]);
    expect(form.status).toBe(201);
    const receipt = (await form.json()) as { data: { files: Record<string, unknown>[] } };
    expect(receipt.data.files).toEqual([
      { success: true, name: 'r.txt', size: bytes.length, mimeType: 'text/plain', sha256: await sha256Hex(bytes) },
    ]);

    const created = await call(request.tusUrl, {
      method: 'POST',
      headers: { ...TUS, 'Upload-Length': String(bytes.length), 'Upload-Metadata': `filename ${base64('t.txt')}` },
    });
    const location = created.headers.get('location') ?? '';
    const patched = await call(location, {
      method: 'PATCH',
      headers: { ...TUS, ...OCTETS, 'Upload-Offset': '0' },
      body: bytes,
    });
    expect(patched.status).toBe(204);
    const tus = (await (await call(location)).json()) as { data: Record<string, unknown> };
    expect(tus.data).toMatchObject({ name: 't.txt', size: bytes.length, sha256: await sha256Hex(bytes) });

    // The page's receipt table has the column, and its script fills it from the receipt.
    const html = await (await call(`/r/${tokenOf(request)}`)).text();
    expect(html).toContain('<th scope="col">SHA-256</th>');
    const script = await (await env.ASSETS.fetch('http://assets.local/assets/request.js')).text();
    expect(script).toMatch(/class:"digest",text:\w+\.sha256/);
  });
});

describe('the receipt’s layout', () => {
  it('breaks inside a word only in a name or the digest: overflow-wrap: anywhere on those cells alone, never word-break: break-all', async () => {
    const css = await (await env.ASSETS.fetch('http://assets.local/assets/style.css')).text();
    const rules = [...css.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/([^{}]+)\{([^}]*)\}/g)].map(
      ([, selector, body]) => ({
        selector: (selector ?? '').trim(),
        body: body ?? '',
      }),
    );
    const anywhere = (pattern: RegExp) =>
      rules.some(
        (rule) =>
          rule.selector.split(',').some((part) => pattern.test(part.trim())) &&
          /overflow-wrap:\s*anywhere/.test(rule.body),
      );
    // On every cell it would let the table squeeze a column to a letter ("Si ze"); the browser
    // test (test/web/layouts.browser.test.ts) sees the words whole.
    expect(anywhere(/\.receipt (td|th)$/)).toBe(false);
    expect(anywhere(/\.receipt \.digest$/)).toBe(true);
    expect(anywhere(/\.cards \.name-cell$/)).toBe(true);
    // break-all cuts every word at the column's edge, even where a space is a line away.
    expect(rules.filter((rule) => /word-break:\s*break-all/.test(rule.body)).map((rule) => rule.selector)).toEqual([]);
  });
});

describe('the request token in logs', () => {
  it('is replaced by its route name in the logged path, on the page and the API paths', async () => {
    const { loggedPath } = await import('../../src/middleware/request-context');
    expect(loggedPath('/r/abcdefghijklmnopqrstuvwxyz012345')).toBe('/r/:token');
    expect(loggedPath('/api/v2/r/abcdefghijklmnopqrstuvwxyz012345/tus/AAAAAAAAAAAAAAAAAAAAAA')).toBe(
      '/api/v2/r/:token/tus/AAAAAAAAAAAAAAAAAAAAAA',
    );
    expect(loggedPath('/api/v2/requests/x')).toBe('/api/v2/requests/x');
    expect(loggedPath('/share/tok/download')).toBe('/share/:token/download');
  });
});
