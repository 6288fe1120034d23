// /api/v2/keys: an account's keys managed by one of them. Rotation keeps files and usage;
// a key gives at most what it holds; expiry answers like revocation; the last key that can
// manage keys stays.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/limiter/scopes';
import type { ErrorBody } from '../helpers/records';
import { uploadOk } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

type Auth = Record<string, string>;
type KeyRecord = {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  status: 'active' | 'revoked';
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
};
type Created = KeyRecord & { key: string };

const ALL_SCOPES = [...SCOPES];

const jsonInit = (method: string, auth: Auth, body: unknown): RequestInit => ({
  method,
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

async function makeKey(auth: Auth, body: Record<string, unknown>) {
  const response = await call('/api/v2/keys', jsonInit('POST', auth, body));
  return { response, body: (await response.json()) as { data: Created } & ErrorBody };
}

async function makeKeyOk(auth: Auth, body: Record<string, unknown>) {
  const { response, body: answer } = await makeKey(auth, body);
  expect(response.status, JSON.stringify(answer)).toBe(201);
  return { ...answer.data, auth: { Authorization: `Bearer ${answer.data.key}` } };
}

const revoke = (auth: Auth, id: string) => call(`/api/v2/keys/${id}`, { method: 'DELETE', headers: auth });

async function usageOf(auth: Auth) {
  const response = await call('/api/v2/usage', { headers: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Record<string, unknown> }).data;
}

async function listIds(auth: Auth) {
  const response = await call('/api/v1/files?limit=100', { headers: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { files: { id: string }[] } }).data.files.map((file) => file.id).sort();
}

describe('POST /api/v2/keys', () => {
  it('makes a key of the same account, with the secret shown once and the record’s fields', async () => {
    const owner = await createKey('owner');
    const { response, body } = await makeKey(owner.auth, { name: 'ci uploads', scopes: ['files:write'] });
    expect(response.status).toBe(201);
    expect(Object.keys(body.data).sort()).toEqual(
      ['createdAt', 'expiresAt', 'id', 'key', 'lastUsedAt', 'name', 'prefix', 'scopes', 'status'].sort(),
    );
    expect(body.data).toMatchObject({ name: 'ci uploads', scopes: ['files:write'], status: 'active', expiresAt: null });
    expect(body.data.key).toMatch(/^esk_[A-Za-z0-9_-]{43}$/);
    expect(body.data.key.startsWith(body.data.prefix)).toBe(true);
    expect(typeof (body as unknown as { _perf: unknown })._perf).toBe('number');
    // Never again: the list shows the record without the secret.
    const list = await call('/api/v2/keys', { headers: owner.auth });
    const listed = ((await list.json()) as { data: { keys: KeyRecord[] } }).data.keys;
    expect(listed.map((key) => key.id)).toEqual([owner.id, body.data.id]);
    expect(JSON.stringify(listed)).not.toContain(body.data.key);
    expect(listed[0]?.scopes).toEqual(ALL_SCOPES);
    const row = await env.DB.prepare('SELECT account_id FROM api_keys WHERE id = ?1').bind(body.data.id).first();
    expect(row).toEqual({ account_id: owner.id });
  });

  it('refuses scopes the maker lacks with 403 FORBIDDEN naming them, and stores nothing', async () => {
    const owner = await createKey('owner');
    const manager = await makeKeyOk(owner.auth, { name: 'manager', scopes: ['keys:write', 'files:read'] });
    const { response, body } = await makeKey(manager.auth, { name: 'wider', scopes: ['files:read', 'files:delete'] });
    expect(response.status).toBe(403);
    expect(body.code).toBe('FORBIDDEN');
    expect(body.details).toEqual([{ scope: 'files:delete' }]);
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM api_keys WHERE name = 'wider'").first<{
      n: number;
    }>();
    expect(count?.n).toBe(0);
    // Without a list, the child gets exactly the maker's scopes.
    const child = await makeKeyOk(manager.auth, { name: 'same' });
    expect(child.scopes).toEqual(['files:read', 'keys:write']);
  });

  it('refuses an expiry later than the maker’s (403), and gives the maker’s expiry by default', async () => {
    const owner = await createKey('owner');
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const temporary = await makeKeyOk(owner.auth, { name: 'temporary', expiresAt: inAnHour });
    expect(temporary.expiresAt).toBe(inAnHour);
    const longer = await makeKey(temporary.auth, { name: 'longer', expiresIn: 7200 });
    expect(longer.response.status).toBe(403);
    expect(longer.body.code).toBe('FORBIDDEN');
    const never = await makeKey(temporary.auth, { name: 'never', expiresIn: 86_400 });
    expect(never.response.status).toBe(403);
    const inherited = await makeKeyOk(temporary.auth, { name: 'inherited' });
    expect(inherited.expiresAt).toBe(inAnHour);
    const shorter = await makeKeyOk(temporary.auth, { name: 'shorter', expiresIn: 600 });
    expect(Date.parse(shorter.expiresAt ?? '')).toBeLessThan(Date.parse(inAnHour));
  });

  it('answers 400 for a bad body: no name, an unknown scope, both expiries, an expiry in the past', async () => {
    const owner = await createKey('owner');
    for (const body of [
      {},
      { name: 'x', scopes: ['files:everything'] },
      { name: 'x', expiresIn: 3600, expiresAt: new Date(Date.now() + 7_200_000).toISOString() },
      { name: 'x', expiresAt: new Date(Date.now() - 1000).toISOString() },
      { name: 'x', scopes: [] },
    ]) {
      const { response, body: answer } = await makeKey(owner.auth, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(answer.code).toBe('VALIDATION_ERROR');
    }
  });
});

// Every character a key's name may not hold (src/keys/key-name.ts): C0, DEL, C1, and the bidi
// marks, embeddings, overrides and isolates.
const CONTROL_NAMES = [
  ['an escape sequence', 'ops\u001b[2Jlaptop'],
  ['a line break inside', 'ops\nroot'],
  ['a tab inside', 'ops\tlaptop'],
  ['DEL', 'ops\u007flaptop'],
  ['a C1 control', 'ops\u009b31m'],
  ['a left-to-right mark', 'ops\u200elaptop'],
  ['a right-to-left mark', 'ops\u200flaptop'],
  ['an Arabic letter mark', 'ops\u061claptop'],
  ['a left-to-right embedding', 'ops\u202alaptop'],
  ['a right-to-left override', 'ops\u202eexe.txt'],
  ['a left-to-right isolate', 'ops\u2066laptop'],
  ['a pop directional isolate', 'ops\u2069laptop'],
] as const;

describe('key names', () => {
  it.each(CONTROL_NAMES)(
    'refuses a name with %s on create and rename: 400 VALIDATION_ERROR naming name',
    async (_label, name) => {
      const owner = await createKey('owner');
      const child = await makeKeyOk(owner.auth, { name: 'child' });
      const created = await makeKey(owner.auth, { name });
      const renamed = await call(`/api/v2/keys/${child.id}`, jsonInit('PATCH', owner.auth, { name }));
      const renamedBody = (await renamed.json()) as ErrorBody;
      for (const [response, body] of [
        [created.response, created.body],
        [renamed, renamedBody],
      ] as const) {
        expect(response.status).toBe(400);
        expect(body.code).toBe('VALIDATION_ERROR');
        expect(body.details).toEqual([{ field: 'name', message: expect.stringContaining('control') }]);
      }
      const listed = await call('/api/v2/keys', { headers: owner.auth });
      const names = ((await listed.json()) as { data: { keys: KeyRecord[] } }).data.keys.map((key) => key.name);
      expect(names.sort()).toEqual(['child', 'owner']);
    },
  );

  it('keeps names in any script, with emoji and inner spaces', async () => {
    const owner = await createKey('owner');
    for (const name of ['مفتاح النسخ', 'клавиша ci', '鍵 🔑', 'a  b']) {
      expect((await makeKeyOk(owner.auth, { name })).name).toBe(name);
    }
  });
});

describe('rotation', () => {
  it('keeps every file, the usage and the share links: a new key, then the old one revoked', async () => {
    const old = await createKey('old');
    const files = [
      await uploadOk('v1', old.auth, { filename: 'a.txt', content: 'first' }),
      await uploadOk('v2', old.auth, { filename: 'b.txt', content: 'second file' }),
    ];
    const before = await usageOf(old.auth);
    const fresh = await makeKeyOk(old.auth, { name: 'rotated' });
    expect((await revoke(fresh.auth, old.id)).status).toBe(200);

    const refused = await call('/api/v1/files', { headers: old.auth });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as ErrorBody).code).toBe('UNAUTHORIZED');

    expect(await listIds(fresh.auth)).toEqual(files.map((file) => file.id).sort());
    for (const file of files) {
      const download = await call(`/api/v1/files/${file.id}/download`, { headers: fresh.auth });
      expect(download.status).toBe(200);
      await download.arrayBuffer();
      const shared = await call(`${new URL(file.shareUrl).pathname}/download`);
      expect(shared.status).toBe(200);
      await shared.arrayBuffer();
    }
    expect(await usageOf(fresh.auth)).toEqual(before);
    // The new key stores into the same account.
    const third = await uploadOk('v1', fresh.auth, { filename: 'c.txt', content: 'third' });
    expect((await usageOf(fresh.auth)).files).toBe(3);
    expect(await listIds(fresh.auth)).toContain(third.id);
  });
});

