import { env, runDurableObjectAlarm } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { expectUnflushed } from '../helpers/links';
import type { ErrorBody } from '../helpers/records';
import { PNG_1X1, upload } from '../helpers/upload';
import { call, createKey, flushDefaultLink, inOneHourWindow } from '../helpers/worker';

type Uploaded = { id: string; shareUrl: string; size: number; mimeType: string };

const tokenOf = (shareUrl: string) => new URL(shareUrl).pathname.replace(/^\/share\//, '');

async function uploadFile(
  auth: Record<string, string>,
  file: { filename?: string; type?: string; content?: string },
  fields: Record<string, string> = {},
) {
  const { response, body } = await upload('v1', auth, file, { fields: fields });
  expect(response.status).toBe(201);
  const data = body.data as Uploaded;
  return { ...data, token: tokenOf(data.shareUrl) };
}

/** A hand-built multipart upload, so the file name reaches the server exactly as written. */
async function uploadRaw(auth: Record<string, string>, disposition: string, type: string, content: string) {
  const boundary = 'share-test-boundary';
  const body = [
    `--${boundary}`,
    `Content-Disposition: form-data; name="file"; ${disposition}`,
    `Content-Type: ${type}`,
    '',
    content,
    `--${boundary}--`,
    '',
  ].join('\r\n');
  const response = await call('/api/v1/upload', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body,
  });
  expect(response.status).toBe(201);
  const data = ((await response.json()) as { data: Uploaded }).data;
  return { ...data, token: tokenOf(data.shareUrl) };
}

/** The file's downloadCount once its default link's counter has written what it holds to D1. */
async function downloadCount(auth: Record<string, string>, id: string): Promise<number> {
  await flushDefaultLink(id);
  const response = await call(`/api/v1/files/${id}`, { headers: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { downloadCount: number } }).data.downloadCount;
}

