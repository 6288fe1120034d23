// Faults between R2 and D1: each test wraps a binding (a bucket whose put or delete fails, a
// database whose insert fails) and checks that nothing is half-written, that the quota stays
// exact, and that the sweep repairs what a request could not (docs/limits.md, "R2 and D1").
import { env } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { randomBase64Url } from '../../src/lib/crypto';
import { blobKey } from '../../src/storage/blobs';
import { tokenOf } from '../helpers/files';
import { expectError } from '../helpers/responses';
import {
  blobDeletionsOf,
  blobKeys,
  bulkUploadSized,
  deleteBulk,
  deleteOne,
  expectAccountSettled,
  expectStored,
  failingCompleteBucket,
  failingDeleteBucket,
  failingFilesInsertDb,
  failingPutBucket,
  GRACE_MS,
  keysFor,
  newKey,
  rowIds,
  runCron,
  seedFiles,
  succeeded,
  sweepAt,
  sweepUntilQuiet,
  textBytes,
  uploadSized,
  uploadSizedOk,
  usage,
} from '../helpers/storage';
import { binaryBytes, created, createPartial, head, patch, usage as tusUsage } from '../helpers/tus';
import { call } from '../helpers/worker';

// The faults injected here are expected to be logged as errors: collect those lines (so a green
// run reads green) and check the ones that tell an operator what happened.
let errorLog: string[] = [];
beforeEach(() => {
  errorLog = [];
  vi.spyOn(console, 'error').mockImplementation((line: unknown) => void errorLog.push(String(line)));
});
afterEach(() => {
  vi.restoreAllMocks();
});
const logged = (msg: string) => errorLog.filter((line) => line.includes(`"msg":"${msg}"`)).length;

describe('R2 put fails', () => {
  for (const when of ['before', 'after'] as const) {
    it(`fails only that file of a bulk upload, with nothing left of it (put fails ${when} writing)`, async () => {
      const key = await newKey(`bulk put fails ${when}`);
      const { bucket, calls } = failingPutBucket(env.FILES, 3, { afterWrite: when === 'after' });
      const sizes = [1_000, 1_100, 1_200, 1_300, 1_400];
      const data = await bulkUploadSized(key.auth, sizes, { FILES: bucket });
      expect(calls.put).toBe(5);
      expect(data.results.map((item) => (item.success ? 'ok' : item.code))).toEqual([
        'ok',
        'ok',
        'UPLOAD_FAILED',
        'ok',
        'ok',
      ]);
      expect(data.results[2]).toMatchObject({ success: false, filename: 'f2.txt' });
      expect(data).toMatchObject({ total: 5, successful: 4, failed: 1 });
      // The four stored files, and no blob or row for the one that failed.
      await expectStored(
        key.id,
        succeeded(data.results).map((file) => file.id),
      );
      await expectAccountSettled(key.id, 1_000 + 1_100 + 1_300 + 1_400);
    });
  }

  it('answers 500 UPLOAD_FAILED for a single upload and stores and reserves nothing', async () => {
    const key = await newKey('single put fails', 10_000);
    const kept = await uploadSizedOk(key.auth, 1_000);
    for (const version of ['v1', 'v2'] as const) {
      const { bucket } = failingPutBucket(env.FILES, 1, { afterWrite: true });
      await expectError(
        await uploadSized(key.auth, 2_000, { version, overrides: { FILES: bucket } }),
        500,
        'UPLOAD_FAILED',
      );
    }
    await expectStored(key.id, [kept.id]);
    await expectAccountSettled(key.id, 1_000);
  });
});

