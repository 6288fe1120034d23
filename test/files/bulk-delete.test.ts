import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { blobKey } from '../../src/storage/blobs';
import {
  bulkDelete,
  bulkUploadOk,
  bytesOf,
  downloadBytes,
  expectPerfValue,
  listedIds,
  unknownId,
} from '../helpers/files';
import type { BulkDeleteBody } from '../helpers/records';
import { expectError, json } from '../helpers/responses';
import { expectStored } from '../helpers/storage';
import { textFile, uploadOk } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

async function keyWithFiles(count: number) {
  const key = await createKey();
  const files = Array.from({ length: count }, (_, index) => textFile(`f${index}.txt`, `file ${index} of ${key.id}`));
  const ids = await bulkUploadOk(key.auth, files);
  return { ...key, ids, files };
}

async function deleteOk(auth: Record<string, string>, ids: unknown[]) {
  const response = await bulkDelete(auth, { ids });
  const body = await json<BulkDeleteBody>(response);
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(Object.keys(body).sort()).toEqual(['_perf', 'data', 'success']);
  expect(body.success).toBe(true);
  expect(Object.keys(body.data).sort()).toEqual(['deleted', 'failed', 'results', 'total']);
  expectPerfValue(body);
  const { total, deleted, failed, results } = body.data;
  expect(results).toHaveLength(total);
  expect(deleted + failed).toBe(total);
  return body.data;
}

const notFound = (id: string) => ({ id, success: false, error: expect.any(String), code: 'FILE_NOT_FOUND' });

async function expectGone(keyId: string, auth: Record<string, string>, id: string) {
  expect(await env.FILES.head(blobKey(keyId, id))).toBeNull();
  await expectError(await call(`/api/v2/files/${id}`, { headers: auth }), 404, 'FILE_NOT_FOUND');
  await expectError(await call(`/api/v2/files/${id}/download`, { headers: auth }), 404, 'FILE_NOT_FOUND');
}

describe('DELETE /api/v2/files/bulk', () => {
  it('deletes own ids, refuses foreign, unknown and malformed ones, counts duplicates once, in first-seen order', async () => {
    const mine = await keyWithFiles(3);
    const theirs = await keyWithFiles(1);
    const [a1 = '', a2 = '', a3 = ''] = mine.ids;
    const [b1 = ''] = theirs.ids;
    const unknown = unknownId();
    const ids = [a2, b1, a2, unknown, 'not-an-id!', a1, b1, '', a1];

    const data = await deleteOk(mine.auth, ids);
    expect(data).toMatchObject({ total: 6, deleted: 2, failed: 4 });
    expect(data.results).toEqual([
      { id: a2, success: true },
      notFound(b1),
      notFound(unknown),
      notFound('not-an-id!'),
      { id: a1, success: true },
      notFound(''),
    ]);
    for (const item of data.results) {
      expect(Object.keys(item).sort()).toEqual(item.success ? ['id', 'success'] : ['code', 'error', 'id', 'success']);
    }

    await expectGone(mine.id, mine.auth, a1);
    await expectGone(mine.id, mine.auth, a2);
    await expectStored(mine.id, [a3]);
    expect(await listedIds(mine.auth)).toEqual([a3]);

    await expectStored(theirs.id, [b1]);
    const { status, bytes } = await downloadBytes(theirs.auth, b1);
    expect(status).toBe(200);
    expect(bytes).toEqual(bytesOf(theirs.files[0]?.content ?? ''));
  });

  it('answers FILE_NOT_FOUND for an id already deleted', async () => {
    const { auth, ids } = await keyWithFiles(1);
    const [id = ''] = ids;
    expect((await deleteOk(auth, [id])).results).toEqual([{ id, success: true }]);
    expect(await deleteOk(auth, [id])).toMatchObject({ total: 1, deleted: 0, failed: 1, results: [notFound(id)] });
  });

  it('kills the share link of a deleted file', async () => {
    const key = await createKey();
    const record = await uploadOk('v2', key.auth, textFile('s.txt', 'shared'));
    const share = `${new URL(record.shareUrl).pathname}/download`;
    expect((await call(share)).status).toBe(200);
    await deleteOk(key.auth, [record.id]);
    expect((await call(share)).status).toBe(404);
  });

  it('accepts 50 ids', async () => {
    const { id: keyId, auth, ids } = await keyWithFiles(2);
    const unknown = Array.from({ length: 48 }, unknownId);
    const data = await deleteOk(auth, [...unknown.slice(0, 24), ...ids, ...unknown.slice(24)]);
    expect(data).toMatchObject({ total: 50, deleted: 2, failed: 48 });
    expect(data.results.map((item) => item.id)).toEqual([...unknown.slice(0, 24), ...ids, ...unknown.slice(24)]);
    await expectStored(keyId, []);
  });

  it('answers 400 TOO_MANY_FILES for 51 unique ids and deletes nothing', async () => {
    const { id: keyId, auth, ids } = await keyWithFiles(1);
    const response = await bulkDelete(auth, { ids: [...ids, ...Array.from({ length: 50 }, unknownId)] });
    expectPerfValue(await expectError(response, 400, 'TOO_MANY_FILES'));
    await expectStored(keyId, ids);
  });

  it('accepts 51 ids whose duplicates leave 50', async () => {
    const { id: keyId, auth, ids } = await keyWithFiles(1);
    const [id = ''] = ids;
    const data = await deleteOk(auth, [id, ...Array.from({ length: 49 }, unknownId), id]);
    expect(data).toMatchObject({ total: 50, deleted: 1, failed: 49 });
    await expectStored(keyId, []);
  });

  it('accepts many copies of one id as one', async () => {
    const { auth, ids } = await keyWithFiles(1);
    const [id = ''] = ids;
    const data = await deleteOk(
      auth,
      Array.from({ length: 200 }, () => id),
    );
    expect(data).toEqual({ total: 1, deleted: 1, failed: 0, results: [{ id, success: true }] });
  });
});