describe('expiry', () => {
  it('is answered exactly like revocation once passed', async () => {
    const owner = await createKey('owner');
    // Five seconds: the key is made and used before it expires even on a loaded machine (1.5 s left
    // little room for those two requests); then the test waits until it has expired.
    const expiresAt = Date.now() + 5_000;
    const soon = await makeKeyOk(owner.auth, { name: 'soon', expiresAt: new Date(expiresAt).toISOString() });
    expect((await call('/api/v1/files', { headers: soon.auth })).status).toBe(200);
    const revoked = await makeKeyOk(owner.auth, { name: 'revoked' });
    expect((await revoke(owner.auth, revoked.id)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 100));
    const answers = [];
    for (const auth of [soon.auth, revoked.auth]) {
      const response = await call('/api/v1/files', { headers: auth });
      const { requestId: _id, ...body } = (await response.json()) as ErrorBody;
      answers.push({ status: response.status, body, challenge: response.headers.get('www-authenticate') });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' }, challenge: 'Bearer' });
  });
});

describe('PATCH and DELETE /api/v2/keys/{keyId}', () => {
  it('renames only: scopes cannot be changed, and another account’s key is 404', async () => {
    const owner = await createKey('owner');
    const child = await makeKeyOk(owner.auth, { name: 'child', scopes: ['files:read'] });
    const renamed = await call(`/api/v2/keys/${child.id}`, jsonInit('PATCH', owner.auth, { name: 'renamed' }));
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as { data: KeyRecord }).data).toMatchObject({
      name: 'renamed',
      scopes: ['files:read'],
    });
    const widen = await call(`/api/v2/keys/${child.id}`, jsonInit('PATCH', owner.auth, { scopes: ALL_SCOPES }));
    expect(widen.status).toBe(400);

    const stranger = await createKey('stranger');
    for (const response of [
      await call(`/api/v2/keys/${child.id}`, jsonInit('PATCH', stranger.auth, { name: 'mine' })),
      await revoke(stranger.auth, child.id),
      await revoke(stranger.auth, 'key_doesnotexist'),
    ]) {
      expect(response.status).toBe(404);
      expect(((await response.json()) as ErrorBody).code).toBe('NOT_FOUND');
    }
    expect((await call('/api/v1/files', { headers: child.auth })).status).toBe(200);
  });

  it('refuses to revoke the account’s last active keys:write key (409), until another exists', async () => {
    const owner = await createKey('owner');
    const last = await revoke(owner.auth, owner.id);
    expect(last.status).toBe(409);
    expect(((await last.json()) as ErrorBody).code).toBe('LAST_KEYS_WRITE_KEY');
    await makeKeyOk(owner.auth, { name: 'reader', scopes: ['files:read'] });
    expect((await revoke(owner.auth, owner.id)).status).toBe(409);
    const admin = await makeKeyOk(owner.auth, { name: 'admin', scopes: ['keys:write'] });
    const revoked = await revoke(owner.auth, owner.id);
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { data: KeyRecord }).data.status).toBe('revoked');
    // Revoked through the API: refused on its very next request.
    expect((await call('/api/v2/keys', { headers: owner.auth })).status).toBe(401);
    expect((await revoke(admin.auth, admin.id)).status).toBe(409);
  });
});

describe('two keys of one account racing uploads', () => {
  it('never pass the account’s quota: exactly as many files as fit are stored', async () => {
    const owner = await createKey('racing', { storageQuotaBytes: 5 * 1000 });
    const second = await makeKeyOk(owner.auth, { name: 'second' });
    const body = (name: string) => {
      const data = new FormData();
      data.append('file', new File(['x'.repeat(1000)], name, { type: 'text/plain' }));
      return data;
    };
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call('/api/v1/upload', { method: 'POST', headers: i % 2 ? owner.auth : second.auth, body: body(`f${i}.txt`) }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 413)).toHaveLength(11);
    for (const response of responses) await response.arrayBuffer();
    expect(await usageOf(second.auth)).toMatchObject({ usedBytes: 5000, files: 5, quotaBytes: 5000 });
    const rows = await env.DB.prepare('SELECT COUNT(*) AS n FROM files WHERE account_id = ?1')
      .bind(owner.id)
      .first<{ n: number }>();
    expect(rows?.n).toBe(5);
  });
});
