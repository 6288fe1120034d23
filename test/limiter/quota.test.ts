// Storage quota: exact under concurrency, held for streamed bodies, given back on delete, and
// reconcilable with D1 (docs/limits.md, "Storage quota").
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { MIB } from '../../src/config';
import { expectError } from '../helpers/responses';
import {
  blobKeys,
  bulkUploadSized,
  deleteBulk,
  deleteOne,
  expectAccountSettled,
  expectStored,
  multipartOf,
  newKey,
  postMultipart,
  rowIds,
  rowsSum,
  seedFiles,
  succeeded,
  textBytes,
  type Uploaded,
  uploadSized,
  uploadSizedOk,
  usage,
} from '../helpers/storage';
import { createKey } from '../helpers/worker';

const QUOTA = 10_000;

describe('storage quota', () => {
  it('stores an upload that fits and counts its bytes as used', async () => {
    const key = await newKey('fits', QUOTA);
    const file = await uploadSizedOk(key.auth, 4_000);
    expect(file.size).toBe(4_000);
    await expectStored(key.id, [file.id]);
    await expectAccountSettled(key.id, 4_000);
  });

  it('refuses an upload that would pass the quota with 413 STORAGE_EXCEEDED and stores nothing of it', async () => {
    const key = await newKey('exceeds', QUOTA);
    const first = await uploadSizedOk(key.auth, 6_000);
    await expectError(await uploadSized(key.auth, 4_001), 413, 'STORAGE_EXCEEDED');
    await expectStored(key.id, [first.id]);
    await expectAccountSettled(key.id, 6_000);
    // Exactly up to the quota still fits.
    const last = await uploadSizedOk(key.auth, 4_000);
    await expectStored(key.id, [first.id, last.id]);
    await expectAccountSettled(key.id, QUOTA);
  });

  it('refuses a single file larger than the whole quota in both versions', async () => {
    const key = await newKey('too big for quota', QUOTA);
    for (const version of ['v1', 'v2'] as const) {
      await expectError(await uploadSized(key.auth, QUOTA + 1, { version }), 413, 'STORAGE_EXCEEDED');
    }
    await expectStored(key.id, []);
    await expectAccountSettled(key.id, 0);
  });

  it('lets exactly as many parallel uploads through as the quota holds, never more', async () => {
    const key = await newKey('race', QUOTA);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) => uploadSized(key.auth, 3_000, { version: index % 2 ? 'v2' : 'v1' })),
    );
    const stored: string[] = [];
    const refused: string[] = [];
    for (const response of responses) {
      const body = await response.json<{ data?: Uploaded; code?: string }>();
      if (response.status === 201 && body.data) stored.push(body.data.id);
      else refused.push(`${response.status} ${body.code}`);
    }
    expect(stored).toHaveLength(3);
    expect(refused).toEqual(Array(7).fill('413 STORAGE_EXCEEDED'));
    // No blob and no row for any refused upload.
    await expectStored(key.id, stored);
    await expectAccountSettled(key.id, 9_000);
  });

  it('holds parallel streamed uploads (no Content-Length) to the quota just as exactly', async () => {
    const key = await newKey('streamed race', QUOTA);
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        uploadSized(key.auth, 3_000, { streamed: true, version: index % 2 ? 'v2' : 'v1' }),
      ),
    );
    const stored: string[] = [];
    for (const response of responses) {
      if (response.status === 201) stored.push((await response.json<{ data: Uploaded }>()).data.id);
      else await expectError(response, 413, 'STORAGE_EXCEEDED');
    }
    // Each upload holds only about what it has read, so one cannot crowd out the others.
    expect(stored).toHaveLength(3);
    await expectStored(key.id, stored);
    await expectAccountSettled(key.id, 9_000);
  });

  it('refuses a streamed upload with no Content-Length once its bytes pass the quota', async () => {
    const key = await newKey('chunked', QUOTA);
    const kept = await uploadSizedOk(key.auth, 2_000);
    // Bigger than one read of the body, so the refusal comes while the file streams.
    const response = await uploadSized(key.auth, 8_001 + 64 * 1024, { streamed: true });
    await expectError(response, 413, 'STORAGE_EXCEEDED');
    await expectError(await uploadSized(key.auth, 8_001, { streamed: true }), 413, 'STORAGE_EXCEEDED');
    await expectStored(key.id, [kept.id]);
    await expectAccountSettled(key.id, 2_000);
    // What fits still goes through the same way, and is counted.
    const streamed = await uploadSized(key.auth, 8_000, { streamed: true, version: 'v2' });
    expect(streamed.status).toBe(201);
    expect(await rowIds(key.id)).toHaveLength(2);
    await expectAccountSettled(key.id, QUOTA);
  });

  it('gives a deleted file’s bytes back, so a new upload fits', async () => {
    const key = await newKey('delete frees', QUOTA);
    const first = await uploadSizedOk(key.auth, 6_000);
    const second = await uploadSizedOk(key.auth, 3_000, { version: 'v2' });
    await expectError(await uploadSized(key.auth, 5_000), 413, 'STORAGE_EXCEEDED');

    expect((await deleteOne(key.auth, first.id)).status).toBe(200);
    expect((await usage(key.id)).usedBytes).toBe(3_000);
    const third = await uploadSizedOk(key.auth, 5_000);
    await expectStored(key.id, [second.id, third.id]);
    await expectAccountSettled(key.id, 8_000);

    // A second delete of the same file gives nothing back twice.
    expect((await deleteOne(key.auth, first.id, 'v2')).status).toBe(404);
    await expectAccountSettled(key.id, 8_000);
  });

  it('gives back the sum of the files a bulk delete removed, and nothing for the ids it did not', async () => {
    const key = await newKey('bulk delete frees', QUOTA);
    const other = await newKey('someone else', QUOTA);
    const sizes = [1_000, 2_000, 3_000];
    const files = await Promise.all(sizes.map((size) => uploadSizedOk(key.auth, size)));
    const kept = await uploadSizedOk(key.auth, 500);
    const foreign = await uploadSizedOk(other.auth, 700);
    await expectAccountSettled(key.id, 6_500);

    const ids = [...files.map((file) => file.id), files[0]?.id ?? '', foreign.id, 'not-an-id'];
    const response = await deleteBulk(key.auth, ids);
    const body = await response.json<{ data: { deleted: number; failed: number } }>();
    expect(response.status).toBe(200);
    expect(body.data).toMatchObject({ deleted: 3, failed: 2 });
    await expectStored(key.id, [kept.id]);
    await expectAccountSettled(key.id, 500);
    // The other key's file and account are untouched.
    await expectStored(other.id, [foreign.id]);
    await expectAccountSettled(other.id, 700);
    // The freed room is usable.
    await uploadSizedOk(key.auth, 9_500, { version: 'v2' });
    await expectAccountSettled(key.id, QUOTA);
  });

  it('stores the files of a v2 bulk upload that fit and refuses the rest per file', async () => {
    const key = await newKey('bulk partial', QUOTA);
    await uploadSizedOk(key.auth, 1_000);
    // 9,000 bytes of room: a file that does not fit fails alone, and a later smaller one still lands.
    const data = await bulkUploadSized(key.auth, [3_000, 4_000, 3_000, 2_000, 1_000]);
    expect(data.results.map((item) => (item.success ? 'ok' : item.code))).toEqual([
      'ok',
      'ok',
      'STORAGE_EXCEEDED',
      'ok',
      'STORAGE_EXCEEDED',
    ]);
    expect(data).toMatchObject({ total: 5, successful: 3, failed: 2 });
    expect(data.results[2]).toMatchObject({ success: false, filename: 'f2.txt' });
    const stored = succeeded(data.results);
    expect(stored.map((file) => file.size)).toEqual([3_000, 4_000, 2_000]);
    expect(await rowIds(key.id)).toHaveLength(4);
    expect(await blobKeys(key.id)).toHaveLength(4);
    await expectAccountSettled(key.id, QUOTA);
  });

  it('answers 201 with every file refused when the key is already full', async () => {
    const key = await newKey('bulk full', 5_000);
    const first = await uploadSizedOk(key.auth, 5_000);
    const data = await bulkUploadSized(key.auth, [1, 10]);
    expect(data.results.map((item) => (item.success ? 'ok' : item.code))).toEqual([
      'STORAGE_EXCEEDED',
      'STORAGE_EXCEEDED',
    ]);
    await expectStored(key.id, [first.id]);
    await expectAccountSettled(key.id, 5_000);
  });

  it('holds keys without their own quota to STORAGE_QUOTA_BYTES, and a key’s own quota over it', async () => {
    const overrides = { STORAGE_QUOTA_BYTES: '5000' };
    const plain = await newKey('configured quota');
    const own = await newKey('own quota', 20_000);

    await expectError(await uploadSized(plain.auth, 6_000, { overrides }), 413, 'STORAGE_EXCEEDED');
    await uploadSizedOk(plain.auth, 5_000, { overrides });
    await expectError(await uploadSized(plain.auth, 1, { overrides }), 413, 'STORAGE_EXCEEDED');
    await expectAccountSettled(plain.id, 5_000);
    // Without the override the default (1 GiB) applies to the same key.
    await uploadSizedOk(plain.auth, 6_000);
    await expectAccountSettled(plain.id, 11_000);

    await uploadSizedOk(own.auth, 6_000, { overrides });
    await uploadSizedOk(own.auth, 14_000, { overrides });
    await expectError(await uploadSized(own.auth, 1, { overrides }), 413, 'STORAGE_EXCEEDED');
    await expectAccountSettled(own.id, 20_000);
  });

  it('starts the account of a key with older files from the sum of its rows', async () => {
    const key = await newKey('pre-existing files', QUOTA);
    const seeded = await seedFiles(key.id, [{ size: 5_000 }, { size: 3_000 }]);
    await expectError(await uploadSized(key.auth, 2_001), 413, 'STORAGE_EXCEEDED');
    const fits = await uploadSizedOk(key.auth, 2_000);
    await expectStored(key.id, [...seeded.map((row) => row.id), fits.id]);
    await expectAccountSettled(key.id, QUOTA);
  });

  // A key's first `free` finds its rows already deleted: the sum is the truth, nothing to subtract.
  it('keeps the account of a key with older files right when its first act is a delete', async () => {
    const key = await newKey('pre-existing then delete', QUOTA);
    const [first] = await seedFiles(key.id, [{ size: 4_000 }, { size: 3_000 }]);
    expect((await deleteOne(key.auth, first?.id ?? '')).status).toBe(200);
    await expectAccountSettled(key.id, 3_000);
  });
});

