// Expiry: expiresIn and DEFAULT_EXPIRY_SECONDS set expiresAt; an expired file is gone for every
// read at once; the cron removes expired rows and blobs in bounded batches and frees their bytes.
import { describe, expect, it } from 'vitest';
import { call } from '../helpers';
import {
  type Auth,
  blobDeletionsOf,
  blobKeys,
  deleteBulk,
  deleteOne,
  expectAccountSettled,
  expectError,
  expectStored,
  keysFor,
  multipartOf,
  newKey,
  postMultipart,
  rowIds,
  runCron,
  seedFiles,
  setExpiresAt,
  sweepUntilQuiet,
  textBytes,
  tokenOf,
  type Uploaded,
  uploadSized,
  uploadSizedOk,
  usage,
  type Version,
} from './limits-helpers-store';

type FileRecord = { id: string; uploadedAt: string; expiresAt: string | null };

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

    // No sweep has run: the row and blob are still there, and still counted until one does.
    await expectStored(key.id, [expired.id, live.id]);
    await expectAccountSettled(key.id, 500);
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
    await setExpiresAt(ids([gone1, gone2]), ago(60_000));
    await expectAccountSettled(key.id, 5_200);

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

  it('works in bounded batches: at most 500 expired files a run, the rest on the next run', async () => {
    // Start from a bucket and database with nothing left to sweep from earlier tests.
    await sweepUntilQuiet(Date.now());
    const key = await newKey('many expired');
    const expired = await seedFiles(
      key.id,
      Array.from({ length: 510 }, (_, index) => ({
        size: 10,
        uploadedAt: ago(120_000),
        expiresAt: ago(60_000 - index),
      })),
    );
    const [kept] = await seedFiles(key.id, [{ size: 100, expiresAt: new Date(Date.now() + 3_600_000).toISOString() }]);
    const keptId = kept?.id ?? '';
    // The key's account starts from its rows (see quota.test.ts), before anything is swept.
    expect(await usage(key.id)).toEqual({ usedBytes: 5_200, reservedBytes: 0 });

    await runCron();
    const left = await rowIds(key.id);
    expect(left).toHaveLength(11);
    expect(left).toContain(keptId);
    expect(await blobKeys(key.id)).toEqual(keysFor(key.id, left));
    await expectAccountSettled(key.id, 200);
    // The oldest expiries go first.
    expect(left.filter((id) => id !== keptId).sort()).toEqual(
      expired
        .slice(500)
        .map((row) => row.id)
        .sort(),
    );

    await runCron();
    await expectStored(key.id, [keptId]);
    await expectAccountSettled(key.id, 100);
  });
});
