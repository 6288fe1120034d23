// Expiry: expiresIn and DEFAULT_EXPIRY_SECONDS set expiresAt; an expired file is gone for every
// read at once and off its key's quota at once; the cron removes expired rows and blobs in
// batches until none is left or its time budget is spent.
import { describe, expect, it } from 'vitest';
import { tokenOf } from './helpers/files';
import type { FileRecord } from './helpers/records';
import { expectError } from './helpers/responses';
import {
  blobDeletionsOf,
  deleteBulk,
  deleteOne,
  expectAccountSettled,
  expectStored,
  multipartOf,
  newKey,
  postMultipart,
  rowIds,
  runCron,
  seedFiles,
  setExpiresAt,
  sweepAt,
  sweepUntilQuiet,
  textBytes,
  type Uploaded,
  uploadSized,
  uploadSizedOk,
  usage,
  type Version,
} from './helpers/storage';
import type { Auth } from './helpers/upload';
import { call, createKey } from './helpers/worker';

async function getRecord(auth: Auth, id: string, version: Version): Promise<FileRecord> {
  const response = await call(`/api/${version}/files/${id}`, { headers: auth });
  const body = await response.json<{ data: FileRecord }>();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.data;
}

async function listedIds(auth: Auth, version: Version): Promise<{ ids: string[]; total: number }> {
  const response = await call(`/api/${version}/files?limit=100`, { headers: auth });
  expect(response.status).toBe(200);
  const body = await response.json<{ data: { files: FileRecord[]; pagination: { total: number } } }>();
  return { ids: body.data.files.map((file) => file.id).sort(), total: body.data.pagination.total };
}

const lifetimeSeconds = (record: FileRecord) =>
  record.expiresAt === null ? null : (Date.parse(record.expiresAt) - Date.parse(record.uploadedAt)) / 1000;

const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
/** `ms` from a fixed `now` (the sweep tests judge every row against that one instant). */
const at = (now: number, ms: number) => new Date(now + ms).toISOString();

describe('expiresAt', () => {
  for (const version of ['v1', 'v2'] as const) {
    it(`is uploadedAt + expiresIn seconds, and null without it (${version})`, async () => {
      const key = await newKey(`expires ${version}`);
      const expiring = await uploadSizedOk(key.auth, 100, { version, fields: { expiresIn: '60' } });
      const lasting = await uploadSizedOk(key.auth, 100, { version });
      const record = await getRecord(key.auth, expiring.id, version);
      expect(record.uploadedAt).toBe(expiring.uploadedAt);
      expect(lifetimeSeconds(record)).toBe(60);
      expect((await getRecord(key.auth, lasting.id, version)).expiresAt).toBeNull();
    });
  }

  it('takes DEFAULT_EXPIRY_SECONDS when expiresIn is absent, and expiresIn over it', async () => {
    const key = await newKey('default expiry');
    const overrides = { DEFAULT_EXPIRY_SECONDS: '120' };
    const defaulted = await uploadSizedOk(key.auth, 100, { overrides });
    const explicit = await uploadSizedOk(key.auth, 100, { overrides, version: 'v2', fields: { expiresIn: '600' } });
    expect(lifetimeSeconds(await getRecord(key.auth, defaulted.id, 'v1'))).toBe(120);
    expect(lifetimeSeconds(await getRecord(key.auth, explicit.id, 'v2'))).toBe(600);

    // Bulk uploads follow the same rule for every file.
    const body = multipartOf([{ filename: 'a.txt', content: textBytes(10) }], {}, 'files');
    const response = await postMultipart(key.auth, '/api/v2/upload/bulk', body, { overrides });
    const bulk = await response.json<{ data: { results: { data: Uploaded }[] } }>();
    expect(response.status).toBe(201);
    const bulkId = bulk.data.results[0]?.data.id ?? '';
    expect(lifetimeSeconds(await getRecord(key.auth, bulkId, 'v2'))).toBe(120);
  });

  it('refuses expiresIn outside 60 … 31,536,000 with 400 VALIDATION_ERROR and stores nothing', async () => {
    const key = await newKey('bad expiresIn');
    for (const expiresIn of ['59', '31536001', '1.5', 'soon']) {
      await expectError(await uploadSized(key.auth, 100, { fields: { expiresIn } }), 400, 'VALIDATION_ERROR');
    }
    await expectStored(key.id, []);
    await expectAccountSettled(key.id, 0);
  });
});

