// Migration 0017 (end-to-end encryption) applied to a database made by the schema before it,
// holding an account, files (one stored in segments), a share link and a file request: no row
// changes but for the new columns (every file plain, every request plain, every segment starting
// at byte 0), and every file stays listed, downloadable with its key and through its links, the
// request open to plain uploads. This file rebuilds its own D1 (storage is per test file).
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { newFileId } from '../../src/files/ids';
import { newKeyMaterial } from '../../src/keys/key-material';
import { randomBase64Url } from '../../src/lib/crypto';
import { ageFile, newIdentity } from '../helpers/age-files';
import { migration, schemaBefore } from '../helpers/migrations';
import { call } from '../helpers/worker';

const dump = async (table: string, order = 'id') =>
  (await env.DB.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all<Record<string, unknown>>()).results;

const TABLES = { files: 'id', share_links: 'id', file_requests: 'id', file_segments: 'file_id, seq' } as const;

let auth: Record<string, string>;
const files: { id: string; content: string; token: string }[] = [];
let linkToken = '';
let requestToken = '';
let before: Record<string, Record<string, unknown>[]>;

beforeAll(async () => {
  await schemaBefore('0017');
  const material = await newKeyMaterial();
  auth = { Authorization: `Bearer ${material.key}` };
  const now = new Date(Date.now() - 3_600_000).toISOString();
  const keyRow = env.DB.prepare(
    `INSERT INTO api_keys (id, key_hash, prefix, name, status, created_at, updated_at)
       VALUES (?1, ?2, ?3, 'before 0017', 'active', ?4, ?4)`,
  ).bind(material.id, material.keyHash, material.prefix, now);
  const fileRows: D1PreparedStatement[] = [];
  const statements: D1PreparedStatement[] = [];
  // Two plain files: one object each, and one in two segments (a tus concatenation's).
  for (const [index, content] of ['a plain file', 'one in two segments'].entries()) {
    const id = newFileId();
    const token = randomBase64Url(24);
    const segmented = index === 1;
    const r2Key = segmented ? `concat/${material.id}/${id}` : `files/${material.id}/${id}`;
    if (segmented) {
      for (const [seq, part] of [content.slice(0, 7), content.slice(7)].entries()) {
        const key = `segments/${material.id}/${id}${seq}`;
        await env.FILES.put(key, part);
        statements.push(
          env.DB.prepare(
            `INSERT INTO file_segments (file_id, seq, r2_key, size, upload_id, upload_url)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)`,
          ).bind(id, seq, key, part.length, `${id}${seq}`, `/api/v2/uploads/${id}${seq}`),
        );
      }
    } else {
      await env.FILES.put(r2Key, content, { httpMetadata: { contentType: 'text/plain' } });
    }
    fileRows.push(
      env.DB.prepare(
        `INSERT INTO files (id, account_id, filename, original_name, size, mime_type, r2_key, etag, share_token,
           is_public, download_count, uploaded_at, updated_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 'text/plain', ?6, '"etag"', ?7, 1, 0, ?8, ?8, NULL)`,
      ).bind(id, material.id, `stored_${id}.txt`, `file ${index}.txt`, content.length, r2Key, token, now),
    );
    files.push({ id, content, token });
  }
  linkToken = randomBase64Url(32);
  requestToken = randomBase64Url(24);
  const later = new Date(Date.now() + 86_400_000).toISOString();
  statements.push(
    env.DB.prepare(
      `INSERT INTO share_links (id, file_id, account_id, token, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?5)`,
    ).bind(`lnk_${randomBase64Url(16)}`, files[0]?.id, material.id, linkToken, now),
    env.DB.prepare(
      `INSERT INTO file_requests (id, account_id, token, max_files, is_public, created_at, updated_at, expires_at)
       VALUES (?1, ?2, ?3, 5, 0, ?4, ?4, ?5)`,
    ).bind(randomBase64Url(16), material.id, requestToken, now, later),
  );
  // The key's row first (it founds the account), then the files, then what names them.
  await env.DB.batch([keyRow, ...fileRows, ...statements]);
  before = {};
  for (const [table, order] of Object.entries(TABLES)) before[table] = await dump(table, order);
  expect(before.files).toHaveLength(2);
  expect(before.file_segments).toHaveLength(2);
  await env.DB.batch(migration('0017')[0]?.queries.map((query) => env.DB.prepare(query)) ?? []);
});

describe('migration 0017 on a database with files, segments, a link and a request', () => {
  it('changes no row: files gain encryption, meta and e2e_header NULL, requests e2e 0, segments start 0', async () => {
    expect(await dump('files')).toEqual(
      before.files?.map((row) => ({ ...row, encryption: null, meta: null, e2e_header: null })),
    );
    expect(await dump('share_links')).toEqual(before.share_links);
    expect(await dump('file_requests')).toEqual(before.file_requests?.map((row) => ({ ...row, e2e: 0 })));
    expect(await dump('file_segments', TABLES.file_segments)).toEqual(
      before.file_segments?.map((row) => ({ ...row, start: 0 })),
    );
    expect(await dump('link_headers', 'link_id')).toEqual([]);
    expect(await dump('e2e_identities', 'account_id')).toEqual([]);
  });

  it('keeps every file plain, listed and downloadable, its links working, the request taking plain files', async () => {
    const listed = await call('/api/v2/files?limit=100', { headers: auth });
    const records = ((await listed.json()) as { data: { files: Record<string, unknown>[] } }).data.files;
    expect(records).toHaveLength(2);
    for (const record of records) expect(record).toMatchObject({ encryption: null, meta: null });
    for (const file of files) {
      expect(await (await call(`/api/v2/files/${file.id}/download`, { headers: auth })).text()).toBe(file.content);
      expect(await (await call(`/share/${file.token}/download`)).text()).toBe(file.content);
    }
    expect(await (await call(`/share/${linkToken}/download`)).text()).toBe(files[0]?.content);
    const ranged = await call(`/api/v2/files/${files[1]?.id}/download`, { headers: { ...auth, Range: 'bytes=5-9' } });
    expect(await ranged.text()).toBe(files[1]?.content.slice(5, 10));
    const sent = await call(`/api/v2/r/${requestToken}/upload/note.txt`, { method: 'PUT', body: 'plain still' });
    expect(sent.status).toBe(201);
  });

  it('takes age files on the migrated account', async () => {
    const file = await ageFile(await newIdentity(), 100, 51);
    const put = await call('/api/v2/upload/f.age?encryption=age', { method: 'PUT', headers: auth, body: file.bytes });
    expect(put.status).toBe(201);
  });
});