describe('MAX_FILE_SIZE while streaming', () => {
  it('refuses a streamed file over the limit with 413 FILE_TOO_LARGE and leaves nothing, not even a reservation', async () => {
    const key = await newKey('streamed too large');
    const overrides = { MAX_FILE_SIZE: '100000' };
    const response = await uploadSized(key.auth, 100_001, { streamed: true, overrides });
    await expectError(response, 413, 'FILE_TOO_LARGE');
    await expectStored(key.id, []);
    await expectAccountSettled(key.id, 0);
    // Exactly the limit is fine.
    await uploadSizedOk(key.auth, 100_000, { overrides });
    await expectAccountSettled(key.id, 100_000);
  });

  it('aborts a multipart R2 upload (over 8 MiB) that passes the limit, leaving no object', async () => {
    const key = await newKey('multipart too large');
    const body = multipartOf([{ filename: 'big.txt', content: textBytes(9 * MIB + 1) }]);
    const response = await postMultipart(key.auth, '/api/v1/upload', body, {
      streamed: true,
      overrides: { MAX_FILE_SIZE: String(9 * MIB) },
    });
    await expectError(response, 413, 'FILE_TOO_LARGE');
    expect((await env.FILES.list({ prefix: `files/${key.id}/` })).objects).toEqual([]);
    expect(await rowIds(key.id)).toEqual([]);
    expect(await rowsSum(key.id)).toBe(0);
    await expectAccountSettled(key.id, 0);
  });
});

