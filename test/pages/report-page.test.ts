// The report form at /report (plain HTML, Turnstile's widget only when both keys are set, and
// its origin allowed by that page's CSP alone), what posting it answers a browser (a page, not
// JSON), and the "Report this link" footer of every share, collection and file-request page,
// with ABUSE_CONTACT beside it when set.
import { beforeAll, describe, expect, it } from 'vitest';
import { json, makeCollection } from '../collections/collection-helpers';
import { basic, makeLink, pathOf } from '../helpers/links';
import { makeRequest } from '../helpers/requests';
import { uploadOk } from '../helpers/upload';
import { interceptReceivers } from '../helpers/webhooks';
import { awayFromWindowEdge, call, createKey, someAddress } from '../helpers/worker';

const TURNSTILE = {
  TURNSTILE_SITE_KEY: '1x00000000000000000000AA',
  TURNSTILE_SECRET_KEY: '1x0000000000000000000000000000000AA',
};
const CONTACT = 'mailto:abuse@edgeshare.test';
const HTML = { Accept: 'text/html,application/xhtml+xml' };

const reportHref = (url: string) => `/report?url=${encodeURIComponent(url)}`.replaceAll('&', '&amp;');

async function page(path: string, init: RequestInit = {}, overrides: Record<string, unknown> = {}) {
  const response = await call(
    path,
    { ...init, headers: { ...HTML, ...(init.headers as Record<string, string>) } },
    overrides,
  );
  return { response, text: await response.text(), csp: response.headers.get('content-security-policy') ?? '' };
}

/** Posts the form as a browser does: urlencoded, asking for HTML. */
const postForm = (fields: Record<string, string>, overrides: Record<string, unknown> = {}, address = someAddress()) =>
  page(
    '/api/v2/reports',
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'CF-Connecting-IP': address },
      body: new URLSearchParams(fields),
    },
    overrides,
  );

let owner: Awaited<ReturnType<typeof createKey>>;
let file: { id: string; shareUrl: string };

beforeAll(async () => {
  interceptReceivers();
  owner = await createKey('report pages');
  file = await uploadOk('v2', owner.auth, { filename: 'page.txt', content: 'a shared page' });
});

describe('GET /report', () => {
  it('is a form that works without JavaScript, the reported URL filled in, and no other origin allowed', async () => {
    const url = `${file.shareUrl}?a=1&b="2"`;
    const { response, text, csp } = await page(`/report?url=${encodeURIComponent(url)}`);
    expect(response.status).toBe(200);
    expect(text).toContain('<form class="report-form panel" method="post" action="/api/v2/reports">');
    expect(text).toContain(`value="${url.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}"`);
    for (const reason of ['malware', 'phishing', 'csam', 'copyright', 'illegal', 'spam', 'other']) {
      expect(text).toContain(`<option value="${reason}">`);
    }
    for (const name of ['details', 'contact', 'linkWithKey']) expect(text).toContain(`name="${name}"`);
    expect(text).not.toContain('<script');
    expect(text).not.toContain('challenges.cloudflare.com');
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('challenges.cloudflare.com');
    expect((await page('/report')).text).toContain('value=""');
  });

  it('carries Turnstile’s widget when both keys are set, and only this page allows its origin', async () => {
    const { text, csp } = await page('/report?url=x', {}, TURNSTILE);
    expect(text).toContain('<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script>');
    expect(text).toContain(
      '<div class="cf-turnstile" data-sitekey="1x00000000000000000000AA" data-response-field-name="turnstileToken"></div>',
    );
    expect(csp).toContain("script-src 'self' https://challenges.cloudflare.com;");
    expect(csp).toContain('frame-src https://challenges.cloudflare.com;');
    const share = await page(new URL(file.shareUrl).pathname, {}, TURNSTILE);
    expect(share.csp).not.toContain('challenges.cloudflare.com');
    // The site key alone is not Turnstile on.
    const half = await page('/report', {}, { TURNSTILE_SITE_KEY: TURNSTILE.TURNSTILE_SITE_KEY });
    expect(half.text).not.toContain('cf-turnstile');
  });
});