describe('an expired file', () => {
  it('answers 404 FILE_NOT_FOUND on every route at once, before any cleanup', async () => {
    const key = await newKey('expired reads');
    const expired = await uploadSizedOk(key.auth, 300, { fields: { expiresIn: '3600' } });
    const live = await uploadSizedOk(key.auth, 200);
    const token = tokenOf(expired.shareUrl);

    // Reachable everywhere while it lives…
    for (const version of ['v1', 'v2'] as const) {
      expect((await listedIds(key.auth, version)).ids).toEqual([expired.id, live.id].sort());
      expect((await call(`/api/${version}/files/${expired.id}`, { headers: key.auth })).status).toBe(200);
      expect((await call(`/api/${version}/files/${expired.id}/download`, { headers: key.auth })).status).toBe(200);
    }
    expect((await call(`/share/${token}`)).status).toBe(200);
    expect((await call(`/share/${token}/download`)).status).toBe(200);

    // …and gone from every read the moment it expires.
    await setExpiresAt([expired.id], ago(1));
    for (const version of ['v1', 'v2'] as const) {
      const file = `/api/${version}/files/${expired.id}`;
      await expectError(await call(file, { headers: key.auth }), 404, 'FILE_NOT_FOUND');
      await expectError(await call(`${file}/download`, { headers: key.auth }), 404, 'FILE_NOT_FOUND');
      const head = await call(`${file}/download`, { method: 'HEAD', headers: key.auth });
      expect(head.status).toBe(404);
      expect(await listedIds(key.auth, version)).toEqual({ ids: [live.id], total: 1 });
    }
    const shared = await call(`/share/${token}`);
    expect(shared.status).toBe(404);
    await shared.body?.cancel();
    await expectError(await call(`/share/${token}/download`), 404, 'FILE_NOT_FOUND');
    const bulk = await deleteBulk(key.auth, [expired.id]);
    expect((await bulk.json<{ data: { results: unknown[] } }>()).data.results).toEqual([
      { id: expired.id, success: false, error: expect.any(String), code: 'FILE_NOT_FOUND' },
    ]);
    for (const version of ['v1', 'v2'] as const) {
      await expectError(await deleteOne(key.auth, expired.id, version), 404, 'FILE_NOT_FOUND');
    }

    // No sweep has run: the row and blob are still there, but the bytes left the quota already.
    await expectStored(key.id, [expired.id, live.id]);
    await expectAccountSettled(key.id, 200);
  });

  it('gives its bytes and its file slot back to the quota the moment it expires, before any sweep', async () => {
    const key = await createKey('expiry frees quota', {
      storageQuotaBytes: 1_000,
      maxFiles: 2,
      rateLimitRequests: 100_000,
    });
    const soon = await uploadSizedOk(key.auth, 600, { fields: { expiresIn: '60' } });
    await uploadSizedOk(key.auth, 300);
    // Full: 600 + 300 of 1,000 bytes, and 2 of 2 files.
    await expectError(await uploadSized(key.auth, 200), 413, 'STORAGE_EXCEEDED');
    // A second before its expiry (counted from its own upload time, not from now: under load the
    // uploads above can take longer than that second).
    expect(await usage(key.id, Date.parse(soon.uploadedAt) + 59_000)).toMatchObject({ usedBytes: 900, files: 2 });
    // Once its expiry has passed the key's object has taken it off: no sweep has run.
    await setExpiresAt([soon.id], ago(1));
    expect(await usage(key.id)).toMatchObject({ usedBytes: 300, files: 1 });
    await uploadSizedOk(key.auth, 650);
    await expectAccountSettled(key.id, 950);
    expect(await rowIds(key.id)).toHaveLength(3);
  });
});