describe('DELETE /api/v2/files/bulk: invalid requests delete nothing', () => {
  const cases: [string, (id: string) => { body: string; type?: string; field?: string }][] = [
    ['bad JSON', (id) => ({ body: `{"ids": ["${id}"`, field: 'body' })],
    ['a text/plain body', (id) => ({ body: JSON.stringify({ ids: [id] }), type: 'text/plain' })],
    ['a form body', (id) => ({ body: `ids=${id}`, type: 'application/x-www-form-urlencoded' })],
    ['ids as a string', (id) => ({ body: JSON.stringify({ ids: id }), field: 'ids' })],
    ['ids empty', () => ({ body: JSON.stringify({ ids: [] }), field: 'ids' })],
    ['no ids', () => ({ body: '{}', field: 'ids' })],
    ['ids with a number', (id) => ({ body: JSON.stringify({ ids: [id, 1] }), field: 'ids' })],
    ['ids with null', (id) => ({ body: JSON.stringify({ ids: [id, null] }), field: 'ids' })],
    ['a bare array', (id) => ({ body: JSON.stringify([id]) })],
    ['an empty body', () => ({ body: '' })],
  ];

  it.each(cases)('answers 400 VALIDATION_ERROR for %s', async (_label, make) => {
    const { id: keyId, auth, ids } = await keyWithFiles(1);
    const { body, type, field } = make(ids[0] ?? '');
    const error = await expectError(await bulkDelete(auth, body, type), 400, 'VALIDATION_ERROR');
    expectPerfValue(error);
    if (field) expect(error.details?.map((detail) => detail.field?.split('.')[0])).toContain(field);
    await expectStored(keyId, ids);
  });

  it('answers 400 VALIDATION_ERROR for a body over 64 KiB', async () => {
    const { id: keyId, auth, ids } = await keyWithFiles(1);
    const body = JSON.stringify({ ids: [...ids, 'x'.repeat(70 * 1024)] });
    await expectError(await bulkDelete(auth, body), 400, 'VALIDATION_ERROR');
    await expectStored(keyId, ids);
  });

  it('answers 401 without a key', async () => {
    const { id: keyId, ids } = await keyWithFiles(1);
    expectPerfValue(await expectError(await bulkDelete({}, { ids }), 401, 'UNAUTHORIZED'));
    await expectStored(keyId, ids);
  });
});

describe('/files/bulk is never a file id', () => {
  it('answers GET and HEAD /api/v2/files/bulk with 405 and Allow: DELETE, and its download with 404', async () => {
    const { auth } = await keyWithFiles(1);
    const get = await call('/api/v2/files/bulk', { headers: auth });
    expect(get.headers.get('allow')).toBe('DELETE');
    expectPerfValue(await expectError(get, 405, 'METHOD_NOT_ALLOWED'));
    const head = await call('/api/v2/files/bulk', { method: 'HEAD', headers: auth });
    expect({ status: head.status, allow: head.headers.get('allow') }).toEqual({ status: 405, allow: 'DELETE' });
    await expectError(await call('/api/v2/files/bulk/download', { headers: auth }), 404, 'FILE_NOT_FOUND');
  });

  it('answers POST /api/v2/files/bulk with 405 and Allow: DELETE', async () => {
    const { id: keyId, auth, ids } = await keyWithFiles(1);
    const response = await call('/api/v2/files/bulk', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ids }),
    });
    expect(response.headers.get('allow')).toBe('DELETE');
    expectPerfValue(await expectError(response, 405, 'METHOD_NOT_ALLOWED'));
    await expectStored(keyId, ids);
  });

  it('has no bulk routes on v1: DELETE /api/v1/files/bulk is 404 and deletes nothing', async () => {
    const { id: keyId, auth, ids } = await keyWithFiles(2);
    const response = await call('/api/v1/files/bulk', {
      method: 'DELETE',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ids }),
    });
    const error = await expectError(response, 404, 'FILE_NOT_FOUND');
    expect(error).not.toHaveProperty('_perf');
    await expectStored(keyId, ids);
  });

  it('has no bulk upload on v1', async () => {
    const { auth } = await createKey();
    const form = new FormData();
    form.append('files', new File(['x'], 'x.txt', { type: 'text/plain' }));
    await expectError(
      await call('/api/v1/upload/bulk', { method: 'POST', headers: auth, body: form }),
      404,
      'NOT_FOUND',
    );
  });

  it('deletes only the listed ids, never the caller\u2019s other files', async () => {
    const { id: keyId, auth, ids } = await keyWithFiles(3);
    const [first = '', ...rest] = ids;
    const data = await deleteOk(auth, [first]);
    expect(data).toEqual({ total: 1, deleted: 1, failed: 0, results: [{ id: first, success: true }] });
    await expectStored(keyId, rest);
  });

  it('deletes nothing for the id "bulk"', async () => {
    const { id: keyId, auth, ids } = await keyWithFiles(1);
    const data = await deleteOk(auth, ['bulk']);
    expect(data.results).toEqual([notFound('bulk')]);
    await expectStored(keyId, ids);
  });
});
