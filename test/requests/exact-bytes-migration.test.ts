// Migration 0015 (file_requests.exact_bytes) applied to a database made by the schema before it,
// holding an account, its key, its file requests and a file one received: no row changes but for
// the new column (NULL: no exact size, maxFileSize only bounds), the migrated requests read and
// take files as before (a smaller file included), and a request with an exact size is made and
// obeyed on it. This file rebuilds its own D1 (storage is per test file).
import { applyD1Migrations, env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { newFileId } from '../../src/files/ids';
import { newKeyMaterial } from '../../src/keys/key-material';
import { randomBase64Url } from '../../src/lib/crypto';
import { migration, schemaBefore } from '../helpers/migrations';
import { getRequest, type RequestRecord, receivedRows, send } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { call } from '../helpers/worker';
import { mcpClient, toolData } from '../mcp/mcp-helpers';

type Seeded = {
  fileId: string;
  id: string;
  key: string;
  auth: Record<string, string>;
  requests: { id: string; token: string }[];
};

const HOUR = 3_600_000;

/** A key (founding its account) with two requests (one open, one closed) and a file received, as the code before 0015 stored them. */
async function seed(): Promise<Seeded> {
  const material = await newKeyMaterial();
  const created = new Date(Date.now() - HOUR).toISOString();
  const expires = new Date(Date.now() + 24 * HOUR).toISOString();
  const requests = [0, 1].map(() => ({ id: randomBase64Url(16), token: randomBase64Url(24) }));
  const fileId = newFileId();
  const r2Key = `files/${material.id}/${fileId}`;
  await env.FILES.put(r2Key, 'received', { httpMetadata: { contentType: 'text/plain' } });
  const [open, closed] = requests;
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO api_keys (id, key_hash, prefix, name, status, created_at, updated_at)
       VALUES (?1, ?2, ?3, 'owner', 'active', ?4, ?4)`,
    ).bind(material.id, material.keyHash, material.prefix, created),
    env.DB.prepare(
      `INSERT INTO file_requests (id, account_id, token, label, message, max_files, max_file_size, max_bytes,
         allowed_types, is_public, file_count, bytes, created_at, updated_at, expires_at, closed_at)
       VALUES (?1, ?2, ?3, 'Invoices', 'Send them', 5, 100, 1000, '["text/plain"]', 0, 1, 8, ?4, ?4, ?5, NULL)`,
    ).bind(open?.id, material.id, open?.token, created, expires),
    env.DB.prepare(
      `INSERT INTO file_requests (id, account_id, token, max_files, created_at, updated_at, expires_at, closed_at)
       VALUES (?1, ?2, ?3, 1, ?4, ?4, ?5, ?4)`,
    ).bind(closed?.id, material.id, closed?.token, created, expires),
    env.DB.prepare(
      `INSERT INTO files (id, account_id, filename, original_name, size, mime_type, r2_key, etag, share_token,
         is_public, download_count, uploaded_at, updated_at, expires_at, request_id)
       VALUES (?1, ?2, ?3, 'received.txt', 8, 'text/plain', ?4, '"etag"', ?5, 0, 0, ?6, ?6, NULL, ?7)`,
    ).bind(fileId, material.id, `received_${fileId}.txt`, r2Key, randomBase64Url(24), created, open?.id),
  ]);
  return { id: material.id, key: material.key, auth: { Authorization: `Bearer ${material.key}` }, requests, fileId };
}

const dump = async (table: string) => (await env.DB.prepare(`SELECT * FROM ${table} ORDER BY id`).all()).results;

let owner: Seeded;
let before: Record<string, Record<string, unknown>[]>;

beforeAll(async () => {
  await schemaBefore('0015');
  // Today's code reads every file's standing and every account's suspension (0016, which touches
  // nothing 0015 does), and files' end-to-end columns (0017, likewise): they join the old schema first.
  await applyD1Migrations(env.DB, [...migration('0016'), ...migration('0017')]);
  owner = await seed();
  before = { file_requests: await dump('file_requests'), files: await dump('files'), accounts: await dump('accounts') };
  expect(before.file_requests).toHaveLength(2);
  expect(before.file_requests?.[0]).not.toHaveProperty('exact_bytes');
  await env.DB.batch(migration('0015')[0]?.queries.map((query) => env.DB.prepare(query)) ?? []);
});

describe('migration 0015 on a database with file requests', () => {
  it('changes no row: requests only gain exact_bytes, NULL', async () => {
    expect(await dump('file_requests')).toEqual(before.file_requests?.map((row) => ({ ...row, exact_bytes: null })));
    expect(await dump('files')).toEqual(before.files);
    expect(await dump('accounts')).toEqual(before.accounts);
  });

  it('keeps the file received before it listed and downloadable', async () => {
    const listed = (await (await call('/api/v2/files', { headers: owner.auth })).json()) as {
      data: { files: { id: string; originalName: string; requestId: string | null }[] };
    };
    expect(listed.data.files.map((file) => [file.id, file.originalName, file.requestId])).toEqual([
      [owner.fileId, 'received.txt', owner.requests[0]?.id],
    ]);
    for (const version of ['v1', 'v2']) {
      const download = await call(`/api/${version}/files/${owner.fileId}/download`, { headers: owner.auth });
      expect(download.status, version).toBe(200);
      expect(await download.text(), version).toBe('received');
    }
  });

  it('reads the migrated requests as before, and they take files as before: maxFileSize only bounds', async () => {
    const [open, closed] = owner.requests;
    const record = await getRequest(owner.auth, open?.id ?? '');
    expect(record).toMatchObject({ label: 'Invoices', maxFiles: 5, maxFileSize: 100, fileCount: 1, status: 'open' });
    expect(record).not.toHaveProperty('exactBytes');
    expect((await getRequest(owner.auth, closed?.id ?? '')).status).toBe('closed');
    const response = await send(record, [{ filename: 'short.txt', content: 'hi', type: 'text/plain' }]);
    expect(response.status, await response.clone().text()).toBe(201);
    await expectError(
      await send(record, [{ filename: 'long.txt', content: 'x'.repeat(101), type: 'text/plain' }]),
      413,
      'FILE_TOO_LARGE',
    );
    // The file received before the migration and the one now, both the request's.
    expect((await receivedRows(record.id)).map((row) => row.size).sort()).toEqual([2, 8]);
  });

  it('makes and obeys a request with an exact size, and keeps the column a positive size', async () => {
    const client = await mcpClient(owner.key);
    const made = await toolData<{ uploadUrl: string; requestId: string }>(client, 'create_upload_url', {
      size: 3,
      contentType: 'text/plain',
    });
    const row = await env.DB.prepare('SELECT exact_bytes, max_file_size FROM file_requests WHERE id = ?1')
      .bind(made.requestId)
      .first();
    expect(row).toEqual({ exact_bytes: 3, max_file_size: 3 });
    const put = (body: string) =>
      call(made.uploadUrl, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body });
    await expectError(await put('ab'), 400, 'VALIDATION_ERROR');
    expect((await put('abc')).status).toBe(201);
    const record: RequestRecord = await getRequest(owner.auth, made.requestId);
    expect(record).not.toHaveProperty('exactBytes');
    for (const value of [0, -1]) {
      await expect(
        env.DB.prepare('UPDATE file_requests SET exact_bytes = ?2 WHERE id = ?1').bind(made.requestId, value).run(),
      ).rejects.toThrow();
    }
  });
});
