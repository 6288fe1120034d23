import { env } from 'cloudflare:test';
import { describe, expect, it, vi } from 'vitest';
import { bulkUpload, bytesOf, downloadBytes, expectPerfValue, getRecord, listedIds, tokenOf } from '../helpers/files';
import { type BulkUploadBody, UPLOAD_RECORD_V2_KEYS, type UploadRecordV2 } from '../helpers/records';
import { expectError, json } from '../helpers/responses';
import { expectNothingStored, expectStored, failingBatchDb, instrumentedBucket } from '../helpers/storage';
import {
  ELF,
  type FilePart,
  filesForm,
  HTML_AS_PNG,
  MULTIPART,
  rawFilePart,
  rawMultipart,
  TEST_BOUNDARY,
  textFile,
} from '../helpers/upload';
import { call, createKey, ORIGIN } from '../helpers/worker';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Sends a bulk upload that must answer 201, and checks the envelope. */
async function bulkOk(auth: Record<string, string>, body: BodyInit, overrides = {}) {
  const response = await bulkUpload(auth, body, overrides);
  const result = await json<BulkUploadBody>(response);
  expect(response.status, JSON.stringify(result)).toBe(201);
  expect(Object.keys(result).sort()).toEqual(['_perf', 'data', 'success']);
  expect(result.success).toBe(true);
  expect(Object.keys(result.data).sort()).toEqual(['failed', 'results', 'successful', 'total']);
  expectPerfValue(result);
  const { total, successful, failed, results } = result.data;
  expect(results).toHaveLength(total);
  expect(successful + failed).toBe(total);
  expect(results.filter((item) => item.success)).toHaveLength(successful);
  return result.data;
}

function successData(item: BulkUploadBody['data']['results'][number] | undefined): UploadRecordV2 {
  if (!item?.success) throw new Error(`expected a success item, got ${JSON.stringify(item)}`);
  expect(Object.keys(item).sort()).toEqual(['data', 'success']);
  // expiresAt is there exactly when the file expires.
  const keys = Object.keys(item.data).sort();
  const expires = (item.data as { expiresAt?: unknown }).expiresAt;
  expect(keys).toEqual(expires === undefined ? UPLOAD_RECORD_V2_KEYS : [...UPLOAD_RECORD_V2_KEYS, 'expiresAt'].sort());
  return item.data;
}

function expectFailure(item: BulkUploadBody['data']['results'][number] | undefined, filename: string, code: string) {
  expect(item).toEqual({ success: false, filename, error: expect.any(String), code });
  expect(item?.success === false && item.error.length > 0).toBe(true);
}

const fiveWithBadThird = (bad: FilePart): FilePart[] => [
  textFile('one.txt', '1'),
  textFile('two.txt', '22'),
  bad,
  textFile('four.txt', '4444'),
  textFile('five.txt', '55555'),
];