describe('posting the form', () => {
  it('answers a browser with a page saying the report was received and what happens next', async () => {
    const { response, text, csp } = await postForm({ url: file.shareUrl, reason: 'phishing', details: '' });
    expect(response.status).toBe(202);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(csp).toContain("default-src 'none'");
    expect(text).toContain('<h1>Report received</h1>');
    expect(text).toContain('The operator of this service reviews every report');
    expect(text).toMatch(/Reference: <code>rpt_[A-Za-z0-9_-]{22}<\/code>/);
    expect(text).not.toContain('held until the operator decides');
    const held = await postForm({ url: file.shareUrl, reason: 'spam' }, { REPORT_QUARANTINE_THRESHOLD: '5' });
    expect(held.text).toContain('held until the operator decides');
  });

  it('answers a refused report with a page saying why, and the way back to the form', async () => {
    const bad = await postForm({ url: file.shareUrl, reason: 'boring' });
    expect(bad.response.status).toBe(400);
    expect(bad.text).toContain('The report was not sent');
    expect(bad.text).toContain('reason must be one of');
    expect(bad.text).toContain(`href="${reportHref(file.shareUrl)}"`);

    const address = someAddress();
    // Reports count in hour windows aligned to the clock: all four in one.
    await awayFromWindowEdge(3600);
    for (let i = 0; i < 3; i++) await postForm({ url: 'x', reason: 'spam' }, { REPORTS_PER_ADDRESS: '3' }, address);
    const throttled = await postForm({ url: 'x', reason: 'spam' }, { REPORTS_PER_ADDRESS: '3' }, address);
    expect(throttled.response.status).toBe(429);
    expect(Number(throttled.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(throttled.text).toContain('Too many reports from this address');

    const captcha = await postForm({ url: 'x', reason: 'spam' }, TURNSTILE);
    expect(captcha.response.status).toBe(403);
    expect(captcha.text).toContain('The challenge (Turnstile) was not passed');
  });
});

describe('the footer of every share, collection and file-request page', () => {
  it('links to the report form with the page’s own URL, and shows ABUSE_CONTACT when it is set', async () => {
    const link = await makeLink(owner.auth, file.id, { password: 'open sesame' });
    const collection = await makeCollection(owner.auth, { name: 'Footer set', fileIds: [file.id] });
    const made = await call(`/api/v2/collections/${collection.id}/links`, json({}, owner.auth));
    const collectionUrl = ((await made.json()) as { data: { url: string } }).data.url;
    const request = await makeRequest(owner.auth);
    const pages: [string, string, RequestInit][] = [
      ['the file’s page', file.shareUrl, {}],
      ['a locked link’s page', link.url, {}],
      ['a collection’s page', collectionUrl, {}],
      ['a file request’s page', request.url, {}],
    ];
    for (const [what, url, init] of pages) {
      const plain = await page(new URL(url).pathname, init);
      expect(plain.response.status, what).toBe(200);
      expect(plain.text, what).toContain(
        `<footer class="site-footer"><a href="${reportHref(url)}">Report this link</a>`,
      );
      expect(plain.text, what).not.toContain('Abuse:');
      const withContact = await page(new URL(url).pathname, init, { ABUSE_CONTACT: CONTACT });
      expect(withContact.text, what).toContain(`Abuse: <a href="${CONTACT}">abuse@edgeshare.test</a>`);
    }
    // A wrong password answers the form again, footer and all.
    const wrong = await page(pathOf(link), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'password=nope',
    });
    expect(wrong.response.status).toBe(401);
    expect(wrong.text).toContain(`href="${reportHref(link.url)}"`);
    expect((await call(`${pathOf(link)}/download`, { headers: basic('open sesame') })).status).toBe(200);
  });
});