describe('R2 completes a multipart upload, then its answer fails', () => {
  const MIB = 1024 * 1024;
  /** Every object under the account's prefixes: files (whole uploads) and segments (tus partials). */
  const objectsOf = async (accountId: string) =>
    [
      ...(await env.FILES.list({ prefix: `files/${accountId}/` })).objects,
      ...(await env.FILES.list({ prefix: `segments/${accountId}/` })).objects,
    ].map((object) => object.key);

  it('a multipart form upload answers 500 UPLOAD_FAILED and leaves no object, row or reservation', async () => {
    const key = await newKey('complete fails, form', 100 * MIB);
    const { bucket, calls } = failingCompleteBucket(env.FILES);
    // No Content-Length: the body streams into R2's multipart upload, part by part.
    const response = await uploadSized(key.auth, 9 * MIB, {
      version: 'v2',
      streamed: true,
      overrides: { FILES: bucket },
    });
    await expectError(response, 500, 'UPLOAD_FAILED');
    expect(calls.complete).toBe(1);
    await expectStored(key.id, []);
    expect(await objectsOf(key.id)).toEqual([]);
    await expectAccountSettled(key.id, 0);
  });

  it.each(['single', 'partial'] as const)(
    'a tus %s upload answers 500 UPLOAD_FAILED (not INTERNAL_ERROR), ends, and leaves no object or reservation',
    async (kind) => {
      const key = await newKey(`complete fails, tus ${kind}`, 100 * MIB);
      const bytes = binaryBytes(9 * MIB, 71);
      const { path } =
        kind === 'single' ? await created(key.auth, bytes.length) : await createPartial(key.auth, bytes.length);
      const { bucket, calls } = failingCompleteBucket(env.FILES);
      const response = await patch(key.auth, path, 0, bytes, {}, { FILES: bucket });
      expect(calls.complete).toBe(1);
      const body = await expectError(response, 500, 'UPLOAD_FAILED');
      expect(body.error).toMatch(/could not be stored/);
      expect(await objectsOf(key.id)).toEqual([]);
      expect(await rowIds(key.id)).toEqual([]);
      expect(await tusUsage(key.id)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
    },
  );
});

describe('a tus partial upload completes in R2, then its upload object cannot record it', () => {
  it('answers 500 UPLOAD_FAILED, ends the upload, and leaves no object or reservation', async () => {
    const key = await newKey('partial not recorded', 100 * 1024 * 1024);
    const bytes = binaryBytes(9 * 1024 * 1024, 72);
    const { path } = await createPartial(key.auth, bytes.length);
    // The upload's object records the completion, then its answer is lost.
    const uploads = new Proxy(env.TUS_UPLOADS, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (property !== 'getByName') return value.bind(target);
        return (name: string) => {
          const stub = target.getByName(name);
          return new Proxy(stub, {
            get(inner, member) {
              if (member !== 'completePartial') return Reflect.get(inner, member);
              return async (request: Parameters<typeof stub.completePartial>[0]) => {
                await inner.completePartial(request);
                throw new Error('injected: the upload object’s answer was lost');
              };
            },
          });
        };
      },
    });
    const response = await patch(key.auth, path, 0, bytes, {}, { TUS_UPLOADS: uploads });
    await expectError(response, 500, 'UPLOAD_FAILED');
    expect((await env.FILES.list({ prefix: `segments/${key.id}/` })).objects).toEqual([]);
    expect(await tusUsage(key.id)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
    // The upload ended: it takes no final.
    expect((await head(key.auth, path)).status).not.toBe(204);
  });
});