describe('POST /api/v2/upload/bulk: success', () => {
  it('accepts parts named files, files[] and both mixed, and answers in part order', async () => {
    const { auth } = await createKey();
    const files: FilePart[] = [
      { ...textFile('a.txt', 'a'), name: 'files' },
      { ...textFile('b.txt', 'bb'), name: 'files[]' },
      { ...textFile('c.txt', 'ccc'), name: 'files' },
      { ...textFile('d.txt', 'dddd'), name: 'files[]' },
    ];
    const data = await bulkOk(auth, filesForm(files));
    expect(data).toMatchObject({ total: 4, successful: 4, failed: 0 });
    const records = data.results.map(successData);
    expect(records.map((record) => record.size)).toEqual([1, 2, 3, 4]);
    for (const [index, record] of records.entries()) {
      const stored = await getRecord(auth, record.id, 'v2');
      expect(stored.originalName).toBe(files[index]?.filename);
      const { bytes } = await downloadBytes(auth, record.id);
      expect(bytes).toEqual(bytesOf(files[index]?.content ?? ''));
    }
  });

  it.each([['files'], ['files[]']])('accepts parts all named %s', async (name) => {
    const { id, auth } = await createKey();
    const data = await bulkOk(auth, filesForm([textFile('a.txt'), textFile('b.txt')], {}, name));
    expect(data).toMatchObject({ total: 2, successful: 2, failed: 0 });
    await expectStored(
      id,
      data.results.map(successData).map((record) => record.id),
    );
  });

  it('returns v2 records: v2 downloadUrl, share link, stored name, ISO time, isPublic true by default', async () => {
    const { auth } = await createKey();
    const data = await bulkOk(auth, filesForm([textFile('My Notes.txt', 'hello')]));
    const record = successData(data.results[0]);
    expect(record.downloadUrl).toBe(`${ORIGIN}/api/v2/files/${record.id}/download`);
    expect(record.shareUrl).toMatch(new RegExp(`^${ORIGIN}/share/[A-Za-z0-9_-]+$`));
    expect(tokenOf(record.shareUrl)).not.toBe(record.id);
    expect(record.filename).toMatch(/^[A-Za-z0-9._-]+\.txt$/);
    expect(record.filename).not.toBe('My Notes.txt');
    expect(record).toMatchObject({ size: 5, mimeType: 'text/plain', isPublic: true });
    expect(record.uploadedAt).toMatch(ISO_MS);
    expect((await call(new URL(record.shareUrl).pathname)).status).toBe(200);
  });

  it('applies isPublic=false to every file', async () => {
    const { auth } = await createKey();
    const data = await bulkOk(auth, filesForm([textFile('a.txt'), textFile('b.txt')], { isPublic: 'false' }));
    for (const record of data.results.map(successData)) {
      expect(record.isPublic).toBe(false);
      expect((await getRecord(auth, record.id, 'v2')).isPublic).toBe(false);
      expect((await call(`/share/${tokenOf(record.shareUrl)}/download`)).status).toBe(404);
    }
  });

  it('applies isPublic=true to every file', async () => {
    const { auth } = await createKey();
    const data = await bulkOk(auth, filesForm([textFile('a.txt'), textFile('b.txt')], { isPublic: 'true' }));
    expect(data.results.map(successData).map((record) => record.isPublic)).toEqual([true, true]);
  });

  it('applies expiresIn to every file', async () => {
    const { auth } = await createKey();
    const before = Date.now();
    const data = await bulkOk(auth, filesForm([textFile('a.txt'), textFile('b.txt')], { expiresIn: '3600' }));
    for (const record of data.results.map(successData)) {
      const stored = await getRecord(auth, record.id, 'v2');
      expect((record as { expiresAt?: string }).expiresAt).toBe(stored.expiresAt);
      const expiresAt = Date.parse(stored.expiresAt ?? '');
      expect(expiresAt).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
    }
  });

  it('leaves expiresAt null without expiresIn', async () => {
    const { auth } = await createKey();
    const data = await bulkOk(auth, filesForm([textFile('a.txt')]));
    expect((await getRecord(auth, successData(data.results[0]).id, 'v2')).expiresAt).toBeNull();
  });
});