/** Status, type and body of a response, for comparing two "not found" answers byte for byte. */
async function snapshot(path: string, headers: Record<string, string> = {}) {
  const response = await call(path, { headers: { 'X-Request-Id': 'share-probe-0001', ...headers } });
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

const randomToken = () => 'A'.repeat(10) + crypto.randomUUID().replaceAll('-', '').slice(0, 22);

describe('GET /share/:token', () => {
  it('shows an HTML page with the escaped name, size, type and a download link', async () => {
    const { auth } = await createKey();
    const hostile = '<img src=x onerror="alert(1)"> & co.txt';
    const file = await uploadRaw(
      auth,
      `filename*=UTF-8''${encodeURIComponent(hostile)}`,
      'text/plain',
      'twenty-six bytes of text!!',
    );

    const response = await call(`/share/${file.token}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).not.toContain(hostile);
    expect(page).not.toContain('<img src=x');
    expect(page).not.toContain('onerror="');
    expect(page).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; co.txt');
    expect(page).toContain('26 bytes');
    expect(page).toContain('text/plain');
    expect(page).toContain(`href="/share/${file.token}/download"`);
  });

  it('does not count a page view as a download', async () => {
    const { auth } = await createKey();
    const file = await uploadFile(auth, {});
    expect((await call(`/share/${file.token}`)).status).toBe(200);
    expect(await downloadCount(auth, file.id)).toBe(0);
  });

  it('loads its preview from a route that never counts; the Download button’s route counts', async () => {
    const { auth } = await createKey();
    const { response, body } = await upload('v1', auth, { filename: 'dot.png', type: 'image/png', content: PNG_1X1 });
    expect(response.status).toBe(201);
    const token = tokenOf(body.data.shareUrl);
    const page = await (await call(`/share/${token}`)).text();
    const preview = /<img src="(\/share\/[^"]+)"/.exec(page)?.[1] ?? '';
    expect(preview).toBe(`/share/${token}/view`);
    // What a browser does with the page: load the preview, as often as the page is viewed.
    for (let i = 0; i < 3; i++) {
      const image = await call(preview);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/png');
      expect(new Uint8Array(await image.arrayBuffer())).toEqual(PNG_1X1);
    }
    expect(await downloadCount(auth, body.data.id)).toBe(0);
    await (await call(`/share/${token}/download`)).arrayBuffer();
    expect(await downloadCount(auth, body.data.id)).toBe(1);
  });

  it('never previews an SVG inline on the page', async () => {
    const { auth } = await createKey();
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    const file = await uploadFile(auth, { filename: 'logo.svg', type: 'image/svg+xml', content: svg });
    expect(file.mimeType).toBe('image/svg+xml');
    const page = await (await call(`/share/${file.token}`)).text();
    expect(page).not.toMatch(/<(img|iframe|object|embed)[^>]*\/share\//);
    expect(page).not.toContain('<script>alert(1)');
  });

  it('answers 404 for an unknown token and for a malformed one', async () => {
    for (const token of [randomToken(), 'abc', 'not a token at all', '..%2F..%2Fetc', 'A'.repeat(200)]) {
      const response = await call(`/share/${token}`);
      expect(response.status, token).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const download = await call(`/share/${token}/download`);
      expect(download.status, token).toBe(404);
    }
  });

  it('answers 404 once the file is deleted', async () => {
    const { auth } = await createKey();
    const file = await uploadFile(auth, {});
    expect((await call(`/share/${file.token}`)).status).toBe(200);
    expect((await call(`/api/v1/files/${file.id}`, { method: 'DELETE', headers: auth })).status).toBe(200);
    expect((await call(`/share/${file.token}`)).status).toBe(404);
    expect((await call(`/share/${file.token}/download`)).status).toBe(404);
  });
});

describe('GET /share/:token/download', () => {
  it('serves the bytes with no key and the download headers of the contract', async () => {
    const { auth } = await createKey();
    const file = await uploadFile(auth, { filename: 'café notes.txt', content: 'shared bytes' });

    const response = await call(`/share/${file.token}/download`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('shared bytes');
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(response.headers.get('content-length')).toBe('12');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="cafe notes.txt"; filename*=UTF-8''caf%C3%A9%20notes.txt`,
    );
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(response.headers.get('last-modified')).toMatch(/GMT$/);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('cache-control')).toMatch(/^private\b/);
    // No key, no rate limit: a share link is not an API call.
    expect(response.headers.has('x-ratelimit-limit')).toBe(false);
  });

  it('counts each share download in downloadCount', async () => {
    const { auth } = await createKey();
    const file = await uploadFile(auth, {});
    expect(await downloadCount(auth, file.id)).toBe(0);
    await (await call(`/share/${file.token}/download`)).arrayBuffer();
    await (await call(`/share/${file.token}/download`)).arrayBuffer();
    expect(await downloadCount(auth, file.id)).toBe(2);
  });

  it('answers 404 FILE_NOT_FOUND as JSON, or an HTML page for a browser, for an unknown token', async () => {
    const json = await call(`/share/${randomToken()}/download`);
    expect(json.status).toBe(404);
    expect(((await json.json()) as ErrorBody).code).toBe('FILE_NOT_FOUND');
    const page = await call(`/share/${randomToken()}/download`, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it.each([
    ['an HTML page', 'page.html', 'text/html', '<!doctype html><html><script>alert(document.cookie)</script></html>'],
    [
      'an SVG image',
      'logo.svg',
      'image/svg+xml',
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    ],
    ['an XML document', 'data.xml', 'application/xml', '<?xml version="1.0"?><root/>'],
  ])('serves %s as a sandboxed attachment', async (_label, filename, type, content) => {
    const { auth } = await createKey();
    const file = await uploadFile(auth, { filename, type, content });
    const response = await call(`/share/${file.token}/download`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toMatch(/(^|;)\s*sandbox\b/);
    expect(response.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toBe(content);
  });
});

describe('the default link’s counting and throttle', () => {
  const storedCount = async (id: string) =>
    (await env.DB.prepare('SELECT download_count AS n FROM files WHERE id = ?1').bind(id).first<{ n: number }>())?.n;

  it('counts downloads in the file’s counter object and writes them to D1 once per flush, not once per download', async () => {
    const { auth } = await createKey();
    const file = await uploadFile(auth, {});
    const start = Date.now();
    for (let i = 0; i < 4; i++) await (await call(`/share/${file.token}/download`)).arrayBuffer();
    const stored = await storedCount(file.id);
    // Nothing written yet: four downloads cost D1 four reads, no write.
    expectUnflushed(stored, start, 4);
    await runDurableObjectAlarm(env.LINK_COUNTERS.getByName(`file:${file.id}`));
    expect(await storedCount(file.id)).toBe(4);
    // A flush with nothing pending adds nothing.
    await runDurableObjectAlarm(env.LINK_COUNTERS.getByName(`file:${file.id}`));
    expect(await downloadCount(auth, file.id)).toBe(4);
  });

  it('loses no count when downloads arrive together', async () => {
    const { auth } = await createKey();
    const file = await uploadFile(auth, {});
    const responses = await Promise.all(Array.from({ length: 12 }, () => call(`/share/${file.token}/download`)));
    await Promise.all(responses.map((response) => response.arrayBuffer()));
    expect(await downloadCount(auth, file.id)).toBe(12);
  });

  it('answers 429 with Retry-After past LINK_DOWNLOAD_LIMIT per address, as made links do', async () => {
    const { auth } = await createKey();
    const file = await uploadFile(auth, {});
    // The five requests count in one window.
    const vars = await inOneHourWindow('LINK_DOWNLOAD_WINDOW_SECONDS', { LINK_DOWNLOAD_LIMIT: '3' });
    const address = { 'CF-Connecting-IP': '192.0.2.78' };
    for (let i = 0; i < 3; i++) {
      const response = await call(`/share/${file.token}/download`, { headers: address }, vars);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    const refused = await call(`/share/${file.token}/download`, { headers: address }, vars);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(`/share/${file.token}/view`, { headers: address }, vars)).status).toBe(429);
    // Another address is not held back.
    expect((await call(`/share/${file.token}/download`, {}, vars)).status).toBe(200);
  });
});

describe('share links of private and expired files', () => {
  it('answers a private file exactly like an unknown token, on the page and the download', async () => {
    const { auth } = await createKey();
    const file = await uploadFile(auth, {}, { isPublic: 'false' });
    const unknown = randomToken();

    expect(await snapshot(`/share/${file.token}`)).toEqual(await snapshot(`/share/${unknown}`));
    const download = await snapshot(`/share/${file.token}/download`);
    expect(download.status).toBe(404);
    expect(download).toEqual(await snapshot(`/share/${unknown}/download`));
    const browser = { Accept: 'text/html' };
    expect(await snapshot(`/share/${file.token}/download`, browser)).toEqual(
      await snapshot(`/share/${unknown}/download`, browser),
    );
    // The owner still has it.
    expect(await downloadCount(auth, file.id)).toBe(0);
  });

  it('makes an expired file disappear from every read at once', async () => {
    const { auth } = await createKey();
    const file = await uploadFile(auth, {}, { expiresIn: '3600' });
    expect((await call(`/share/${file.token}`)).status).toBe(200);

    await env.DB.prepare('UPDATE files SET expires_at = ?1 WHERE id = ?2')
      .bind(new Date(Date.now() - 1000).toISOString(), file.id)
      .run();

    expect(await snapshot(`/share/${file.token}`)).toEqual(await snapshot(`/share/${randomToken()}`));
    expect(await snapshot(`/share/${file.token}/download`)).toEqual(await snapshot(`/share/${randomToken()}/download`));

    for (const path of [`/api/v1/files/${file.id}`, `/api/v1/files/${file.id}/download`]) {
      const response = await call(path, { headers: auth });
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as ErrorBody).code).toBe('FILE_NOT_FOUND');
    }
    const list = await call('/api/v1/files', { headers: auth });
    expect(list.status).toBe(200);
    const listed = (await list.json()) as { data: { files: { id: string }[]; pagination: { total: number } } };
    expect(listed.data.files.map((f) => f.id)).not.toContain(file.id);
    expect(listed.data.pagination.total).toBe(0);
  });

  it('keeps serving a file whose expiry is still ahead', async () => {
    const { auth } = await createKey();
    const file = await uploadFile(auth, {}, { expiresIn: '60' });
    expect((await call(`/share/${file.token}/download`)).status).toBe(200);
  });
});
