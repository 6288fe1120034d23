import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../helpers/digests';
import { getRecord } from '../helpers/files';
import {
  type FileRecord,
  ISO_MS,
  LIST_ITEM_FIELDS,
  type Pagination,
  recordFieldsFor,
  type Success,
} from '../helpers/records';
import { type ApiVersion, api, expectError, readJson, VERSIONS } from '../helpers/responses';
import { uploadOk } from '../helpers/upload';
import { call, createKey, ORIGIN } from '../helpers/worker';

type ListBody = Success<{ files: FileRecord[]; pagination: Pagination }>;

async function list(version: ApiVersion, auth: Record<string, string>, query = '') {
  const response = await call(api(version, `/files${query}`), { headers: auth });
  expect(response.status).toBe(200);
  return (await readJson<ListBody>(version, response)).data;
}

/** Uploads n small files one after another; returns their ids in upload order. */
async function uploadMany(version: ApiVersion, auth: Record<string, string>, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push((await uploadOk(version, auth, { filename: `file-${i}.txt`, content: `content ${i}` })).id);
  return ids;
}

/** Gives every file of a key the same upload time, so only the id can order them. */
async function setUploadedAt(keyId: string, at: string) {
  await env.DB.prepare('UPDATE files SET uploaded_at = ?1 WHERE account_id = ?2').bind(at, keyId).run();
}