describe('file-count limit (MAX_FILES_PER_KEY)', () => {
  const keyWith = (name: string, storageQuotaBytes: number | null, maxFiles: number | null) =>
    createKey(name, { storageQuotaBytes, maxFiles, rateLimitRequests: 100_000 });

  it('stops empty files from piling up on a key whose quota is 0, with 413 stating the limit', async () => {
    const key = await keyWith('quota 0', 0, 2);
    await uploadSizedOk(key.auth, 0);
    await uploadSizedOk(key.auth, 0, { version: 'v2' });
    const response = await uploadSized(key.auth, 0);
    const body = await response.json<{ code: string; error: string }>();
    expect({ status: response.status, code: body.code }).toEqual({ status: 413, code: 'STORAGE_EXCEEDED' });
    // The limit is the account's, shared by its keys: the message says so, not "this API key".
    expect(body.error).toContain('this account may keep at most 2 files');
    expect(await rowIds(key.id)).toHaveLength(2);
    await expectAccountSettled(key.id, 0);
    // A byte more than the quota is refused, stating the quota.
    const over = await (await uploadSized(key.auth, 1)).json<{ error: string }>();
    expect(over.error).toContain('this account may store at most 0 bytes');
    expect(over.error).not.toContain('API key');
  });

  it('counts a bulk upload file by file, and frees a slot when a file is deleted', async () => {
    const key = await keyWith('three files', null, 3);
    const first = await uploadSizedOk(key.auth, 10);
    const data = await bulkUploadSized(key.auth, [20, 30, 40]);
    expect(data.results.map((item) => (item.success ? 'ok' : item.code))).toEqual(['ok', 'ok', 'STORAGE_EXCEEDED']);
    await expectError(await uploadSized(key.auth, 1), 413, 'STORAGE_EXCEEDED');
    expect((await deleteOne(key.auth, first.id)).status).toBe(200);
    await uploadSizedOk(key.auth, 5);
    expect(await rowIds(key.id)).toHaveLength(3);
    expect(await usage(key.id)).toMatchObject({ files: 3, heldFiles: 0 });
  });

  it('applies MAX_FILES_PER_KEY to keys without their own limit', async () => {
    const key = await keyWith('configured file limit', null, null);
    const overrides = { MAX_FILES_PER_KEY: '1' };
    await uploadSizedOk(key.auth, 10, { overrides });
    await expectError(await uploadSized(key.auth, 10, { overrides }), 413, 'STORAGE_EXCEEDED');
    await uploadSizedOk(key.auth, 10);
  });
});