describe('the expiry cron', () => {
  it('deletes expired rows and blobs, gives their bytes back, leaves the rest, and does nothing more when run again', async () => {
    const key = await newKey('cron');
    const [gone1, gone2, lasting, later] = await Promise.all([
      uploadSizedOk(key.auth, 1_000),
      uploadSizedOk(key.auth, 2_000, { version: 'v2' }),
      uploadSizedOk(key.auth, 1_500),
      uploadSizedOk(key.auth, 700, { fields: { expiresIn: '3600' } }),
    ]);
    const ids = (files: (Uploaded | undefined)[]) => files.map((file) => file?.id ?? '');
    await expectAccountSettled(key.id, 5_200);
    await setExpiresAt(ids([gone1, gone2]), ago(60_000));
    // Expired: off the quota at once, though the rows and blobs are still there.
    await expectAccountSettled(key.id, 2_200);
    expect(await rowIds(key.id)).toHaveLength(4);

    await runCron();
    await expectStored(key.id, ids([lasting, later]));
    await expectAccountSettled(key.id, 2_200);
    expect(await blobDeletionsOf(key.id)).toEqual([]);
    // What is left is whole: its bytes still download.
    const download = await call(`/api/v1/files/${lasting?.id}/download`, { headers: key.auth });
    expect(new Uint8Array(await download.arrayBuffer()).length).toBe(1_500);

    await runCron();
    await expectStored(key.id, ids([lasting, later]));
    await expectAccountSettled(key.id, 2_200);
  });

  it('keeps up: one run clears every expired file of every key, oldest expiry first, in batches', async () => {
    // Start from a bucket and database with nothing left to sweep from earlier tests, up to a
    // minute past `now` (their files with expiresIn 60), and sweep at `now` below: no earlier
    // file can expire in between, however long the seeding takes.
    const now = Date.now();
    await sweepUntilQuiet(now + 120_000);
    const busy = await newKey('many expired');
    const quiet = await newKey('few expired');
    // One key's backlog (more than two batches) expired before the other key's few files.
    await seedFiles(
      busy.id,
      Array.from({ length: 1_205 }, (_, index) => ({
        size: 10,
        uploadedAt: at(now, -300_000),
        expiresAt: at(now, -(120_000 - index)),
      })),
    );
    await seedFiles(
      quiet.id,
      Array.from({ length: 5 }, () => ({ size: 10, uploadedAt: at(now, -300_000), expiresAt: at(now, -1_000) })),
    );
    const [kept] = await seedFiles(busy.id, [{ size: 100, expiresAt: at(now, 3_600_000) }]);
    // The accounts start from the live rows: expired files never counted.
    expect(await usage(busy.id)).toMatchObject({ usedBytes: 100, files: 1 });

    const report = await sweepAt(now);
    expect(report).toMatchObject({ expired: 1_210, expiredLeft: false });
    await expectStored(busy.id, [kept?.id ?? '']);
    await expectStored(quiet.id, []);
    await expectAccountSettled(busy.id, 100);
  });

  it('stops at its time budget and leaves the rest, oldest first, for the next run', async () => {
    const now = Date.now();
    await sweepUntilQuiet(now + 120_000);
    const key = await newKey('budget');
    await seedFiles(
      key.id,
      Array.from({ length: 600 }, (_, index) => ({
        size: 1,
        uploadedAt: at(now, -300_000),
        expiresAt: at(now, -(120_000 - index)),
      })),
    );
    // A budget already spent: not one batch.
    expect(await sweepAt(now, undefined, -1)).toMatchObject({ expired: 0, expiredLeft: true });
    expect(await rowIds(key.id)).toHaveLength(600);
    // A normal run takes the first batch (500, the oldest expiries) and the rest in a second.
    const report = await sweepAt(now);
    expect(report).toMatchObject({ expired: 600, expiredLeft: false });
    await expectStored(key.id, []);
  });
});
