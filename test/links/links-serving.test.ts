import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sweep } from '../../src/maintenance/sweep';
import { expectUnflushed, expireLink, flush, json, makeLink, owner, pathOf, readLink } from '../helpers/links';
import { PNG_1X1 } from '../helpers/upload';
import { call, inOneHourWindow } from '../helpers/worker';

/** Status, type and body of an answer, for comparing "not found" answers byte for byte. */
async function snapshot(path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  headers.set('X-Request-Id', 'links-probe-0001');
  const response = await call(path, { ...init, headers });
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

const UNKNOWN = `/share/${'Q'.repeat(43)}`;
const HTML = { Accept: 'text/html' };

/** The 404 of every path of a dead link equals the unknown token's, for browsers and scripts. */
async function expectDead(path: string) {
  for (const suffix of ['', '/download', '/view']) {
    for (const headers of [HTML, {}]) {
      for (const method of ['GET', 'HEAD']) {
        const dead = await snapshot(`${path}${suffix}`, { method, headers });
        const unknown = await snapshot(`${UNKNOWN}${suffix}`, { method, headers });
        expect(dead.status, `${method} ${suffix}`).toBe(404);
        expect(dead).toEqual(unknown);
      }
    }
  }
  const ranged = await call(`${path}/download`, { headers: { Range: 'bytes=0-0' } });
  expect(ranged.status).toBe(404);
}

describe('a made link to a private file', () => {
  it('serves the page, the download and the preview while the default link stays 404', async () => {
    const { auth, fileId, shareUrl } = await owner(
      { filename: 'secret.png', type: 'image/png', content: PNG_1X1 as unknown as string },
      'false',
    );
    const link = await makeLink(auth, fileId);
    const page = await call(pathOf(link), { headers: HTML });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('secret.png');
    expect(html).toContain(`${pathOf(link)}/download`);
    expect(html).not.toContain(new URL(shareUrl).pathname);
    const download = await call(`${pathOf(link)}/download`);
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(PNG_1X1);
    const view = await call(`${pathOf(link)}/view`);
    expect(view.status).toBe(200);
    expect(view.headers.get('content-disposition')).toMatch(/^inline/);
    expect((await call(new URL(shareUrl).pathname)).status).toBe(404);
    expect((await call(`${new URL(shareUrl).pathname}/download`)).status).toBe(404);
  });

  it('shows a visitor no counts, cap or state beyond the page itself', async () => {
    const { auth, fileId } = await owner({ filename: 'notes.txt', content: 'hello' });
    const link = await makeLink(auth, fileId, { maxDownloads: 7, label: 'Ana only' });
    const html = await (await call(pathOf(link), { headers: HTML })).text();
    expect(html).not.toContain('Ana only');
    expect(html).not.toMatch(/\b7\b.*download/i);
    expect(html).not.toContain('remaining');
  });
});

describe('maxDownloads', () => {
  it('gives exactly 3 of 20 concurrent downloads on a cap of 3; the rest 404', async () => {
    const { auth, fileId } = await owner({ filename: 'c.txt', content: 'capped' });
    const link = await makeLink(auth, fileId, { maxDownloads: 3 });
    const responses = await Promise.all(Array.from({ length: 20 }, () => call(`${pathOf(link)}/download`)));
    const statuses = responses.map((response) => response.status);
    // Read whole, as a downloader does: a body left unread would give its bytes back to the cap.
    await Promise.all(responses.map((response) => response.arrayBuffer()));
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 404)).toHaveLength(17);
    const record = await readLink(auth, link.id);
    expect(record).toMatchObject({ downloadCount: 3, status: 'exhausted' });
    expect(record.lastDownloadedAt).not.toBeNull();
    await expectDead(pathOf(link));
  });

  it('counts a 200 and a 206 of the whole file, never HEAD, 304, partial ranges or previews', async () => {
    const { auth, fileId } = await owner({ filename: 'r.txt', content: '0123456789' });
    const link = await makeLink(auth, fileId, { maxDownloads: 5 });
    const path = `${pathOf(link)}/download`;
    const first = await call(path);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag') ?? '';
    await first.arrayBuffer();
    expect((await call(path, { method: 'HEAD' })).status).toBe(200);
    expect((await call(path, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    const later = await call(path, { headers: { Range: 'bytes=5-' } });
    expect(later.status).toBe(206);
    expect(await later.text()).toBe('56789');
    expect((await call(`${pathOf(link)}/view`)).status).toBe(200);
    expect((await readLink(auth, link.id)).downloadCount).toBe(1);
    const fromZero = await call(path, { headers: { Range: 'bytes=0-3' } });
    expect(fromZero.status).toBe(206);
    await fromZero.arrayBuffer();
    expect((await readLink(auth, link.id)).downloadCount).toBe(1);
    for (const range of ['bytes=0-', 'bytes=0-9']) {
      const whole = await call(path, { headers: { Range: range } });
      expect(whole.status).toBe(206);
      expect(await whole.text()).toBe('0123456789');
    }
    expect((await readLink(auth, link.id)).downloadCount).toBe(3);
  });

  it('answers Range, HEAD and previews on an exhausted link with 404', async () => {
    const { auth, fileId } = await owner({ filename: 'x.txt', content: 'abcdef' });
    const link = await makeLink(auth, fileId, { maxDownloads: 1 });
    await (await call(`${pathOf(link)}/download`)).arrayBuffer();
    expect((await call(`${pathOf(link)}/download`, { headers: { Range: 'bytes=2-3' } })).status).toBe(404);
    expect((await call(`${pathOf(link)}/download`, { method: 'HEAD' })).status).toBe(404);
    expect((await call(`${pathOf(link)}/view`)).status).toBe(404);
    expect((await call(pathOf(link))).status).toBe(404);
  });

  it('opens again when the owner raises the cap', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId, { maxDownloads: 1 });
    await (await call(`${pathOf(link)}/download`)).arrayBuffer();
    expect((await call(`${pathOf(link)}/download`)).status).toBe(404);
    await call(`/api/v2/links/${link.id}`, json({ maxDownloads: 2 }, auth, 'PATCH'));
    expect((await call(`${pathOf(link)}/download`)).status).toBe(200);
    expect((await readLink(auth, link.id)).status).toBe('exhausted');
  });
});