describe('holding storage at admission', () => {
  it('holds nothing for a POST to a path that is not an upload route, even one ending in /upload/bulk', async () => {
    const key = await newKey('not a route', 10_000);
    const body = multipartOf([{ filename: 'a.txt', content: textBytes(9_000) }], {}, 'files');
    for (const [path, status] of [
      ['/api/v1/upload/bulk', 404],
      ['/api/v2/upload/bulk/upload', 404],
      ['/api/v2/files/upload', 405],
    ] as const) {
      const response = await postMultipart(key.auth, path, body);
      expect(response.status, path).toBe(status);
    }
    expect(await usage(key.id)).toMatchObject({ heldBytes: 0, heldFiles: 0 });
    // So the room is all there for a real upload.
    await uploadSizedOk(key.auth, 9_900);
  });

  it('accepts as many parallel streamed uploads as fit: 5 of 16 when the quota holds exactly 5', async () => {
    const size = 100_000;
    const key = await newKey('sixteen streams', 5 * size);
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        uploadSized(key.auth, size, { streamed: true, version: index % 2 ? 'v2' : 'v1' }),
      ),
    );
    const stored: string[] = [];
    for (const response of responses) {
      if (response.status === 201) stored.push((await response.json<{ data: Uploaded }>()).data.id);
      else await expectError(response, 413, 'STORAGE_EXCEEDED');
    }
    expect(stored).toHaveLength(5);
    await expectStored(key.id, stored);
    await expectAccountSettled(key.id, 5 * size);
  });

  it('accepts as many parallel uploads with a Content-Length as fit exactly, despite the form framing', async () => {
    const size = 100_000;
    const key = await newKey('sixteen buffered', 5 * size);
    const responses = await Promise.all(Array.from({ length: 16 }, () => uploadSized(key.auth, size)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 413)).toHaveLength(11);
    await expectAccountSettled(key.id, 5 * size);
  });
});
