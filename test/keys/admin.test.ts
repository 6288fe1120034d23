import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import type { ErrorBody } from '../helpers/records';
import { form } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

const ADMIN = { Authorization: 'Bearer test-admin-token-0123456789abcdefghij' };

type KeyRecord = {
  id: string;
  name: string;
  prefix: string;
  status: 'active' | 'revoked';
  rateLimitRequests: number | null;
  revokedAt: string | null;
  createdAt: string;
};

function adminCall(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = ADMIN,
  envOverrides = {},
) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
  }
  return call(path, init, envOverrides);
}

async function createKeyOverHttp(body: Record<string, unknown> = { name: 'ci' }) {
  const response = await adminCall('POST', '/admin/keys', body);
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: KeyRecord & { key: string } }).data;
}

async function expectError(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(((await response.json()) as ErrorBody).code).toBe(code);
}

async function sha256Hex(text: string) {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

describe('POST /admin/keys', () => {
  it('creates an active key, shows it once, and the key works on the API', async () => {
    const created = await createKeyOverHttp({ name: 'ci runner' });
    expect(created.key).toMatch(/^esk_[A-Za-z0-9_-]{43,}$/);
    expect(created.id).toEqual(expect.any(String));
    expect(created.name).toBe('ci runner');
    expect(created.status).toBe('active');
    expect(created.revokedAt).toBeNull();
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created.prefix.length).toBeLessThan(created.key.length - 32);

    const files = await call('/api/v1/files', { headers: { Authorization: `Bearer ${created.key}` } });
    expect(files.status).toBe(200);
  });

  it('issues a different key every time', async () => {
    const a = await createKeyOverHttp();
    const b = await createKeyOverHttp();
    expect(a.key).not.toBe(b.key);
    expect(a.id).not.toBe(b.id);
  });

  it('applies a per-key rate limit override', async () => {
    const created = await createKeyOverHttp({ name: 'tight', rateLimitRequests: 1, rateLimitWindowSeconds: 3600 });
    expect(created.rateLimitRequests).toBe(1);
    const auth = { Authorization: `Bearer ${created.key}` };
    expect((await call('/api/v1/files', { headers: auth })).status).toBe(200);
    expect((await call('/api/v1/files', { headers: auth })).status).toBe(429);
  });

  it.each([
    ['malformed JSON', '{"name": '],
    ['a missing name', {}],
    ['an empty name', { name: '   ' }],
    ['a name that is not a string', { name: 42 }],
    ['a rate limit that is not a whole number', { name: 'x', rateLimitRequests: 1.5 }],
    ['a name with an escape sequence', { name: 'ops\u001b[2Jlaptop' }],
    ['a name with a line break inside', { name: 'ops\nroot\tactive' }],
    ['a name with DEL', { name: 'ops\u007f' }],
    ['a name with a C1 control', { name: 'ops\u009b31m' }],
    ['a name with a bidi override', { name: 'ops\u202eexe.txt' }],
    ['a name with a right-to-left mark', { name: 'ops\u200flaptop' }],
    ['a name with a left-to-right mark', { name: 'ops\u200elaptop' }],
    ['a name with an Arabic letter mark', { name: 'ops\u061claptop' }],
    ['a name with a bidi isolate', { name: 'ops\u2067laptop' }],
  ])('answers %s with 400 VALIDATION_ERROR', async (_label, body) => {
    await expectError(await adminCall('POST', '/admin/keys', body), 400, 'VALIDATION_ERROR');
  });

  it('stores only the SHA-256 hex of the key', async () => {
    const created = await createKeyOverHttp({ name: 'hashed' });
    const row = await env.DB.prepare('SELECT * FROM api_keys WHERE id = ?1')
      .bind(created.id)
      .first<Record<string, unknown>>();
    expect(row).not.toBeNull();
    expect(row?.key_hash).toBe(await sha256Hex(created.key));
    const secret = created.key.slice(created.prefix.length);
    for (const [column, value] of Object.entries(row ?? {})) {
      expect(String(value), column).not.toContain(created.key);
      expect(String(value), column).not.toContain(secret);
    }
  });
});

