// A collection's members through the Worker: listed in collection order, appended (ids already
// there ignored), taken out; refused whole for any unknown id or past MAX_COLLECTION_FILES, even
// under concurrency; and a file deleted or expired leaves every collection at once.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { recordFieldsFor } from '../helpers/records';
import { expectError } from '../helpers/responses';
import { call } from '../helpers/worker';
import {
  account,
  addFiles,
  type CollectionRecord,
  expireFile,
  json,
  makeCollection,
  memberIds,
  readCollection,
  uploadFile,
} from './collection-helpers';

const UNKNOWN = `col_${'A'.repeat(22)}`;
const recordOf = async (response: Response) => ((await response.json()) as { data: CollectionRecord }).data;

describe('GET /api/v2/collections/{id}/files', () => {
  it('lists the members as v2 file records in collection order, paginated', async () => {
    const { auth } = await account();
    const files = [];
    for (const name of ['a', 'b', 'c', 'd', 'e']) files.push(await uploadFile(auth, `${name}.txt`, name));
    const order = [files[3], files[0], files[4], files[1], files[2]].map((file) => file?.id as string);
    const made = await makeCollection(auth, { name: 'ordered', fileIds: order });
    const response = await call(`/api/v2/collections/${made.id}/files?page=2&limit=2`, { headers: auth });
    expect(response.status).toBe(200);
    const page = (
      (await response.json()) as {
        data: { files: Record<string, unknown>[]; pagination: unknown };
      }
    ).data;
    expect(page.files.map((file) => file.id)).toEqual(order.slice(2, 4));
    expect(page.pagination).toEqual({ page: 2, limit: 2, total: 5, totalPages: 3, hasMore: true });
    const first = page.files[0] as Record<string, unknown>;
    expect(Object.keys(first).sort()).toEqual(
      recordFieldsFor('v2', [
        'downloadCount',
        'downloadUrl',
        'expiresAt',
        'filename',
        'id',
        'mimeType',
        'shareUrl',
        'size',
        'updatedAt',
        'uploadedAt',
        'originalName',
      ]),
    );
    expect(first).toMatchObject({ originalName: 'e.txt', isPublic: true, size: 1 });
    expect(first.downloadUrl).toBe(`http://edgeshare.test/api/v2/files/${first.id}/download`);
  });

  it('answers 404 COLLECTION_NOT_FOUND for an unknown collection, and 400 for a bad page', async () => {
    const { auth } = await account();
    await expectError(
      await call(`/api/v2/collections/${UNKNOWN}/files`, { headers: auth }),
      404,
      'COLLECTION_NOT_FOUND',
      'v2',
    );
    const made = await makeCollection(auth);
    await expectError(
      await call(`/api/v2/collections/${made.id}/files?limit=0`, { headers: auth }),
      400,
      'VALIDATION_ERROR',
      'v2',
    );
  });
});