describe('D1 insert fails after the blob was written', () => {
  it('answers 500 UPLOAD_FAILED and leaves no blob, no row and no reservation', async () => {
    const key = await newKey('insert fails', 10_000);
    const kept = await uploadSizedOk(key.auth, 1_000);
    for (const version of ['v1', 'v2'] as const) {
      const { db, calls } = failingFilesInsertDb(env.DB);
      const response = await uploadSized(key.auth, 2_000, { version, overrides: { DB: db } });
      await expectError(response, 500, 'UPLOAD_FAILED');
      expect(calls.inserts).toBe(1);
    }
    await expectStored(key.id, [kept.id]);
    await expectAccountSettled(key.id, 1_000);
  });

  it('fails every file of a bulk upload (one batch) and removes all their blobs', async () => {
    const key = await newKey('bulk insert fails', 10_000);
    const { db, calls } = failingFilesInsertDb(env.DB);
    const data = await bulkUploadSized(key.auth, [100, 200, 300], { DB: db });
    expect(calls.inserts).toBe(1);
    expect(data.results.map((item) => (item.success ? 'ok' : item.code))).toEqual([
      'UPLOAD_FAILED',
      'UPLOAD_FAILED',
      'UPLOAD_FAILED',
    ]);
    await expectStored(key.id, []);
    await expectAccountSettled(key.id, 0);
  });
});

describe('R2 delete fails after the row was deleted', () => {
  it('answers 200, the file is gone for readers, the blob is recorded and the cron removes it', async () => {
    const key = await newKey('delete fails');
    const file = await uploadSizedOk(key.auth, 1_500);
    const kept = await uploadSizedOk(key.auth, 500);
    const { bucket, calls } = failingDeleteBucket(env.FILES);

    const response = await deleteOne(key.auth, file.id, 'v2', { FILES: bucket });
    expect(response.status).toBe(200);
    expect(calls.delete).toBe(1);
    await expectError(await call(`/api/v1/files/${file.id}`, { headers: key.auth }), 404, 'FILE_NOT_FOUND');
    await expectError(await call(`/share/${tokenOf(file.shareUrl)}/download`), 404, 'FILE_NOT_FOUND');
    const page = await call(`/share/${tokenOf(file.shareUrl)}`);
    expect(page.status).toBe(404);
    await page.body?.cancel();
    // The row is gone and its bytes given back; only the blob waits, on record, for the sweep.
    expect(await rowIds(key.id)).toEqual([kept.id]);
    expect(await blobKeys(key.id)).toEqual(keysFor(key.id, [file.id, kept.id]));
    expect(await blobDeletionsOf(key.id)).toEqual([blobKey(key.id, file.id)]);
    await expectAccountSettled(key.id, 500);
    expect(logged('blob delete failed, recorded for retry')).toBe(1);

    await runCron();
    await expectStored(key.id, [kept.id]);
    expect(await blobDeletionsOf(key.id)).toEqual([]);
    await expectAccountSettled(key.id, 500);
  });

  it('does the same for a bulk delete, and keeps the record while the retry fails too', async () => {
    const key = await newKey('bulk delete fails');
    const files = await Promise.all([700, 800, 900].map((size) => uploadSizedOk(key.auth, size)));
    const [first, second, kept] = files.map((file) => file.id);
    const { bucket } = failingDeleteBucket(env.FILES);

    const response = await deleteBulk(key.auth, [first ?? '', second ?? ''], { FILES: bucket });
    expect(response.status).toBe(200);
    expect((await response.json<{ data: { deleted: number } }>()).data.deleted).toBe(2);
    for (const id of [first, second]) {
      await expectError(await call(`/api/v2/files/${id}`, { headers: key.auth }), 404, 'FILE_NOT_FOUND');
    }
    const recorded = keysFor(key.id, [first ?? '', second ?? '']);
    expect(await blobDeletionsOf(key.id)).toEqual(recorded);
    await expectAccountSettled(key.id, 900);

    // A sweep whose delete fails as well keeps the record (one more attempt) and the blobs.
    await sweepAt(Date.now(), failingDeleteBucket(env.FILES).bucket);
    const { results } = await env.DB.prepare('SELECT attempts FROM blob_deletions WHERE key_id = ?1')
      .bind(key.id)
      .all<{ attempts: number }>();
    expect(results).toEqual([{ attempts: 2 }, { attempts: 2 }]);
    expect(await blobKeys(key.id)).toHaveLength(3);
    expect(logged('blob delete retry failed')).toBe(1);

    await runCron();
    await expectStored(key.id, [kept ?? '']);
    expect(await blobDeletionsOf(key.id)).toEqual([]);
    await expectAccountSettled(key.id, 900);
  });
});

