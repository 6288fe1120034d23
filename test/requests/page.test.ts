// The request's page as HTML: a well-formed shell with a strict CSP and its own script, nothing
// of the owner on it; 404 and 410 pages for links that do not take files.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers';
import { expectWellFormedPage } from '../pages/page-checks';
import { makeRequest, newOwner, patchRequest, tokenOf } from './request-helpers';

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