describe('POST /api/v2/collections/{id}/files', () => {
  it('appends in the order given, ignores ids already there, and answers the record', async () => {
    const { auth } = await account();
    const [a, b, c] = [
      await uploadFile(auth, 'a.txt', 'aaa'),
      await uploadFile(auth, 'b.txt', 'bb'),
      await uploadFile(auth, 'c.txt', 'c'),
    ];
    const made = await makeCollection(auth, { name: 'grow', fileIds: [b?.id] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await addFiles(auth, made.id, [c.id, b.id, a.id, c.id]);
    expect(response.status).toBe(200);
    const record = await recordOf(response);
    expect(record).toMatchObject({ id: made.id, fileCount: 3, bytes: 6 });
    expect(Date.parse(record.updatedAt)).toBeGreaterThan(Date.parse(made.updatedAt));
    expect(await memberIds(auth, made.id)).toEqual([b.id, c.id, a.id]);
    // Adding only members already there changes nothing, updatedAt included.
    const again = await recordOf(await addFiles(auth, made.id, [a.id]));
    expect(again).toEqual(record);
  });

  it('lets one file sit in several collections', async () => {
    const { auth } = await account();
    const file = await uploadFile(auth, 'shared.txt', 'shared');
    const one = await makeCollection(auth, { name: 'one', fileIds: [file.id] });
    const two = await makeCollection(auth, { name: 'two' });
    expect((await recordOf(await addFiles(auth, two.id, [file.id]))).fileCount).toBe(1);
    expect(await memberIds(auth, one.id)).toEqual([file.id]);
    expect(await memberIds(auth, two.id)).toEqual([file.id]);
  });

  it('answers 404 FILE_NOT_FOUND naming each id that is not a live file of the account, and adds nothing', async () => {
    const { auth } = await account();
    const other = await account('other');
    const mine = await uploadFile(auth, 'mine.txt', 'mine');
    const kept = await uploadFile(auth, 'kept.txt', 'kept');
    const theirs = await uploadFile(other.auth, 'theirs.txt', 'theirs');
    const made = await makeCollection(auth, { name: 'strict', fileIds: [kept.id] });
    const error = await expectError(
      await addFiles(auth, made.id, [mine.id, theirs.id, 'bad id']),
      404,
      'FILE_NOT_FOUND',
      'v2',
    );
    expect(error.details).toEqual([{ id: theirs.id }, { id: 'bad id' }]);
    expect(await memberIds(auth, made.id)).toEqual([kept.id]);
    expect((await readCollection(auth, made.id)).updatedAt).toBe(made.updatedAt);
  });

  it.each([
    [{ fileIds: [] }],
    [{ fileIds: Array.from({ length: 101 }, (_, i) => `f${i}`) }],
    [{ fileIds: [1, 2] }],
    [{}],
    [{ fileIds: ['x'], extra: true }],
  ])('answers 400 VALIDATION_ERROR for %j', async (body) => {
    const { auth } = await account();
    const made = await makeCollection(auth);
    const error = await expectError(
      await call(`/api/v2/collections/${made.id}/files`, json(body, auth)),
      400,
      'VALIDATION_ERROR',
      'v2',
    );
    expect(error.details?.length).toBeGreaterThan(0);
  });

  it('answers 404 COLLECTION_NOT_FOUND for an unknown or another account’s collection', async () => {
    const { auth } = await account();
    const file = await uploadFile(auth, 'a.txt', 'a');
    await expectError(await addFiles(auth, UNKNOWN, [file.id]), 404, 'COLLECTION_NOT_FOUND', 'v2');
    const theirs = await makeCollection((await account('other')).auth, { name: 'theirs' });
    await expectError(await addFiles(auth, theirs.id, [file.id]), 404, 'COLLECTION_NOT_FOUND', 'v2');
    expect(
      await env.DB.prepare('SELECT COUNT(*) AS n FROM collection_files WHERE collection_id = ?1')
        .bind(theirs.id)
        .first('n'),
    ).toBe(0);
  });

  it('answers 400 TOO_MANY_FILES past MAX_COLLECTION_FILES and adds nothing; up to it is fine', async () => {
    const { auth } = await account();
    const files = [];
    for (const n of [1, 2, 3, 4]) files.push(await uploadFile(auth, `${n}.txt`, String(n)));
    const ids = files.map((file) => file.id);
    const limit = { MAX_COLLECTION_FILES: '3' };
    const made = await makeCollection(auth, { name: 'capped', fileIds: ids.slice(0, 2) }, limit);
    const over = await call(`/api/v2/collections/${made.id}/files`, json({ fileIds: ids.slice(2) }, auth), limit);
    const error = await expectError(over, 400, 'TOO_MANY_FILES', 'v2');
    expect(error.error).toContain('3');
    expect(await memberIds(auth, made.id)).toEqual(ids.slice(0, 2));
    // Ids already there do not count again.
    const fits = await call(`/api/v2/collections/${made.id}/files`, json({ fileIds: [ids[0], ids[2]] }, auth), limit);
    expect(fits.status).toBe(200);
    expect((await recordOf(fits)).fileCount).toBe(3);
  });

  it('holds MAX_COLLECTION_FILES exactly under concurrent adds', async () => {
    const { auth } = await account('concurrent', { rateLimitRequests: 1000 });
    const files = [];
    for (let n = 0; n < 8; n++) files.push(await uploadFile(auth, `${n}.txt`, String(n)));
    const made = await makeCollection(auth, { name: 'race' });
    const limit = { MAX_COLLECTION_FILES: '3' };
    const statuses = await Promise.all(
      files.map((file) =>
        call(`/api/v2/collections/${made.id}/files`, json({ fileIds: [file.id] }, auth), limit).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 400)).toHaveLength(5);
    expect(await memberIds(auth, made.id)).toHaveLength(3);
  });

  it('counts only live members against the cap: a deleted or expired file frees its place', async () => {
    const { auth } = await account();
    const [a, b, c] = [
      await uploadFile(auth, 'a', 'a'),
      await uploadFile(auth, 'b', 'b'),
      await uploadFile(auth, 'c', 'c'),
    ];
    const limit = { MAX_COLLECTION_FILES: '1' };
    const made = await makeCollection(auth, { name: 'one place', fileIds: [a.id] }, limit);
    await expireFile(a.id);
    expect((await call(`/api/v2/collections/${made.id}/files`, json({ fileIds: [b.id] }, auth), limit)).status).toBe(
      200,
    );
    await call(`/api/v2/files/${b.id}`, { method: 'DELETE', headers: auth });
    expect((await call(`/api/v2/collections/${made.id}/files`, json({ fileIds: [c.id] }, auth), limit)).status).toBe(
      200,
    );
    expect(await memberIds(auth, made.id)).toEqual([c.id]);
  });
});

describe('DELETE /api/v2/collections/{id}/files/{fileId}', () => {
  it('takes a file out (the file stays) and answers the record', async () => {
    const { auth } = await account();
    const [a, b] = [await uploadFile(auth, 'a.txt', 'aaaa'), await uploadFile(auth, 'b.txt', 'bb')];
    const made = await makeCollection(auth, { name: 'shrink', fileIds: [a.id, b.id] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await call(`/api/v2/collections/${made.id}/files/${a.id}`, { method: 'DELETE', headers: auth });
    expect(response.status).toBe(200);
    const record = await recordOf(response);
    expect(record).toMatchObject({ fileCount: 1, bytes: 2 });
    expect(Date.parse(record.updatedAt)).toBeGreaterThan(Date.parse(made.updatedAt));
    expect(await memberIds(auth, made.id)).toEqual([b.id]);
    expect((await call(`/api/v2/files/${a.id}`, { headers: auth })).status).toBe(200);
    // Taking it out again: it is no member.
    await expectError(
      await call(`/api/v2/collections/${made.id}/files/${a.id}`, { method: 'DELETE', headers: auth }),
      404,
      'FILE_NOT_FOUND',
      'v2',
    );
  });

  it('answers 404 FILE_NOT_FOUND for a file that is not a member, and COLLECTION_NOT_FOUND for an unknown collection', async () => {
    const { auth } = await account();
    const file = await uploadFile(auth, 'a.txt', 'a');
    const made = await makeCollection(auth);
    for (const fileId of [file.id, 'nope', 'A'.repeat(22)]) {
      await expectError(
        await call(`/api/v2/collections/${made.id}/files/${fileId}`, { method: 'DELETE', headers: auth }),
        404,
        'FILE_NOT_FOUND',
        'v2',
      );
    }
    for (const id of [UNKNOWN, 'nope']) {
      await expectError(
        await call(`/api/v2/collections/${id}/files/${file.id}`, { method: 'DELETE', headers: auth }),
        404,
        'COLLECTION_NOT_FOUND',
        'v2',
      );
    }
  });
});

describe('a file that goes', () => {
  it('leaves every collection at once when deleted: reads never show it, counts drop, its rows go', async () => {
    const { auth } = await account();
    const [a, b] = [await uploadFile(auth, 'a.txt', 'aaaa'), await uploadFile(auth, 'b.txt', 'bb')];
    const one = await makeCollection(auth, { name: 'one', fileIds: [a.id, b.id] });
    const two = await makeCollection(auth, { name: 'two', fileIds: [b.id, a.id] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await call(`/api/v2/files/${a.id}`, { method: 'DELETE', headers: auth })).status).toBe(200);
    for (const made of [one, two]) {
      const record = await readCollection(auth, made.id);
      expect(record).toMatchObject({ fileCount: 1, bytes: 2 });
      // Its bytes changed: updatedAt (the archive's Last-Modified) moved.
      expect(Date.parse(record.updatedAt)).toBeGreaterThan(Date.parse(made.updatedAt));
      expect(await memberIds(auth, made.id)).toEqual([b.id]);
    }
    expect(
      await env.DB.prepare('SELECT COUNT(*) AS n FROM collection_files WHERE file_id = ?1').bind(a.id).first('n'),
    ).toBe(0);
  });

  it('leaves at once when bulk deleted or when it expires, before any sweep', async () => {
    const { auth } = await account();
    const [a, b, c] = [
      await uploadFile(auth, 'a.txt', 'a'),
      await uploadFile(auth, 'b.txt', 'bb'),
      await uploadFile(auth, 'c.txt', 'ccc'),
    ];
    const made = await makeCollection(auth, { name: 'shrinking', fileIds: [a.id, b.id, c.id] });
    await expireFile(a.id);
    expect(await readCollection(auth, made.id)).toMatchObject({ fileCount: 2, bytes: 5 });
    expect(await memberIds(auth, made.id)).toEqual([b.id, c.id]);
    const bulk = await call('/api/v2/files/bulk', json({ ids: [b.id] }, auth, 'DELETE'));
    expect(bulk.status).toBe(200);
    expect(await readCollection(auth, made.id)).toMatchObject({ fileCount: 1, bytes: 3 });
    const list = await call('/api/v2/collections', { headers: auth });
    const listed = ((await list.json()) as { data: { collections: CollectionRecord[] } }).data.collections;
    expect(listed.find((item) => item.id === made.id)).toMatchObject({ fileCount: 1, bytes: 3 });
  });
});