describe('POST /api/v2/upload/bulk: per-file failures', () => {
  it.each([
    ['HTML declared as image/png', HTML_AS_PNG],
    ['an ELF executable', { filename: 'tool.txt', type: 'text/plain', content: ELF }],
  ])('stores the other four when the third of five is %s (INVALID_FILE_TYPE)', async (_label, bad) => {
    const { id: keyId, auth } = await createKey();
    const data = await bulkOk(auth, filesForm(fiveWithBadThird(bad)));
    expect(data).toMatchObject({ total: 5, successful: 4, failed: 1 });
    expectFailure(data.results[2], bad.filename, 'INVALID_FILE_TYPE');
    const landed = [0, 1, 3, 4].map((index) => successData(data.results[index]));
    expect(landed.map((record) => record.size)).toEqual([1, 2, 4, 5]);
    const ids = landed.map((record) => record.id);
    await expectStored(keyId, ids);
    expect(await listedIds(auth)).toEqual([...ids].sort());
  });

  it('fails only the file over MAX_FILE_SIZE with FILE_TOO_LARGE', async () => {
    const { id: keyId, auth } = await createKey();
    const files = [
      textFile('small.txt', 'x'.repeat(100)),
      textFile('big.txt', 'y'.repeat(1001)),
      textFile('edge.txt', 'z'.repeat(1000)),
    ];
    const data = await bulkOk(auth, filesForm(files), { MAX_FILE_SIZE: '1000' });
    expect(data).toMatchObject({ total: 3, successful: 2, failed: 1 });
    expectFailure(data.results[1], 'big.txt', 'FILE_TOO_LARGE');
    const ids = [successData(data.results[0]).id, successData(data.results[2]).id];
    await expectStored(keyId, ids);
  });

  it('answers 201 with successful 0 when every file fails, and stores nothing', async () => {
    const { id: keyId, auth } = await createKey();
    const files: FilePart[] = [{ filename: 'a.exe', content: ELF }, HTML_AS_PNG, { filename: 'b.bin', content: ELF }];
    const data = await bulkOk(auth, filesForm(files));
    expect(data).toMatchObject({ total: 3, successful: 0, failed: 3 });
    expectFailure(data.results[0], 'a.exe', 'INVALID_FILE_TYPE');
    expectFailure(data.results[1], 'photo.png', 'INVALID_FILE_TYPE');
    expectFailure(data.results[2], 'b.bin', 'INVALID_FILE_TYPE');
    await expectNothingStored(keyId);
  });

  it('fails one file with UPLOAD_FAILED when its R2 write fails, and keeps no blob of it', async () => {
    const { id: keyId, auth } = await createKey();
    const { bucket, stats } = instrumentedBucket(env.FILES, { failPutNumber: 2 });
    const files = [textFile('a.txt', 'a'), textFile('b.txt', 'bb'), textFile('c.txt', 'ccc')];
    const data = await bulkOk(auth, filesForm(files), { FILES: bucket });
    expect(stats.puts).toBe(3);
    expect(data).toMatchObject({ total: 3, successful: 2, failed: 1 });
    expectFailure(data.results[1], 'b.txt', 'UPLOAD_FAILED');
    await expectStored(keyId, [successData(data.results[0]).id, successData(data.results[2]).id]);
  });

  it('fails every file with UPLOAD_FAILED and removes their blobs when the D1 batch fails', async () => {
    const { id: keyId, auth } = await createKey();
    const files = [textFile('a.txt'), textFile('b.txt')];
    const data = await bulkOk(auth, filesForm(files), { DB: failingBatchDb(env.DB) });
    expect(data).toMatchObject({ total: 2, successful: 0, failed: 2 });
    expectFailure(data.results[0], 'a.txt', 'UPLOAD_FAILED');
    expectFailure(data.results[1], 'b.txt', 'UPLOAD_FAILED');
    await expectNothingStored(keyId);
  });
});