describe('GET /admin/keys', () => {
  it('lists keys with no key or hash material', async () => {
    const created = await createKeyOverHttp({ name: 'listed' });
    const response = await adminCall('GET', '/admin/keys');
    expect(response.status).toBe(200);
    const text = await response.text();
    const keys = (JSON.parse(text) as { data: { keys: KeyRecord[] } }).data.keys;
    const listed = keys.find((key) => key.id === created.id);
    expect(listed).toMatchObject({ name: 'listed', prefix: created.prefix, status: 'active' });
    expect(text).not.toContain(created.key);
    expect(text).not.toContain(created.key.slice(created.prefix.length));
    expect(text).not.toContain(await sha256Hex(created.key));
    for (const key of keys) {
      expect(Object.keys(key)).not.toContain('key');
      expect(Object.keys(key).some((field) => /hash/i.test(field))).toBe(false);
    }
  });
});

describe('PATCH /admin/keys/:id', () => {
  it("changes a key's overrides, which take effect on its next request", async () => {
    const created = await createKeyOverHttp({ name: 'tunable' });
    const auth = { Authorization: `Bearer ${created.key}` };
    expect((await call('/api/v1/files', { headers: auth })).headers.get('x-ratelimit-limit')).toBe('100');

    const response = await adminCall('PATCH', `/admin/keys/${created.id}`, {
      rateLimitRequests: 2,
      storageQuotaBytes: 5000,
    });
    expect(response.status).toBe(200);
    const updated = ((await response.json()) as { data: KeyRecord & { storageQuotaBytes: number | null } }).data;
    expect(updated).toMatchObject({ id: created.id, rateLimitRequests: 2, storageQuotaBytes: 5000 });
    expect((await call('/api/v1/files', { headers: auth })).headers.get('x-ratelimit-limit')).toBe('2');
  });

  it('clears an override with null and leaves absent fields alone', async () => {
    const created = await createKeyOverHttp({ name: 'clear', rateLimitRequests: 5, storageQuotaBytes: 9 });
    const response = await adminCall('PATCH', `/admin/keys/${created.id}`, { rateLimitRequests: null });
    const updated = ((await response.json()) as { data: KeyRecord & { storageQuotaBytes: number | null } }).data;
    expect(updated.rateLimitRequests).toBeNull();
    expect(updated.storageQuotaBytes).toBe(9);
  });

  it('sets and clears the file-count limit (maxFiles), which applies to the next upload', async () => {
    const created = await createKeyOverHttp({ name: 'few files', maxFiles: 1 });
    expect(created).toMatchObject({ maxFiles: 1 });
    const auth = { Authorization: `Bearer ${created.key}` };
    const upload = () =>
      call('/api/v1/upload', { method: 'POST', headers: auth, body: form([{ filename: 'a.txt', content: 'a' }]) });
    expect((await upload()).status).toBe(201);
    await expectError(await upload(), 413, 'STORAGE_EXCEEDED');
    const response = await adminCall('PATCH', `/admin/keys/${created.id}`, { maxFiles: null });
    expect(((await response.json()) as { data: { maxFiles: number | null } }).data.maxFiles).toBeNull();
    expect((await upload()).status).toBe(201);
  });

  it('answers 404 for an unknown key and 400 for a bad value', async () => {
    await expectError(await adminCall('PATCH', '/admin/keys/key_nope', { rateLimitRequests: 3 }), 404, 'NOT_FOUND');
    const created = await createKeyOverHttp();
    await expectError(
      await adminCall('PATCH', `/admin/keys/${created.id}`, { rateLimitRequests: 0 }),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('DELETE /admin/keys/:id', () => {
  it('revokes the key, which is then refused like an unknown key', async () => {
    const created = await createKeyOverHttp({ name: 'doomed' });
    const auth = { Authorization: `Bearer ${created.key}` };
    expect((await call('/api/v1/files', { headers: auth })).status).toBe(200);

    const response = await adminCall('DELETE', `/admin/keys/${created.id}`);
    expect(response.status).toBe(200);
    const revoked = ((await response.json()) as { data: KeyRecord }).data;
    expect(revoked.status).toBe('revoked');
    expect(revoked.revokedAt).toEqual(expect.any(String));

    const refused = await call('/api/v1/files', { headers: auth });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const body = (await refused.json()) as ErrorBody;
    expect(body).toMatchObject({ error: 'Invalid or inactive API key', code: 'UNAUTHORIZED' });

    const listed = (await (await adminCall('GET', '/admin/keys')).json()) as { data: { keys: KeyRecord[] } };
    expect(listed.data.keys.find((key) => key.id === created.id)?.status).toBe('revoked');
  });

  it('stops the key’s share links at once (decision: revoked keys serve nothing), keeping the files stored', async () => {
    const created = await createKeyOverHttp({ name: 'sharer' });
    const auth = { Authorization: `Bearer ${created.key}` };
    const uploaded = await call('/api/v1/upload', {
      method: 'POST',
      headers: auth,
      body: form([{ filename: 'shared.txt', content: 'shared words' }]),
    });
    const { data } = (await uploaded.json()) as { data: { id: string; shareUrl: string } };
    const share = new URL(data.shareUrl).pathname;
    expect((await call(share)).status).toBe(200);
    expect((await call(`${share}/download`)).status).toBe(200);

    expect((await adminCall('DELETE', `/admin/keys/${created.id}`)).status).toBe(200);
    const page = await call(share, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('Not found');
    await expectError(await call(`${share}/download`), 404, 'FILE_NOT_FOUND');
    await expectError(await call(`${share}/view`), 404, 'FILE_NOT_FOUND');
    // Nothing is deleted: the row and the blob stay (docs/limits.md, "Revoked keys").
    const row = await env.DB.prepare('SELECT r2_key FROM files WHERE id = ?1')
      .bind(data.id)
      .first<{ r2_key: string }>();
    expect(await env.FILES.head(row?.r2_key ?? '')).not.toBeNull();
  });

  it('is harmless the second time', async () => {
    const created = await createKeyOverHttp();
    expect((await adminCall('DELETE', `/admin/keys/${created.id}`)).status).toBe(200);
    expect((await adminCall('DELETE', `/admin/keys/${created.id}`)).status).toBe(200);
  });

  it('answers 404 for an unknown key id', async () => {
    await expectError(await adminCall('DELETE', '/admin/keys/key_doesnotexist'), 404, 'NOT_FOUND');
  });
});

describe('admin authentication', () => {
  const wrong = [
    ['no token', {}],
    ['a wrong token', { Authorization: 'Bearer test-admin-token-0123456789abcdefghik' }],
    ['a prefix of the token', { Authorization: 'Bearer test-admin-token' }],
    ['the token without Bearer', { Authorization: 'test-admin-token-0123456789abcdefghij' }],
    ['a Basic header', { Authorization: `Basic ${btoa('admin:test-admin-token-0123456789abcdefghij')}` }],
  ] as const;

  it.each(wrong)('answers %s with 401 UNAUTHORIZED on every admin route', async (_label, headers) => {
    await expectError(await adminCall('GET', '/admin/keys', undefined, headers), 401, 'UNAUTHORIZED');
    await expectError(await adminCall('POST', '/admin/keys', { name: 'x' }, headers), 401, 'UNAUTHORIZED');
    await expectError(await adminCall('DELETE', '/admin/keys/key_x', undefined, headers), 401, 'UNAUTHORIZED');
  });

  it('does not accept an API key as the admin token', async () => {
    const created = await createKeyOverHttp();
    const headers = { Authorization: `Bearer ${created.key}` };
    await expectError(await adminCall('GET', '/admin/keys', undefined, headers), 401, 'UNAUTHORIZED');
  });

  it('creates nothing when refused', async () => {
    const before = await env.DB.prepare('SELECT COUNT(*) AS n FROM api_keys').first<{ n: number }>();
    await adminCall('POST', '/admin/keys', { name: 'sneaky' }, { Authorization: 'Bearer nope-nope-nope-nope' });
    const after = await env.DB.prepare('SELECT COUNT(*) AS n FROM api_keys').first<{ n: number }>();
    expect(after?.n).toBe(before?.n);
  });
});

describe('with ADMIN_TOKEN unset', () => {
  it.each([
    ['unset', { ADMIN_TOKEN: undefined }],
    ['empty', { ADMIN_TOKEN: '' }],
  ])('answers 404 NOT_FOUND for every admin route when it is %s', async (_label, overrides) => {
    for (const headers of [ADMIN, {}, { Authorization: 'Bearer ' }]) {
      await expectError(await adminCall('GET', '/admin/keys', undefined, headers, overrides), 404, 'NOT_FOUND');
      await expectError(await adminCall('POST', '/admin/keys', { name: 'x' }, headers, overrides), 404, 'NOT_FOUND');
      await expectError(
        await adminCall('DELETE', '/admin/keys/key_x', undefined, headers, overrides),
        404,
        'NOT_FOUND',
      );
      await expectError(await adminCall('GET', '/admin', undefined, headers, overrides), 404, 'NOT_FOUND');
    }
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE name = 'x'").first<{ n: number }>();
    expect(count?.n).toBe(0);
  });
});

describe('admin routes', () => {
  it('answers 405 METHOD_NOT_ALLOWED with Allow for a wrong method on /admin/keys', async () => {
    const response = await adminCall('PUT', '/admin/keys');
    await expectError(response, 405, 'METHOD_NOT_ALLOWED');
    expect(response.headers.get('allow')).toMatch(/GET/);
    expect(response.headers.get('allow')).toMatch(/POST/);
  });

  it('answers 404 NOT_FOUND for an unknown admin path', async () => {
    await expectError(await adminCall('GET', '/admin/nope'), 404, 'NOT_FOUND');
  });
});

describe('a bad ADMIN_TOKEN (too short)', () => {
  const SHORT = { ADMIN_TOKEN: 'short-admin-token' };

  it('turns off the admin API and /keys with a clear log line, and nothing else', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect((await call('/health', {}, SHORT)).status).toBe(200);
      const logged = errors.mock.calls.map((args) => String(args[0]));
      expect(logged.some((line) => line.includes('ADMIN_TOKEN must be at least 32 characters'))).toBe(true);
      expect(logged.some((line) => line.includes('disabled'))).toBe(true);
      for (const line of logged) expect(line).not.toContain(SHORT.ADMIN_TOKEN);

      // Uploads and share links go on.
      const { auth } = await createKey('short admin token');
      const body = form([{ filename: 'a.txt', type: 'text/plain', content: 'still up' }], { isPublic: 'true' });
      const uploaded = await call('/api/v2/upload', { method: 'POST', headers: auth, body }, SHORT);
      expect(uploaded.status).toBe(201);
      const { data } = (await uploaded.json()) as { data: { shareUrl: string } };
      const share = await call(`${new URL(data.shareUrl).pathname}/download`, {}, SHORT);
      expect(share.status).toBe(200);
      expect(await share.text()).toBe('still up');

      // The admin API is off (whatever token is sent), and /keys (still the account holders' page)
      // says why in its operator part.
      const admin = await call('/admin/keys', { headers: { Authorization: `Bearer ${SHORT.ADMIN_TOKEN}` } }, SHORT);
      expect(admin.status).toBe(404);
      const page = await call('/keys', {}, SHORT);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html).toContain('at least 32 characters');
      expect(html).not.toContain('id="admin-token"');
      expect(html).not.toContain(SHORT.ADMIN_TOKEN);
    } finally {
      errors.mockRestore();
    }
  });
});
