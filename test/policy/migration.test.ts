// Migration 0014 (accounts.policy) applied to a database made by the schema before it, holding
// accounts, keys and files: no row changes but for the new column (NULL: no override), every file
// stays listed and downloadable with its key, and the policy works on the migrated accounts. This
// file rebuilds its own D1 (storage is per test file).
import { applyD1Migrations, env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { newFileId } from '../../src/files/ids';
import { newKeyMaterial } from '../../src/keys/key-material';
import { randomBase64Url } from '../../src/lib/crypto';
import { migration, schemaBefore } from '../helpers/migrations';
import { call } from '../helpers/worker';
import { expectViolation, policyOf, send, setAccountPolicy } from './policy-helpers';

type Seeded = { id: string; auth: Record<string, string>; files: { id: string; content: string; token: string }[] };

/** A key (founding its account, as a key inserted without one does) and its files, as the code before 0014 stored them. */
async function seed(name: string, quota: number | null, contents: string[]): Promise<Seeded> {
  const material = await newKeyMaterial();
  const now = new Date(Date.now() - 3_600_000).toISOString();
  const statements = [
    env.DB.prepare(
      `INSERT INTO api_keys (id, key_hash, prefix, name, status, storage_quota_bytes, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, 'active', ?5, ?6, ?6)`,
    ).bind(material.id, material.keyHash, material.prefix, name, quota, now),
  ];
  const files: Seeded['files'] = [];
  for (const [index, content] of contents.entries()) {
    const id = newFileId();
    const token = randomBase64Url(24);
    const r2Key = `files/${material.id}/${id}`;
    await env.FILES.put(r2Key, content, { httpMetadata: { contentType: 'text/plain' } });
    const object = await env.FILES.head(r2Key);
    statements.push(
      env.DB.prepare(
        `INSERT INTO files (id, account_id, filename, original_name, size, mime_type, r2_key, etag, share_token,
           is_public, download_count, uploaded_at, updated_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 'text/plain', ?6, ?7, ?8, 1, 0, ?9, ?9, NULL)`,
      ).bind(
        id,
        material.id,
        `stored_${id}.txt`,
        `${name} ${index}.txt`,
        content.length,
        r2Key,
        object?.httpEtag ?? '""',
        token,
        new Date(Date.now() - 60_000 + index).toISOString(),
      ),
    );
    files.push({ id, content, token });
  }
  await env.DB.batch(statements);
  return { id: material.id, auth: { Authorization: `Bearer ${material.key}` }, files };
}

const dump = async (table: string) => (await env.DB.prepare(`SELECT * FROM ${table} ORDER BY id`).all()).results;

let alice: Seeded;
let bob: Seeded;
let before: Record<string, Record<string, unknown>[]>;

beforeAll(async () => {
  await schemaBefore('0014');
  // Today's code reads every file's standing and every account's suspension (0016, which touches
  // nothing 0014 does), and files' end-to-end columns (0017, likewise): they join the old schema first.
  await applyD1Migrations(env.DB, [...migration('0016'), ...migration('0017')]);
  alice = await seed('alice', null, ['first file', 'second file']);
  bob = await seed('bob', 5000, ['bob says hi']);
  before = { accounts: await dump('accounts'), api_keys: await dump('api_keys'), files: await dump('files') };
  expect(before.accounts).toHaveLength(2);
  await env.DB.batch(migration('0014')[0]?.queries.map((query) => env.DB.prepare(query)) ?? []);
});

describe('migration 0014 on a database with accounts and files', () => {
  it('changes no row: accounts only gain policy, NULL (no override)', async () => {
    expect(await dump('accounts')).toEqual(before.accounts?.map((account) => ({ ...account, policy: null })));
    expect(await dump('api_keys')).toEqual(before.api_keys);
    expect(await dump('files')).toEqual(before.files);
  });

  it('keeps every file listed and downloadable with its key, and its share link working', async () => {
    for (const owner of [alice, bob]) {
      const listed = await call('/api/v2/files?limit=100', { headers: owner.auth });
      const ids = ((await listed.json()) as { data: { files: { id: string }[] } }).data.files.map((file) => file.id);
      expect(ids.sort()).toEqual(owner.files.map((file) => file.id).sort());
      for (const file of owner.files) {
        const download = await call(`/api/v1/files/${file.id}/download`, { headers: owner.auth });
        expect(await download.text()).toBe(file.content);
        expect(await (await call(`/share/${file.token}/download`)).text()).toBe(file.content);
      }
    }
    const usage = await call('/api/v2/usage', { headers: bob.auth });
    expect(((await usage.json()) as { data: unknown }).data).toMatchObject({ quotaBytes: 5000, files: 1 });
  });

  it('gives migrated accounts the configured bounds, and takes their overrides', async () => {
    // Every bound unset; the one permission (e2eAllowed) on, as configured.
    const { e2eAllowed, ...bounds } = await policyOf(alice.auth);
    expect(Object.values(bounds).every((value) => value === null)).toBe(true);
    expect(e2eAllowed).toBe(true);
    expect(await policyOf(alice.auth, { LINK_MAX_DOWNLOADS: '4' })).toMatchObject({ linkMaxDownloads: 4 });
    await setAccountPolicy(alice.id, { linkRequirePassword: true });
    expectViolation(await send(alice.auth, 'POST', `/files/${alice.files[0]?.id}/links`, {}), [
      { field: 'password', rule: 'linkRequirePassword', limit: true },
    ]);
    expect((await send(bob.auth, 'POST', `/files/${bob.files[0]?.id}/links`, {})).status).toBe(201);
  });

  it('keeps only JSON objects in the column', async () => {
    for (const value of ['[1]', '"text"', '7']) {
      await expect(
        env.DB.prepare('UPDATE accounts SET policy = ?2 WHERE id = ?1').bind(bob.id, value).run(),
      ).rejects.toThrow();
    }
  });
});