describe('POST /api/v2/upload/bulk: file limit', () => {
  const many = (count: number) => Array.from({ length: count }, (_, index) => textFile(`f${index}.txt`, `#${index}`));

  it('accepts 10 files by default', async () => {
    const { id: keyId, auth } = await createKey();
    const data = await bulkOk(auth, filesForm(many(10)));
    expect(data).toMatchObject({ total: 10, successful: 10, failed: 0 });
    await expectStored(
      keyId,
      data.results.map(successData).map((record) => record.id),
    );
  });

  it('answers 400 TOO_MANY_FILES for 11 files by default and stores none of them', async () => {
    const { id: keyId, auth } = await createKey();
    const response = await bulkUpload(auth, filesForm(many(11)));
    expectPerfValue(await expectError(response, 400, 'TOO_MANY_FILES'));
    await expectNothingStored(keyId);
  });

  it('follows a MAX_BULK_FILES override downwards', async () => {
    const { id: keyId, auth } = await createKey();
    await expectError(await bulkUpload(auth, filesForm(many(3)), { MAX_BULK_FILES: '2' }), 400, 'TOO_MANY_FILES');
    await expectNothingStored(keyId);
    const data = await bulkOk(auth, filesForm(many(2)), { MAX_BULK_FILES: '2' });
    expect(data.successful).toBe(2);
  });

  it('accepts 50 files with MAX_BULK_FILES=50', async () => {
    const { id: keyId, auth } = await createKey();
    const data = await bulkOk(auth, filesForm(many(50)), { MAX_BULK_FILES: '50' });
    expect(data).toMatchObject({ total: 50, successful: 50, failed: 0 });
    const records = data.results.map(successData);
    expect(records.map((record) => record.size)).toEqual(many(50).map((file) => bytesOf(file.content).length));
    await expectStored(
      keyId,
      records.map((record) => record.id),
    );
  });

  it('refuses MAX_BULK_FILES=51 as a configuration error: a generic 500 INTERNAL_ERROR, nothing stored', async () => {
    const { id: keyId, auth } = await createKey();
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const response = await bulkUpload(auth, filesForm(many(2)), { MAX_BULK_FILES: '51' });
      const body = await expectError(response, 500, 'INTERNAL_ERROR');
      expect(body.error).toBe('Internal server error');
      // Even a configuration error is a v2 JSON response.
      expectPerfValue(body);
      expect(response.headers.get('server-timing')).toMatch(/total;dur=/);
      expect(JSON.stringify(body)).not.toMatch(/MAX_BULK_FILES|stack|at \w+ \(/);
      // The operator, not the client, learns which setting is wrong.
      expect(log.mock.calls.flat().join('\n')).toContain('MAX_BULK_FILES');
    } finally {
      log.mockRestore();
    }
    await expectNothingStored(keyId);
  });
});

