// The operator's account view: /admin/accounts (the admin token), and /admin/keys for every account.
import { describe, expect, it } from 'vitest';
import { uploadOk } from '../helpers/upload';
import { call } from '../helpers/worker';

const ADMIN = { Authorization: 'Bearer test-admin-token-0123456789abcdefghij' };

async function admin(method: string, path: string, body?: unknown) {
  const response = await call(path, {
    method,
    headers: { ...ADMIN, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: admin answers of several shapes, read field by field
  return { status: response.status, body: (await response.json()) as { data: any; code?: string } };
}

describe('/admin/accounts', () => {
  it('creates an account with its first key, lists it and its keys, and adds keys to it', async () => {
    const created = await admin('POST', '/admin/accounts', {
      name: 'Acme',
      storageQuotaBytes: 2000,
      key: { name: 'acme ci', scopes: ['files:write', 'files:read'] },
    });
    expect(created.status).toBe(201);
    const { account, key } = created.body.data;
    expect(account).toMatchObject({ name: 'Acme', storageQuotaBytes: 2000, maxFiles: null });
    expect(key).toMatchObject({ name: 'acme ci', accountId: account.id, scopes: ['files:read', 'files:write'] });
    expect(key.key).toMatch(/^esk_/);
    const auth = { Authorization: `Bearer ${key.key}` };
    await uploadOk('v1', auth, { content: 'x'.repeat(1500) });
    // The key may not manage keys.
    expect((await call('/api/v2/keys', { headers: auth })).status).toBe(403);

    const second = await admin('POST', `/admin/accounts/${account.id}/keys`, { name: 'acme admin' });
    expect(second.status).toBe(201);
    expect(second.body.data.scopes).toContain('keys:write');
    const keys = await admin('GET', `/admin/accounts/${account.id}/keys`);
    expect(keys.body.data.keys.map((k: { name: string }) => k.name)).toEqual(['acme ci', 'acme admin']);
    const list = await admin('GET', '/admin/accounts');
    expect(list.body.data.accounts.map((a: { id: string }) => a.id)).toContain(account.id);
    // /admin/keys still lists every account's keys.
    const all = await admin('GET', '/admin/keys');
    expect(all.body.data.keys.map((k: { id: string }) => k.id)).toEqual(
      expect.arrayContaining([key.id, second.body.data.id]),
    );
  });

  it('refuses control and bidi characters in an account’s name and its keys’ names (400 naming the field)', async () => {
    const created = await admin('POST', '/admin/accounts', { name: 'Named' });
    expect(created.status).toBe(201);
    const { account } = created.body.data;
    for (const [path, body, field] of [
      ['/admin/accounts', { name: 'Acme\u202egpj.exe' }, 'name'],
      ['/admin/accounts', { name: 'Acme', key: { name: 'ci\u200f' } }, 'key.name'],
      [`/admin/accounts/${account.id}/keys`, { name: 'ci\u001b[2J' }, 'name'],
      [`/admin/accounts/${account.id}/keys`, { name: 'ci\u061c' }, 'name'],
    ] as const) {
      const answer = await admin('POST', path, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.code).toBe('VALIDATION_ERROR');
      expect((answer.body as { details?: { field: string }[] }).details?.map((detail) => detail.field)).toEqual([
        field,
      ]);
    }
    const keys = await admin('GET', `/admin/accounts/${account.id}/keys`);
    expect(keys.body.data.keys.map((k: { name: string }) => k.name)).toEqual(['Named']);
  });

  it('sets an account’s limits for all of its keys at once', async () => {
    const created = await admin('POST', '/admin/accounts', { name: 'Limited' });
    const { account, key } = created.body.data;
    const other = (await admin('POST', `/admin/accounts/${account.id}/keys`, { name: 'other' })).body.data;
    const auths = [key.key, other.key].map((secret: string) => ({ Authorization: `Bearer ${secret}` }));
    for (const auth of auths) expect((await call('/api/v2/usage', { headers: auth })).status).toBe(200);
    const set = await admin('PATCH', `/admin/accounts/${account.id}`, { storageQuotaBytes: 10, maxFiles: 3 });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ storageQuotaBytes: 10, maxFiles: 3 });
    for (const auth of auths) {
      const usage = (await (await call('/api/v2/usage', { headers: auth })).json()) as {
        data: Record<string, unknown>;
      };
      expect(usage.data).toMatchObject({ quotaBytes: 10, maxFiles: 3 });
    }
    expect((await admin('PATCH', '/admin/accounts/key_nope', { maxFiles: 1 })).status).toBe(404);
  });

  it('applies storage limits set on one key through /admin/keys to all of its account’s keys, the rate limit to that key only', async () => {
    const { account, key } = (await admin('POST', '/admin/accounts', { name: 'Two keys' })).body.data;
    const other = (await admin('POST', `/admin/accounts/${account.id}/keys`, { name: 'other' })).body.data;
    const otherAuth = { Authorization: `Bearer ${other.key}` };
    expect((await call('/api/v2/usage', { headers: otherAuth })).status).toBe(200);
    const set = await admin('PATCH', `/admin/keys/${key.id}`, { maxFiles: 2, rateLimitRequests: 7 });
    expect(set.body.data).toMatchObject({ maxFiles: 2, rateLimitRequests: 7, accountId: account.id });
    const response = await call('/api/v2/usage', { headers: otherAuth });
    const usage = (await response.json()) as { data: { maxFiles: number; rateLimit: { requests: number } } };
    expect(usage.data.maxFiles).toBe(2);
    expect(usage.data.rateLimit.requests).not.toBe(7);
  });
});
