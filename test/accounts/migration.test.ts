// Migration 0006 (accounts) applied to a database made by the schema before it, holding files:
// every file is still listed and downloadable with the key that stored it, and the key's usage
// and limits are what they were. This file rebuilds its own D1 (storage is per test file).
import { applyD1Migrations, env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { newFileId } from '../../src/files/ids';
import { newKeyMaterial } from '../../src/keys/key-material';
import { randomBase64Url } from '../../src/lib/crypto';
import { emptyDatabase, migration, migrationsAfter, migrationsBefore } from '../helpers/migrations';
import { call } from '../helpers/worker';

const BEFORE = migrationsBefore('0006');
const ACCOUNTS = migration('0006');
// Today's code also reads what later migrations add (0008's sha256): they follow 0006, as in a deploy.
const LATER = migrationsAfter('0006');

type Seeded = {
  id: string;
  key: string;
  auth: Record<string, string>;
  files: { id: string; content: string; token: string }[];
};

/** A key and its files as the code before 0006 stored them (rows, R2 objects, key_stats by trigger). */
async function seedKey(
  name: string,
  overrides: { quota?: number; maxFiles?: number },
  files: { content: string; isPublic?: boolean; expiresAt?: string }[],
): Promise<Seeded> {
  const material = await newKeyMaterial();
  const now = new Date(Date.now() - 86_400_000).toISOString();
  const statements = [
    env.DB.prepare(
      `INSERT INTO api_keys (id, key_hash, prefix, name, status, storage_quota_bytes, max_files, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, 'active', ?5, ?6, ?7, ?7)`,
    ).bind(
      material.id,
      material.keyHash,
      material.prefix,
      name,
      overrides.quota ?? null,
      overrides.maxFiles ?? null,
      now,
    ),
  ];
  const seeded: Seeded['files'] = [];
  for (const [index, file] of files.entries()) {
    const id = newFileId();
    const token = randomBase64Url(24);
    const r2Key = `files/${material.id}/${id}`;
    await env.FILES.put(r2Key, file.content, {
      httpMetadata: { contentType: 'text/plain' },
      customMetadata: { keyId: material.id, fileId: id },
    });
    const object = await env.FILES.head(r2Key);
    statements.push(
      env.DB.prepare(
        `INSERT INTO files (id, key_id, filename, original_name, size, mime_type, r2_key, etag, share_token, is_public,
           download_count, uploaded_at, updated_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 'text/plain', ?6, ?7, ?8, ?9, 0, ?10, ?10, ?11)`,
      ).bind(
        id,
        material.id,
        `stored_${id}.txt`,
        `old file ${index}.txt`,
        file.content.length,
        r2Key,
        object?.httpEtag ?? '""',
        token,
        file.isPublic === false ? 0 : 1,
        new Date(Date.now() - 3_600_000 + index * 1000).toISOString(),
        file.expiresAt ?? null,
      ),
    );
    seeded.push({ id, content: file.content, token });
  }
  await env.DB.batch(statements);
  return { id: material.id, key: material.key, auth: { Authorization: `Bearer ${material.key}` }, files: seeded };
}

let alice: Seeded;
let bob: Seeded;

beforeAll(async () => {
  await emptyDatabase();
  await applyD1Migrations(env.DB, BEFORE);
  const columns = await env.DB.prepare("SELECT name FROM pragma_table_info('files')").all<{ name: string }>();
  expect(columns.results.map((column) => column.name)).toContain('key_id');
  const later = new Date(Date.now() + 7 * 86_400_000).toISOString();
  alice = await seedKey('alice', {}, [
    { content: 'first file' },
    { content: 'a private one', isPublic: false },
    { content: 'expires next week', expiresAt: later },
  ]);
  bob = await seedKey('bob', { quota: 12_345, maxFiles: 7 }, [{ content: 'bob says hi' }]);
  await applyD1Migrations(env.DB, ACCOUNTS);
  await applyD1Migrations(env.DB, LATER);
});

describe('migration 0006 on a database that holds files', () => {
  it('makes every key an account of its own, with the key’s id and storage limits', async () => {
    const { results } = await env.DB.prepare(
      'SELECT k.id, k.account_id, k.scopes, k.expires_at, a.storage_quota_bytes, a.max_files FROM api_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.name',
    ).all();
    expect(results).toEqual([
      {
        id: alice.id,
        account_id: alice.id,
        scopes: null,
        expires_at: null,
        storage_quota_bytes: null,
        max_files: null,
      },
      { id: bob.id, account_id: bob.id, scopes: null, expires_at: null, storage_quota_bytes: 12_345, max_files: 7 },
    ]);
    const stats = await env.DB.prepare('SELECT account_id, files FROM key_stats ORDER BY files').all();
    expect(stats.results).toEqual([
      { account_id: bob.id, files: 1 },
      { account_id: alice.id, files: 3 },
    ]);
  });

  it('lists every file with the old key, in both versions', async () => {
    for (const version of ['v1', 'v2']) {
      const response = await call(`/api/${version}/files?limit=100`, { headers: alice.auth });
      expect(response.status).toBe(200);
      const body = await response.json<{ data: { files: { id: string }[]; pagination: { total: number } } }>();
      expect(body.data.files.map((file) => file.id).sort()).toEqual(alice.files.map((file) => file.id).sort());
      expect(body.data.pagination.total).toBe(3);
    }
  });

  it('downloads every file, byte for byte, and another key still cannot see them', async () => {
    for (const file of [
      ...alice.files.map((f) => ({ ...f, auth: alice.auth })),
      ...bob.files.map((f) => ({ ...f, auth: bob.auth })),
    ]) {
      const response = await call(`/api/v1/files/${file.id}/download`, { headers: file.auth });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(file.content);
    }
    const other = await call(`/api/v1/files/${alice.files[0]?.id}`, { headers: bob.auth });
    expect(other.status).toBe(404);
  });

  it('keeps usage and limits: bytes and files as stored, the old per-key quota now the account’s', async () => {
    const sum = alice.files.reduce((total, file) => total + file.content.length, 0);
    const aliceUsage = await (await call('/api/v2/usage', { headers: alice.auth })).json<{
      data: Record<string, unknown>;
    }>();
    expect(aliceUsage.data).toMatchObject({ usedBytes: sum, files: 3, quotaBytes: 1_073_741_824 });
    const bobUsage = await (await call('/api/v2/usage', { headers: bob.auth })).json<{
      data: Record<string, unknown>;
    }>();
    expect(bobUsage.data).toMatchObject({ usedBytes: 'bob says hi'.length, files: 1, quotaBytes: 12_345, maxFiles: 7 });
  });

  it('counts new files and deletions in the renamed column, through the renamed triggers', async () => {
    const body = new FormData();
    body.append('file', new File(['after the migration'], 'new.txt', { type: 'text/plain' }));
    const uploaded = await call('/api/v1/upload', { method: 'POST', headers: alice.auth, body });
    expect(uploaded.status).toBe(201);
    const { data } = await uploaded.json<{ data: { id: string } }>();
    const row = await env.DB.prepare('SELECT account_id FROM files WHERE id = ?1').bind(data.id).first();
    expect(row).toEqual({ account_id: alice.id });
    const stats = () => env.DB.prepare('SELECT files FROM key_stats WHERE account_id = ?1').bind(alice.id).first();
    expect(await stats()).toEqual({ files: 4 });
    expect((await call(`/api/v1/files/${alice.files[0]?.id}`, { method: 'DELETE', headers: alice.auth })).status).toBe(
      200,
    );
    expect(await stats()).toEqual({ files: 3 });
  });

  it('keeps a public file’s share link working', async () => {
    const response = await call(`/share/${bob.files[0]?.token}/download`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('bob says hi');
  });
});