describe('POST /api/v2/upload/bulk: unusable requests', () => {
  it('answers 400 VALIDATION_ERROR when the body is not multipart', async () => {
    const { id: keyId, auth } = await createKey();
    const response = await bulkUpload(
      auth,
      JSON.stringify({ files: ['a'] }),
      {},
      { 'Content-Type': 'application/json' },
    );
    expectPerfValue(await expectError(response, 400, 'VALIDATION_ERROR'));
    await expectNothingStored(keyId);
  });

  it('answers 400 VALIDATION_ERROR when every files part is a text field, not a file', async () => {
    const { id: keyId, auth } = await createKey();
    const data = new FormData();
    data.append('files', 'just text');
    data.append('files[]', 'more text');
    const response = await bulkUpload(auth, data);
    const body = await expectError(response, 400, 'VALIDATION_ERROR');
    expect(body.details?.map((detail) => detail.field)).toContain('files');
    await expectNothingStored(keyId);
  });

  it('answers 400 VALIDATION_ERROR naming files when the form has no file', async () => {
    const { id: keyId, auth } = await createKey();
    const response = await bulkUpload(auth, filesForm([], { isPublic: 'true' }));
    const body = await expectError(response, 400, 'VALIDATION_ERROR');
    expect(body.details?.map((detail) => detail.field)).toContain('files');
    await expectNothingStored(keyId);
  });

  it('answers 400 VALIDATION_ERROR when the only file input was left empty', async () => {
    const { auth } = await createKey();
    const body = rawMultipart([rawFilePart('', '')]);
    await expectError(await bulkUpload(auth, body, {}, MULTIPART), 400, 'VALIDATION_ERROR');
  });

  it('answers 400 VALIDATION_ERROR when the only file part is named file (the single-upload name)', async () => {
    const { auth } = await createKey();
    const response = await bulkUpload(auth, filesForm([textFile('a.txt')], {}, 'file'));
    await expectError(response, 400, 'VALIDATION_ERROR');
  });

  it.each(['yes', 'TRUE', '1', ''])(
    'answers 400 VALIDATION_ERROR naming isPublic for isPublic=%j and stores nothing',
    async (value) => {
      const { id: keyId, auth } = await createKey();
      const response = await bulkUpload(auth, filesForm([textFile('a.txt'), textFile('b.txt')], { isPublic: value }));
      const body = await expectError(response, 400, 'VALIDATION_ERROR');
      expect(body.details?.map((detail) => detail.field)).toContain('isPublic');
      await expectNothingStored(keyId);
    },
  );

  it('answers 400 VALIDATION_ERROR for an isPublic sent after the files, and stores nothing', async () => {
    const { id: keyId, auth } = await createKey();
    const body = rawMultipart([
      rawFilePart('a.txt', 'aaa'),
      rawFilePart('b.txt', 'bbb'),
      { headers: ['Content-Disposition: form-data; name="isPublic"'], content: 'nope' },
    ]);
    await expectError(await bulkUpload(auth, body, {}, MULTIPART), 400, 'VALIDATION_ERROR');
    await expectNothingStored(keyId);
  });

  it.each(['10', 'soon', '31536001'])(
    'answers 400 VALIDATION_ERROR for expiresIn=%s and stores nothing',
    async (value) => {
      const { id: keyId, auth } = await createKey();
      const response = await bulkUpload(auth, filesForm([textFile('a.txt')], { expiresIn: value }));
      const body = await expectError(response, 400, 'VALIDATION_ERROR');
      expect(body.details?.map((detail) => detail.field)).toContain('expiresIn');
      await expectNothingStored(keyId);
    },
  );

  // The body ends: CRLF, then the closing delimiter.
  const tail = `\r\n--${TEST_BOUNDARY}--\r\n`.length;
  it.each([
    ['inside the third file', (full: Uint8Array) => full.subarray(0, full.length - tail - 2500)],
    ["inside the third part's headers", (full: Uint8Array) => full.subarray(0, full.length - tail - 5000 - 20)],
    ['inside the closing boundary', (full: Uint8Array) => full.subarray(0, full.length - 8)],
  ])('answers 400 (never 500) for a body truncated %s, and stores nothing', async (_label, truncate) => {
    const { id: keyId, auth } = await createKey();
    const full = rawMultipart([
      rawFilePart('a.txt', 'first file'),
      rawFilePart('b.txt', 'second file'),
      rawFilePart('c.txt', 'x'.repeat(5000)),
    ]);
    const response = await bulkUpload(auth, truncate(full), {}, MULTIPART);
    expectPerfValue(await expectError(response, 400, 'VALIDATION_ERROR'));
    await expectNothingStored(keyId);
  });

  it('answers 401 with the error envelope and _perf without a key', async () => {
    const response = await bulkUpload({}, filesForm([textFile('a.txt')]));
    expectPerfValue(await expectError(response, 401, 'UNAUTHORIZED'));
  });
});

describe('POST /api/v2/upload/bulk: parallel storage', () => {
  it('overlaps the R2 writes of six files, at most three at a time', async () => {
    const { id: keyId, auth } = await createKey();
    const { bucket, stats } = instrumentedBucket(env.FILES, { delayMs: 20 });
    const files = Array.from({ length: 6 }, (_, index) => textFile(`p${index}.txt`, `parallel ${index}`));
    const data = await bulkOk(auth, filesForm(files), { FILES: bucket });
    expect(data.successful).toBe(6);
    expect(stats.puts).toBe(6);
    expect(stats.maxInFlight).toBeGreaterThan(1);
    expect(stats.maxInFlight).toBeLessThanOrEqual(3);
    await expectStored(
      keyId,
      data.results.map(successData).map((record) => record.id),
    );
  });
});