describe('counting', () => {
  it('keeps counts in the link’s object and flushes them to D1 (link and file) in one write', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    const start = Date.now();
    for (let i = 0; i < 4; i++) await (await call(`${pathOf(link)}/download`)).arrayBuffer();
    const before = await env.DB.prepare('SELECT download_count FROM share_links WHERE id = ?1')
      .bind(link.id)
      .first<{ download_count: number }>();
    // Nothing in D1 yet.
    expectUnflushed(before?.download_count, start, 4);
    expect((await readLink(auth, link.id)).downloadCount).toBe(4);
    await flush(link.id);
    const after = await env.DB.prepare(
      'SELECT l.download_count AS link, f.download_count AS file, l.last_downloaded_at AS last FROM share_links l JOIN files f ON f.id = l.file_id WHERE l.id = ?1',
    )
      .bind(link.id)
      .first<{ link: number; file: number; last: string | null }>();
    expect(after).toMatchObject({ link: 4, file: 4 });
    expect(after?.last).not.toBeNull();
    // A repeated flush adds nothing.
    await flush(link.id);
    const file = await call(`/api/v2/files/${fileId}`, { headers: auth });
    expect(((await file.json()) as { data: { downloadCount: number } }).data.downloadCount).toBe(4);
  });
});

describe('dead links', () => {
  it('answers a revoked link like an unknown token on every path', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    expect((await call(`${pathOf(link)}/download`)).status).toBe(200);
    await call(`/api/v2/links/${link.id}`, { method: 'DELETE', headers: auth });
    await expectDead(pathOf(link));
  });

  it('answers an expired link like an unknown token on every path', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId, { expiresIn: 60 });
    await expireLink(link.id);
    await expectDead(pathOf(link));
  });

  it('dies with its file when the file is deleted: 404, and its row is gone', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    expect((await call(`/api/v2/files/${fileId}`, { method: 'DELETE', headers: auth })).status).toBe(200);
    await expectDead(pathOf(link));
    const rows = await env.DB.prepare('SELECT COUNT(*) AS n FROM share_links WHERE file_id = ?1')
      .bind(fileId)
      .first<{ n: number }>();
    expect(rows?.n).toBe(0);
    expect((await call(`/api/v2/links/${link.id}`, { headers: auth })).status).toBe(404);
  });

  it('dies with its file on bulk delete', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    const response = await call('/api/v2/files/bulk', json({ ids: [fileId] }, auth, 'DELETE'));
    expect(response.status).toBe(200);
    await expectDead(pathOf(link));
  });

  it('dies the moment its file expires, and the sweep removes its row', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    await env.DB.prepare('UPDATE files SET expires_at = ?2 WHERE id = ?1')
      .bind(fileId, new Date(Date.now() - 1).toISOString())
      .run();
    await expectDead(pathOf(link));
    expect((await call(`/api/v2/links/${link.id}`, { headers: auth })).status).toBe(404);
    await sweep({
      db: env.DB,
      bucket: env.FILES,
      accounts: env.ACCOUNT_STORAGE,
      uploads: env.TUS_UPLOADS,
      graceMs: 3_600_000,
    });
    const rows = await env.DB.prepare('SELECT COUNT(*) AS n FROM share_links WHERE id = ?1')
      .bind(link.id)
      .first<{ n: number }>();
    expect(rows?.n).toBe(0);
  });

  it('stops with its account: once the account’s last key is revoked its made links are 404', async () => {
    const { auth, fileId, id } = await owner();
    const link = await makeLink(auth, fileId);
    expect((await call(`${pathOf(link)}/download`)).status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET status = 'revoked' WHERE id = ?1").bind(id).run();
    await expectDead(pathOf(link));
  });

  it('survives rotation of the owner’s key: made and default links serve, the new key manages them', async () => {
    const old = await owner({ filename: 'rotate.txt', content: 'kept across keys' });
    const made = await makeLink(old.auth, old.fileId, { maxDownloads: 5, label: 'before' });
    const created = await call('/api/v2/keys', json({ name: 'rotated' }, old.auth));
    expect(created.status).toBe(201);
    const fresh = { Authorization: `Bearer ${((await created.json()) as { data: { key: string } }).data.key}` };
    expect((await call(`/api/v2/keys/${old.id}`, { method: 'DELETE', headers: fresh })).status).toBe(200);
    expect((await call(`/api/v2/links/${made.id}`, { headers: old.auth })).status).toBe(401);

    // The public: the made link and the default link still serve.
    const download = await call(`${pathOf(made)}/download`);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('kept across keys');
    expect((await call(pathOf(made), { headers: HTML })).status).toBe(200);
    const byDefault = await call(`${new URL(old.shareUrl).pathname}/download`);
    expect(byDefault.status).toBe(200);
    await byDefault.arrayBuffer();

    // The account, through its new key: sees, changes, makes and revokes links.
    const listed = await call(`/api/v2/files/${old.fileId}/links`, { headers: fresh });
    expect(listed.status).toBe(200);
    const { data } = (await listed.json()) as { data: { links: { id: string }[] } };
    expect(data.links.map((link) => link.id)).toEqual([made.id]);
    expect(await readLink(fresh, made.id)).toMatchObject({ downloadCount: 1, status: 'active', label: 'before' });
    const patched = await call(`/api/v2/links/${made.id}`, json({ label: 'after' }, fresh, 'PATCH'));
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { data: { label: string } }).data.label).toBe('after');
    const second = await makeLink(fresh, old.fileId);
    expect((await call(`${pathOf(second)}/download`)).status).toBe(200);
    expect((await call(`/api/v2/links/${made.id}`, { method: 'DELETE', headers: fresh })).status).toBe(200);
    await expectDead(pathOf(made));
  });

  it('leaves the default link as it was (isPublic governs it alone)', async () => {
    const { auth, fileId, shareUrl } = await owner();
    const link = await makeLink(auth, fileId);
    await call(`/api/v2/links/${link.id}`, { method: 'DELETE', headers: auth });
    expect((await call(`${new URL(shareUrl).pathname}/download`)).status).toBe(200);
  });
});