describe('the sweep reconciles R2 with D1', () => {
  it('removes orphan blobs and rows without a blob once older than the grace, and gives the bytes back', async () => {
    const key = await newKey('drift');
    // An orphan put straight into R2, and one left by an upload whose insert and cleanup both failed.
    const planted = blobKey(key.id, 'AAAAAAAAAAAAAAAAAAAAAA');
    await env.FILES.put(planted, textBytes(50));
    const { db } = failingFilesInsertDb(env.DB);
    const { bucket } = failingDeleteBucket(env.FILES);
    await expectError(await uploadSized(key.auth, 60, { overrides: { DB: db, FILES: bucket } }), 500, 'UPLOAD_FAILED');
    const orphans = await blobKeys(key.id);
    expect(orphans).toHaveLength(2);
    expect(logged('orphan blob left behind')).toBeGreaterThanOrEqual(1);
    // A row whose blob has gone, next to a file that is whole.
    const lost = await uploadSizedOk(key.auth, 1_234);
    const kept = await uploadSizedOk(key.auth, 321);
    await env.FILES.delete(blobKey(key.id, lost.id));
    await expectAccountSettled(key.id, 1_555);

    // Younger than the grace (the longest upload, plus an hour): nothing is judged yet.
    await sweepUntilQuiet(Date.now() + GRACE_MS - 60_000);
    expect(await rowIds(key.id)).toEqual([lost.id, kept.id].sort());
    expect(await blobKeys(key.id)).toEqual([...orphans, blobKey(key.id, kept.id)].sort());
    expect((await usage(key.id)).usedBytes).toBe(1_555);

    // Past the grace: the orphans are deleted, the blobless row too, and its bytes are free again.
    const later = Date.now() + GRACE_MS + 60_000;
    const reports = await sweepUntilQuiet(later);
    expect(reports.reduce((sum, report) => sum + report.orphanBlobs, 0)).toBeGreaterThanOrEqual(2);
    expect(reports.reduce((sum, report) => sum + report.rowsWithoutBlob, 0)).toBeGreaterThanOrEqual(1);
    await expectStored(key.id, [kept.id]);
    await expectAccountSettled(key.id, 321);

    // Running it again changes nothing more.
    const again = await sweepAt(later);
    expect(again).toEqual({
      expired: 0,
      expiredLeft: false,
      retriedBlobDeletes: 0,
      orphanBlobs: 0,
      rowsWithoutBlob: 0,
      strayUploadObjects: 0,
      straySegments: 0,
      digestsBackfilled: 0,
    });
    await expectStored(key.id, [kept.id]);
    await expectAccountSettled(key.id, 321);
  });

  it('never takes a whole file for an orphan, however many rows without a blob share its listing page', async () => {
    const key = await newKey('many blobless rows');
    // More rows whose blobs are gone (an R2 incident) than the sweep reads for one page (1,000)
    // and binds in one statement (100), sorting before a whole file.
    const idStartingWith = (first: string) => `${first}${randomBase64Url(16).slice(1)}`;
    await seedFiles(
      key.id,
      Array.from({ length: 1_001 }, () => ({ size: 1, blob: false, id: idStartingWith('-') })),
    );
    const [whole] = await seedFiles(key.id, [{ size: 4_321, id: idStartingWith('z') }]);
    expect(await usage(key.id)).toEqual({ usedBytes: 1_001 + 4_321, files: 1_002, heldBytes: 0, heldFiles: 0 });

    await sweepUntilQuiet(Date.now() + GRACE_MS + 60_000);
    await expectStored(key.id, [whole?.id ?? '']);
    await expectAccountSettled(key.id, 4_321);
  });
});