describe.each(VERSIONS)('GET /api/%s/files', (version) => {
  it('lists a new key as empty, with zero totals', async () => {
    const { auth } = await createKey();
    const data = await list(version, auth);
    expect(Object.keys(data).sort()).toEqual(['files', 'pagination']);
    expect(data.files).toEqual([]);
    expect(data.pagination).toEqual({ page: 1, limit: 10, total: 0, totalPages: 0, hasMore: false });
  });

  it(`answers with the success envelope and items of exactly the ${version} list fields`, async () => {
    const { auth } = await createKey();
    const uploaded = await uploadOk(version, auth, { filename: 'Quarterly Report.txt', content: 'numbers' });
    const response = await call(api(version, '/files'), { headers: auth });
    expect(response.status).toBe(200);
    const body = await readJson<ListBody>(version, response);
    expect(Object.keys(body).sort()).toEqual(['data', 'success']);
    expect(body.success).toBe(true);
    const [item] = body.data.files;
    expect(Object.keys(item ?? {}).sort()).toEqual(recordFieldsFor(version, LIST_ITEM_FIELDS));
    expect(uploaded.downloadUrl).toBe(`${ORIGIN}/api/${version}/files/${uploaded.id}/download`);
    expect(item).toEqual({
      ...(version === 'v2'
        ? {
            isPublic: true,
            requestId: null,
            sha256: await sha256Hex(new TextEncoder().encode('numbers')),
            moderation: null,
            scan: null,
            encryption: null,
            meta: null,
            e2eHeader: null,
          }
        : {}),
      id: uploaded.id,
      filename: uploaded.filename,
      originalName: 'Quarterly Report.txt',
      size: 7,
      mimeType: 'text/plain',
      downloadUrl: uploaded.downloadUrl,
      shareUrl: uploaded.shareUrl,
      downloadCount: 0,
      uploadedAt: uploaded.uploadedAt,
      updatedAt: expect.stringMatching(ISO_MS),
      expiresAt: null,
    });
    expect(item?.filename).not.toBe(item?.originalName);
  });

  it('shows the same record in the list as GET /files/:id does', async () => {
    const { auth } = await createKey();
    const uploaded = await uploadOk(version, auth, {}, { fields: { expiresIn: '3600' } });
    const [item] = (await list(version, auth)).files;
    const record = await getRecord(auth, uploaded.id, version);
    for (const field of Object.keys(record) as (keyof FileRecord)[]) expect(item?.[field]).toEqual(record[field]);
    expect(item?.expiresAt).toMatch(ISO_MS);
  });

  it('defaults to page 1 with 10 items and reports pagination', async () => {
    const { auth } = await createKey();
    const ids = await uploadMany(version, auth, 12);
    const first = await list(version, auth);
    expect(first.files).toHaveLength(10);
    expect(first.pagination).toEqual({ page: 1, limit: 10, total: 12, totalPages: 2, hasMore: true });
    const second = await list(version, auth, '?page=2');
    expect(second.files).toHaveLength(2);
    expect(second.pagination).toEqual({ page: 2, limit: 10, total: 12, totalPages: 2, hasMore: false });
    const seen = [...first.files, ...second.files].map((file) => file.id);
    expect(new Set(seen).size).toBe(12);
    expect([...seen].sort()).toEqual([...ids].sort());
  });

  it('lists newest first', async () => {
    const { auth } = await createKey();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push((await uploadOk(version, auth, { content: `n${i}` })).id);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const { files } = await list(version, auth);
    expect(files.map((file) => file.id)).toEqual([...ids].reverse());
    const times = files.map((file) => Date.parse(file.uploadedAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('orders files uploaded in the same millisecond by id, descending', async () => {
    const { id: keyId, auth } = await createKey();
    const ids = await uploadMany(version, auth, 5);
    await setUploadedAt(keyId, '2026-01-01T00:00:00.000Z');
    const { files } = await list(version, auth);
    const descending = [...ids].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    expect(files.map((file) => file.id)).toEqual(descending);
  });

  it('walks every file exactly once with limit=1', async () => {
    const { auth } = await createKey();
    const ids = await uploadMany(version, auth, 3);
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const data = await list(version, auth, `?page=${page}&limit=1`);
      expect(data.files).toHaveLength(1);
      expect(data.pagination).toEqual({ page, limit: 1, total: 3, totalPages: 3, hasMore: page < 3 });
      seen.push(data.files[0]?.id ?? '');
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it('accepts limit=100', async () => {
    const { auth } = await createKey();
    await uploadMany(version, auth, 2);
    const data = await list(version, auth, '?limit=100');
    expect(data.files).toHaveLength(2);
    expect(data.pagination).toEqual({ page: 1, limit: 100, total: 2, totalPages: 1, hasMore: false });
  });

  it('answers a page past the end with no files and the right total', async () => {
    const { auth } = await createKey();
    await uploadMany(version, auth, 3);
    const data = await list(version, auth, '?page=5&limit=2');
    expect(data.files).toEqual([]);
    expect(data.pagination).toEqual({ page: 5, limit: 2, total: 3, totalPages: 2, hasMore: false });
  });

  it('shows download counts in the list', async () => {
    const { auth } = await createKey();
    const file = await uploadOk(version, auth, {});
    for (let i = 0; i < 2; i++)
      await (await call(api(version, `/files/${file.id}/download`), { headers: auth })).arrayBuffer();
    const [item] = (await list(version, auth)).files;
    expect(item?.downloadCount).toBe(2);
  });

  it('leaves expired files out of the list and out of the total', async () => {
    const { auth } = await createKey();
    const kept = await uploadOk(version, auth, { content: 'stays' });
    const expiring = await uploadOk(version, auth, { content: 'goes' }, { fields: { expiresIn: '60' } });
    await env.DB.prepare('UPDATE files SET expires_at = ?1 WHERE id = ?2')
      .bind(new Date(Date.now() - 1000).toISOString(), expiring.id)
      .run();
    const data = await list(version, auth);
    expect(data.files.map((file) => file.id)).toEqual([kept.id]);
    expect(data.pagination.total).toBe(1);
  });

  it.each([
    ['page', '0'],
    ['page', '-1'],
    ['page', '1.5'],
    ['page', 'abc'],
    ['page', ''],
    ['page', '1e2'],
    ['limit', '0'],
    ['limit', '-1'],
    ['limit', '1.5'],
    ['limit', 'abc'],
    ['limit', '101'],
    ['limit', '1000'],
  ])('answers 400 VALIDATION_ERROR naming %s for %s=%j, never clamping', async (field, value) => {
    const { auth } = await createKey();
    const response = await call(api(version, `/files?${field}=${encodeURIComponent(value)}`), { headers: auth });
    const body = await expectError(response, 400, 'VALIDATION_ERROR', version);
    expect(body.details?.map((detail) => detail.field)).toContain(field);
    expect(body.details?.every((detail) => typeof detail.message === 'string' && detail.message.length > 0)).toBe(true);
  });

  it('answers 400 VALIDATION_ERROR for a repeated page parameter', async () => {
    const { auth } = await createKey();
    const body = await expectError(
      await call(api(version, '/files?page=1&page=2'), { headers: auth }),
      400,
      'VALIDATION_ERROR',
      version,
    );
    expect(body.details?.map((detail) => detail.field)).toContain('page');
  });

  it('answers 400 for a page beyond a safe integer and an empty page, not 500, for a huge safe one', async () => {
    const { auth } = await createKey();
    await uploadOk(version, auth, {});
    const tooBig = await call(api(version, '/files?page=99999999999999999999999'), { headers: auth });
    const body = await expectError(tooBig, 400, 'VALIDATION_ERROR', version);
    expect(body.details?.map((detail) => detail.field)).toContain('page');
    const data = await list(version, auth, `?page=${Number.MAX_SAFE_INTEGER}&limit=100`);
    expect(data.files).toEqual([]);
    expect(data.pagination).toMatchObject({ page: Number.MAX_SAFE_INTEGER, total: 1, hasMore: false });
  });
});