describe('download throttle per client address', () => {
  it('defaults to 120 a minute', async () => {
    const { getConfig } = await import('../../src/config');
    const { LINK_DOWNLOAD_LIMIT: _limit, LINK_DOWNLOAD_WINDOW_SECONDS: _window, ...unset } = env;
    const config = getConfig(unset);
    expect(config.LINK_DOWNLOAD_LIMIT).toBe(120);
    expect(config.LINK_DOWNLOAD_WINDOW_SECONDS).toBe(60);
  });

  it('answers 429 with Retry-After past LINK_DOWNLOAD_LIMIT, for that address only', async () => {
    const { auth, fileId } = await owner();
    const link = await makeLink(auth, fileId);
    // The six requests count in one window.
    const vars = await inOneHourWindow('LINK_DOWNLOAD_WINDOW_SECONDS', { LINK_DOWNLOAD_LIMIT: '5' });
    const address = { 'CF-Connecting-IP': '192.0.2.77' };
    for (let i = 0; i < 5; i++) {
      const response = await call(`${pathOf(link)}/download`, { method: 'HEAD', headers: address }, vars);
      expect(response.status).toBe(200);
    }
    const refused = await call(`${pathOf(link)}/download`, { headers: address }, vars);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(`${pathOf(link)}/download`, {}, vars)).status).toBe(200);
    expect((await readLink(auth, link.id)).downloadCount).toBe(1);
  });
});
