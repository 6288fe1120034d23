import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { basic, json, makeLink, owner, pathOf, readLink } from '../helpers/links';
import { PNG_1X1 } from '../helpers/upload';
import { awayFromWindowEdge, call } from '../helpers/worker';

const PASSWORD = 'correct horse battery staple';
const HTML = { Accept: 'text/html' };
const FILE = { filename: 'quarterly-report.png', type: 'image/png', content: PNG_1X1 as unknown as string };

const form = (password: string, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams({ password }).toString(),
  redirect: 'manual',
});

/** A fresh address per scenario, so throttles of one test never reach another. */
const octet = () => Math.floor(Math.random() * 250) + 1;
const address = () => ({ 'CF-Connecting-IP': `198.51.${octet()}.${octet()}` });

async function protectedLink(extra: Record<string, unknown> = {}) {
  const file = await owner(FILE, 'false');
  const link = await makeLink(file.auth, file.fileId, { password: PASSWORD, ...extra });
  return { ...file, link, path: pathOf(link) };
}

describe('a password-protected link', () => {
  it('stores a PBKDF2 hash, its salt and 100,000 iterations, never the password', async () => {
    const { link } = await protectedLink();
    expect(link.hasPassword).toBe(true);
    const row = await env.DB.prepare('SELECT * FROM share_links WHERE id = ?1')
      .bind(link.id)
      .first<Record<string, unknown>>();
    expect(row?.password_iterations).toBe(100_000);
    expect(row?.password_hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(row?.password_salt).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(JSON.stringify(row)).not.toContain(PASSWORD);
  });

  it('never shows the password in an answer', async () => {
    const { auth, fileId, link } = await protectedLink();
    const bodies = await Promise.all(
      [`/api/v2/links/${link.id}`, `/api/v2/files/${fileId}/links`].map(async (path) =>
        (await call(path, { headers: auth })).text(),
      ),
    );
    const patched = await (
      await call(`/api/v2/links/${link.id}`, json({ password: `${PASSWORD}!` }, auth, 'PATCH'))
    ).text();
    for (const body of [...bodies, patched, JSON.stringify(link)]) expect(body).not.toContain(PASSWORD);
  });

  it('shows a form, and nothing of the file (name, size, type, preview, Open Graph), before the password', async () => {
    const { path } = await protectedLink();
    const response = await call(path, { headers: HTML });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('<form');
    expect(html).toContain('method="post"');
    expect(html).toContain('type="password"');
    // The file's name in none of its parts (the footer's "Report this link" is the page's own).
    for (const secret of ['quarterly', 'report.png', 'image/png', 'og:image"', '/view', '/download', ' B<', 'bytes']) {
      expect(html).not.toContain(secret);
    }
    expect(response.headers.get('content-security-policy')).toContain("form-action 'self'");
  });

  it('keeps the download and the preview behind the password: 401 Basic for scripts, the page for browsers', async () => {
    const { path } = await protectedLink();
    for (const suffix of ['/download', '/view']) {
      const script = await call(`${path}${suffix}`);
      expect(script.status).toBe(401);
      expect(script.headers.get('www-authenticate')).toMatch(/^Basic /);
      expect(script.headers.get('content-type')).not.toMatch(/image/);
      const browser = await call(`${path}${suffix}`, { headers: HTML, redirect: 'manual' });
      expect(browser.status).toBe(303);
      expect(browser.headers.get('location')).toBe(path);
    }
  });

  it('serves scripts through HTTP Basic with an empty user name; a wrong password counts nothing', async () => {
    const { auth, link, path } = await protectedLink();
    const wrong = await call(`${path}/download`, { headers: { ...basic('nope'), ...address() } });
    expect(wrong.status).toBe(401);
    expect((await readLink(auth, link.id)).downloadCount).toBe(0);
    const right = await call(`${path}/download`, { headers: basic(PASSWORD) });
    expect(right.status).toBe(200);
    expect(new Uint8Array(await right.arrayBuffer())).toEqual(PNG_1X1);
    expect((await readLink(auth, link.id)).downloadCount).toBe(1);
  });

  it('opens its page to the right HTTP Basic password, as the downloads do', async () => {
    const { path } = await protectedLink();
    const locked = await call(path, { headers: HTML });
    expect(locked.status).toBe(200);
    const form = await locked.text();
    expect(form).toContain('<h1>This file is protected by a password</h1>');
    expect(form).toContain('<title>A shared file · edgeshare</title>');

    const right = await call(path, { headers: { ...HTML, ...basic(PASSWORD) } });
    expect(right.status).toBe(200);
    const page = await right.text();
    expect(page).toContain('<h1>quarterly-report.png</h1>');
    expect(page).toContain('<dd>image/png</dd>');
    expect(page).toContain(`href="${path}/download" download>Download (`);
    expect(page).not.toContain('type="password"');
    expect(right.headers.get('cache-control')).toBe('private, no-store');
  });

  it('answers a wrong HTTP Basic password on its page with the form saying so (401), counted and nothing shown', async () => {
    const { auth, link, path } = await protectedLink();
    const wrong = await call(path, { headers: { ...HTML, ...basic('nope'), ...address() } });
    expect(wrong.status).toBe(401);
    // The page asks with its form: no Basic challenge that would pop up a browser's dialog.
    expect(wrong.headers.get('www-authenticate')).toBeNull();
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const html = await wrong.text();
    expect(html).toContain('This file is protected by a password');
    expect(html).toContain('That password is not right.');
    for (const secret of ['quarterly', 'report.png', 'image/png', '/view', '/download', 'bytes']) {
      expect(html).not.toContain(secret);
    }
    expect((await readLink(auth, link.id)).downloadCount).toBe(0);
    // Counted as a wrong password: the link's own window holds it.
    const window = await env.LINK_COUNTERS.getByName(link.id).passwordBlocked({ limit: 1, windowSeconds: 900 });
    expect(window.blocked).toBe(true);
  });

  it('takes a non-ASCII password sent as Latin-1 (Python requests) as it takes UTF-8', async () => {
    const file = await owner(FILE, 'false');
    const link = await makeLink(file.auth, file.fileId, { password: 'Müller-Straße' });
    const path = pathOf(link);
    const utf8 = String.fromCharCode(...new TextEncoder().encode(':Müller-Straße'));
    expect((await call(`${path}/download`, { headers: { Authorization: `Basic ${btoa(utf8)}` } })).status).toBe(200);
    // btoa of a string whose characters are all below U+0100 is exactly the Latin-1 bytes.
    const latin1 = await call(`${path}/download`, {
      headers: { Authorization: `Basic ${btoa(':Müller-Straße')}`, ...address() },
    });
    expect(latin1.status).toBe(200);
    expect(new Uint8Array(await latin1.arrayBuffer())).toEqual(PNG_1X1);
  });

  it('gives a grant cookie for the right password: HttpOnly, SameSite, this link’s path only, short lived', async () => {
    const { path } = await protectedLink();
    const wrong = await call(path, form('guess', address()));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).toContain('not right');

    const right = await call(path, form(PASSWORD));
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe(path);
    const cookie = right.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toContain(`Path=${path};`);
    expect(Number(/Max-Age=(\d+)/.exec(cookie)?.[1])).toBeLessThanOrEqual(3600);
    expect(cookie).not.toMatch(/Secure/);
    expect(cookie).not.toContain(PASSWORD);

    const grant = cookie.split(';')[0] ?? '';
    const page = await call(path, { headers: { ...HTML, Cookie: grant } });
    expect(await page.text()).toContain('quarterly-report.png');
    expect((await call(`${path}/view`, { headers: { Cookie: grant } })).status).toBe(200);
    expect((await call(`${path}/download`, { headers: { Cookie: grant } })).status).toBe(200);
  });

  it('marks the grant Secure on https', async () => {
    const { path } = await protectedLink();
    const right = await call(`https://edgeshare.test${path}`, form(PASSWORD));
    expect(right.headers.get('set-cookie')).toMatch(/; Secure/);
  });

  it('does not let one link’s grant open another, nor a grant outlive a password change', async () => {
    const a = await protectedLink();
    const b = await makeLink(a.auth, a.fileId, { password: PASSWORD });
    const grant = ((await call(a.path, form(PASSWORD))).headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect((await call(`${pathOf(b)}/download`, { headers: { Cookie: grant } })).status).toBe(401);
    await call(`/api/v2/links/${a.link.id}`, json({ password: 'another one' }, a.auth, 'PATCH'));
    expect((await call(`${a.path}/download`, { headers: { Cookie: grant } })).status).toBe(401);
    const forged = grant.replace(/\.[^.]+$/, `.${'A'.repeat(43)}`);
    expect((await call(`${pathOf(b)}/download`, { headers: { Cookie: forged } })).status).toBe(401);
  });

  it('answers a dead protected link with the same 404 as any other, password or not', async () => {
    const { auth, link, path } = await protectedLink({ maxDownloads: 1 });
    expect((await call(`${path}/download`, { headers: basic(PASSWORD) })).status).toBe(200);
    for (const headers of [{}, basic(PASSWORD), basic('wrong')]) {
      expect((await call(`${path}/download`, { headers })).status).toBe(404);
    }
    expect((await call(path)).status).toBe(404);
    await call(`/api/v2/links/${link.id}`, { method: 'DELETE', headers: auth });
    expect((await call(path, form(PASSWORD))).status).toBe(404);
  });
});

// The windows here are the product's own (10 per address in 5 minutes, 30 per link in 15), aligned
// to the clock: each case starts far enough from a window's end for its dozen or thirty password
// checks (each a PBKDF2), which take seconds on a loaded machine.
describe('wrong-password throttling', () => {
  it('refuses an address past 10 wrong passwords (429), even with the right one, and counts nothing', async () => {
    const { auth, link, path } = await protectedLink();
    await awayFromWindowEdge(300, 20_000);
    const from = address();
    for (let i = 0; i < 10; i++) {
      expect((await call(`${path}/download`, { headers: { ...basic(`wrong-${i}`), ...from } })).status).toBe(401);
    }
    const eleventh = await call(`${path}/download`, { headers: { ...basic('wrong-11'), ...from } });
    expect(eleventh.status).toBe(429);
    const right = await call(`${path}/download`, { headers: { ...basic(PASSWORD), ...from } });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    const page = await call(path, form(PASSWORD, from));
    expect(page.status).toBe(429);
    expect(page.headers.get('set-cookie')).toBeNull();
    expect((await readLink(auth, link.id)).downloadCount).toBe(0);
    // Another address is not affected.
    expect((await call(`${path}/download`, { headers: { ...basic(PASSWORD), ...address() } })).status).toBe(200);
  });

  it('counts wrong HTTP Basic passwords on the page with the downloads’ and the form’s, per address', async () => {
    const { auth, link, path } = await protectedLink();
    await awayFromWindowEdge(300, 20_000);
    const from = address();
    for (let i = 0; i < 10; i++) {
      const url = i % 2 === 0 ? path : `${path}/download`;
      const headers = { ...HTML, ...basic(`wrong-${i}`), ...from };
      expect((await call(url, { headers, redirect: 'manual' })).status, url).toBe(401);
    }
    // Past the allowance the page is the "too many" page, even with the right password.
    for (const password of ['wrong-11', PASSWORD]) {
      const page = await call(path, { headers: { ...HTML, ...basic(password), ...from } });
      expect(page.status).toBe(429);
      expect(Number(page.headers.get('retry-after'))).toBeGreaterThan(0);
      const html = await page.text();
      expect(html).toContain('Too many wrong passwords');
      expect(html).not.toContain('quarterly');
    }
    expect((await call(`${path}/download`, { headers: { ...basic(PASSWORD), ...from } })).status).toBe(429);
    expect((await call(path, form(PASSWORD, from))).status).toBe(429);
    expect((await readLink(auth, link.id)).downloadCount).toBe(0);
    // Another address is not affected.
    const elsewhere = await call(path, { headers: { ...HTML, ...basic(PASSWORD), ...address() } });
    expect(elsewhere.status).toBe(200);
    expect(await elsewhere.text()).toContain('quarterly-report.png');
  });

  it('refuses a link after 30 wrong passwords, its page’s HTTP Basic ones among them', async () => {
    const { path } = await protectedLink();
    await awayFromWindowEdge(900, 40_000);
    for (let i = 0; i < 29; i++) {
      const url = i % 2 === 0 ? path : `${path}/download`;
      expect((await call(url, { headers: { ...basic(`w${i}`), ...address() } })).status, url).toBe(401);
    }
    expect((await call(path, { headers: { ...HTML, ...basic('w30'), ...address() } })).status).toBe(429);
    const right = await call(path, { headers: { ...HTML, ...basic(PASSWORD), ...address() } });
    expect(right.status).toBe(429);
    expect(await right.text()).not.toContain('quarterly');
  });

  it('refuses an address whose wrong passwords another isolate counted, before any check', async () => {
    const { auth, link, path } = await protectedLink();
    await awayFromWindowEdge(300, 20_000);
    const from = address();
    // Ten failures counted in the address's guard object, as another isolate of the Worker would:
    // this isolate has seen none of them.
    const guard = env.AUTH_GUARD.getByName(from['CF-Connecting-IP']);
    for (let i = 0; i < 10; i++) await guard.hit({ scope: 'link-password', limit: 10, windowSeconds: 300 });
    const right = await call(`${path}/download`, { headers: { ...basic(PASSWORD), ...from } });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await readLink(auth, link.id)).downloadCount).toBe(0);
    expect((await call(`${path}/download`, { headers: { ...basic(PASSWORD), ...address() } })).status).toBe(200);
  });

  it('refuses a link after 30 wrong passwords from any addresses', async () => {
    const { path } = await protectedLink();
    await awayFromWindowEdge(900, 40_000);
    for (let i = 0; i < 29; i++) {
      const status = (await call(`${path}/download`, { headers: { ...basic(`w${i}`), ...address() } })).status;
      expect(status).toBe(401);
    }
    expect((await call(`${path}/download`, { headers: { ...basic('w30'), ...address() } })).status).toBe(429);
    expect((await call(`${path}/download`, { headers: { ...basic(PASSWORD), ...address() } })).status).toBe(429);
  });
});

describe('logs', () => {
  it('never carry a password or a link token', async () => {
    const lines: string[] = [];
    const spies = [
      vi.spyOn(console, 'log').mockImplementation((...args) => void lines.push(args.join(' '))),
      vi.spyOn(console, 'error').mockImplementation((...args) => void lines.push(args.join(' '))),
    ];
    try {
      const { auth, link, path } = await protectedLink();
      await call(path, form(PASSWORD));
      await call(path, form('not it', address()));
      await call(`${path}/download`, { headers: basic(PASSWORD) });
      await call(`/api/v2/links/${link.id}`, json({ password: `${PASSWORD}2` }, auth, 'PATCH'));
      const token = path.split('/').pop() ?? '';
      expect(lines.length).toBeGreaterThan(3);
      for (const line of lines) {
        expect(line).not.toContain(PASSWORD);
        expect(line).not.toContain('not it');
        expect(line).not.toContain(token);
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});
