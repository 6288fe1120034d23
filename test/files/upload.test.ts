import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { getRecord } from '../helpers/files';
import { fieldsFor, ISO_MS, type Success, type UploadRecord } from '../helpers/records';
import { type ApiVersion, api, expectError, readJson, VERSIONS } from '../helpers/responses';
import { blobsOf, expectNothingStored, rowCount } from '../helpers/storage';
import {
  fieldPart,
  filePartHeaders,
  form,
  PNG_1X1,
  postRaw,
  rawMultipart,
  TEST_BOUNDARY,
  upload,
  uploadOk,
} from '../helpers/upload';
import { call, createKey, ORIGIN } from '../helpers/worker';

// The seed's v1 upload fields; v2 adds isPublic.
const UPLOAD_FIELDS = ['downloadUrl', 'filename', 'id', 'mimeType', 'shareUrl', 'size', 'uploadedAt'];
const MIB = 1024 * 1024;
const bytes = (...values: number[]) => new Uint8Array(values);
const filled = (size: number, byte = 0x61) => new Uint8Array(size).fill(byte);

async function uploadFile(
  version: ApiVersion,
  auth: Record<string, string>,
  filename: string,
  type: string,
  content: BodyInit,
  envOverrides: Partial<Record<string, unknown>> = {},
) {
  return call(
    api(version, '/upload'),
    { method: 'POST', headers: auth, body: form([{ filename, type, content }]) },
    envOverrides,
  );
}

describe.each(VERSIONS)('POST /api/%s/upload', (version) => {
  describe('the stored record', () => {
    it(`answers 201 with exactly the ${version} upload fields${version === 'v1' ? ' and no isPublic' : ', isPublic true by default'}`, async () => {
      const { auth } = await createKey();
      // upload() reads the body with readJson: v2's _perf is checked there and left out of body.
      const { response, body } = await upload(version, auth, { filename: 'notes.txt', content: 'hello world' });
      expect(response.status).toBe(201);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(body).sort()).toEqual(['data', 'success']);
      expect(body.success).toBe(true);
      expect(Object.keys(body.data).sort()).toEqual(fieldsFor(version, UPLOAD_FIELDS));
      if (version === 'v1') expect(body.data).not.toHaveProperty('isPublic');
      else expect(body.data.isPublic).toBe(true);
      expect(body.data).toMatchObject({ size: 11, mimeType: 'text/plain' });
    });

    it('reports size as the byte length of the content, not its character count', async () => {
      const { auth } = await createKey();
      const file = await uploadOk(version, auth, { filename: 'accents.txt', content: 'héllo 日本' });
      expect(file.size).toBe(new TextEncoder().encode('héllo 日本').length);
    });

    it(`points downloadUrl at the ${version} download path and shareUrl at a separate share token`, async () => {
      const { auth } = await createKey();
      const file = await uploadOk(version, auth, { content: 'link me' });
      expect(file.downloadUrl).toBe(`${ORIGIN}/api/${version}/files/${file.id}/download`);
      const match = new RegExp(`^${ORIGIN.replaceAll('.', '\\.')}/share/([A-Za-z0-9_-]+)$`).exec(file.shareUrl);
      expect(match).not.toBeNull();
      const token = match?.[1] ?? '';
      expect(token).not.toBe(file.id);
      expect(token).not.toContain(file.id);
      // At least 128 random bits in base64url.
      expect(token.length).toBeGreaterThanOrEqual(22);
      const downloaded = await call(file.downloadUrl, { headers: auth });
      expect(downloaded.status).toBe(200);
      expect(await downloaded.text()).toBe('link me');
    });

    it('builds links from PUBLIC_BASE_URL and SITE_URL when they are configured', async () => {
      const { auth } = await createKey();
      const response = await uploadFile(version, auth, 'a.txt', 'text/plain', 'x', {
        PUBLIC_BASE_URL: 'https://api.example.com',
        SITE_URL: 'https://files.example.org',
      });
      expect(response.status).toBe(201);
      const { data } = await readJson<Success<UploadRecord>>(version, response);
      expect(data.downloadUrl).toBe(`https://api.example.com/api/${version}/files/${data.id}/download`);
      expect(data.shareUrl).toMatch(/^https:\/\/files\.example\.org\/share\/[A-Za-z0-9_-]{22,}$/);
    });

    it('gives each file a distinct URL-safe id of at least 96 random bits', async () => {
      const { auth } = await createKey();
      const ids = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const file = await uploadOk(version, auth, { content: 'same bytes' });
        expect(file.id).toMatch(/^[A-Za-z0-9_-]{16,}$/);
        ids.add(file.id);
      }
      expect(ids.size).toBe(3);
    });

    it('stores a safe, unique filename that keeps the extension and differs from the original name', async () => {
      const { auth } = await createKey();
      const first = await uploadOk(version, auth, { filename: 'My Report (final).txt', content: 'a' });
      const second = await uploadOk(version, auth, { filename: 'My Report (final).txt', content: 'b' });
      for (const file of [first, second]) {
        expect(file.filename).toMatch(/^[A-Za-z0-9._-]+$/);
        expect(file.filename.endsWith('.txt')).toBe(true);
        expect(file.filename).not.toBe('My Report (final).txt');
      }
      expect(first.filename).not.toBe(second.filename);
      const record = await getRecord(auth, first.id, version);
      expect(record.originalName).toBe('My Report (final).txt');
      expect(record.filename).toBe(first.filename);
    });

    it('stores a filename that differs from the original name even when the original is already safe', async () => {
      const { auth } = await createKey();
      const file = await uploadOk(version, auth, { filename: 'report.txt', content: 'a' });
      expect(file.filename).not.toBe('report.txt');
      expect(file.filename).toMatch(/^[A-Za-z0-9._-]+\.txt$/);
    });

    it('reports uploadedAt as ISO 8601 UTC with milliseconds, close to now', async () => {
      const { auth } = await createKey();
      const before = Date.now();
      const file = await uploadOk(version, auth, {});
      expect(file.uploadedAt).toMatch(ISO_MS);
      const at = Date.parse(file.uploadedAt);
      expect(at).toBeGreaterThanOrEqual(before - 1000);
      expect(at).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('stores the blob under files/<keyId>/<id> and a row for the key', async () => {
      const { id: keyId, auth } = await createKey();
      const file = await uploadOk(version, auth, { content: 'stored bytes' });
      const blobs = await blobsOf(keyId);
      expect(blobs.map((blob) => blob.key)).toEqual([`files/${keyId}/${file.id}`]);
      expect(blobs[0]?.size).toBe(12);
      expect(await rowCount(keyId)).toBe(1);
    });

    it('names the key that sent it in the blob’s metadata', async () => {
      const { id: keyId, auth } = await createKey();
      const file = await uploadOk(version, auth, { content: 'whose bytes' });
      const blob = await env.FILES.head(`files/${keyId}/${file.id}`);
      expect(blob?.customMetadata).toEqual({ keyId, fileId: file.id });
    });

    it('leaves expiresAt null when no expiresIn is given', async () => {
      const { auth } = await createKey();
      const file = await uploadOk(version, auth, {});
      expect((await getRecord(auth, file.id, version)).expiresAt).toBeNull();
    });

    it('sets expiresAt to uploadedAt plus expiresIn seconds', async () => {
      const { auth } = await createKey();
      const file = await uploadOk(version, auth, {}, { fields: { expiresIn: '3600' } });
      const record = await getRecord(auth, file.id, version);
      expect(record.expiresAt).toMatch(ISO_MS);
      expect(Date.parse(record.expiresAt ?? '') - Date.parse(record.uploadedAt)).toBe(3600 * 1000);
    });

    it('says expiresAt in the upload answer when the file expires, and leaves it out otherwise', async () => {
      const { auth } = await createKey();
      const expiring = await uploadOk(version, auth, {}, { fields: { expiresIn: '3600' } });
      const record = await getRecord(auth, expiring.id, version);
      expect((expiring as { expiresAt?: string }).expiresAt).toBe(record.expiresAt);
      expect(Date.parse(record.expiresAt ?? '') - Date.parse(expiring.uploadedAt)).toBe(3600 * 1000);
      const lasting = await uploadOk(version, auth, {});
      expect(lasting).not.toHaveProperty('expiresAt');
    });

    it('accepts expiresIn at both ends of its range (60 and 31536000)', async () => {
      const { auth } = await createKey();
      for (const seconds of [60, 31_536_000]) {
        const file = await uploadOk(version, auth, {}, { fields: { expiresIn: String(seconds) } });
        const record = await getRecord(auth, file.id, version);
        expect(Date.parse(record.expiresAt ?? '') - Date.parse(record.uploadedAt)).toBe(seconds * 1000);
      }
    });

    it('accepts a hand-built body with a preamble and fields before the file', async () => {
      const { auth } = await createKey();
      const body = rawMultipart([
        fieldPart('expiresIn', '120'),
        fieldPart('unrelated', 'ignored'),
        { headers: filePartHeaders('hand.txt', 'text/plain'), content: 'line one\r\nline two\r\n' },
      ]);
      const withPreamble = new Uint8Array([...new TextEncoder().encode('preamble to ignore\r\n'), ...body]);
      const response = await postRaw(auth, withPreamble, {}, {}, api(version, '/upload'));
      expect(response.status).toBe(201);
      const { data } = await readJson<Success<UploadRecord>>(version, response);
      expect(data.size).toBe(20);
      const record = await getRecord(auth, data.id, version);
      expect(record.originalName).toBe('hand.txt');
      expect(Date.parse(record.expiresAt ?? '') - Date.parse(record.uploadedAt)).toBe(120_000);
      const downloaded = await call(api(version, `/files/${data.id}/download`), { headers: auth });
      expect(await downloaded.text()).toBe('line one\r\nline two\r\n');
    });

    it('keeps content that contains near-matches of the boundary intact', async () => {
      const { auth } = await createKey();
      // Only CRLF + "--" + the whole boundary ends a part; everything else here is content.
      const tricky = `--${TEST_BOUNDARY}\r\n--${TEST_BOUNDARY.slice(0, -1)}Z\r\n\r\n-${TEST_BOUNDARY}\r\n--`;
      const response = await postRaw(
        auth,
        rawMultipart([{ headers: filePartHeaders('tricky.txt', 'text/plain'), content: tricky }]),
        {},
        {},
        api(version, '/upload'),
      );
      expect(response.status).toBe(201);
      const { data } = await readJson<Success<UploadRecord>>(version, response);
      const downloaded = await call(api(version, `/files/${data.id}/download`), { headers: auth });
      expect(await downloaded.text()).toBe(tricky);
    });

    it('reassembles a body that arrives in tiny chunks, with delimiters split across them', async () => {
      const { auth } = await createKey();
      const content = Uint8Array.from({ length: 3000 }, (_, i) => 0x20 + ((i * 7) % 90));
      const body = rawMultipart([
        fieldPart('expiresIn', '600'),
        { headers: filePartHeaders('chunks.txt', 'text/plain'), content },
      ]);
      let offset = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= body.length) return controller.close();
          controller.enqueue(body.slice(offset, offset + 7));
          offset += 7;
        },
      });
      const response = await postRaw(auth, stream, {}, {}, api(version, '/upload'));
      expect(response.status).toBe(201);
      const { data } = await readJson<Success<UploadRecord>>(version, response);
      expect(data.size).toBe(3000);
      const downloaded = await call(api(version, `/files/${data.id}/download`), { headers: auth });
      expect(new Uint8Array(await downloaded.arrayBuffer())).toEqual(content);
    });

    it('accepts an empty file', async () => {
      const { auth } = await createKey();
      const file = await uploadOk(version, auth, { filename: 'empty.txt', content: '' });
      expect(file.size).toBe(0);
      const downloaded = await call(api(version, `/files/${file.id}/download`), { headers: auth });
      expect(downloaded.status).toBe(200);
      expect(await downloaded.text()).toBe('');
    });
  });

  describe('malformed requests', () => {
    it('answers 400 VALIDATION_ERROR with details when the body is not multipart', async () => {
      const { id: keyId, auth } = await createKey();
      const response = await call(api(version, '/upload'), {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ file: 'hello' }),
      });
      const body = await expectError(response, 400, 'VALIDATION_ERROR', version);
      expect(body.details?.length).toBeGreaterThan(0);
      expect(body.details?.[0]).toEqual({ field: expect.any(String), message: expect.any(String) });
      await expectNothingStored(keyId);
    });

    it('answers 400 VALIDATION_ERROR for a urlencoded form and for a request with no body', async () => {
      const { auth } = await createKey();
      const urlencoded = await call(api(version, '/upload'), {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'file=hello',
      });
      await expectError(urlencoded, 400, 'VALIDATION_ERROR', version);
      const empty = await call(api(version, '/upload'), { method: 'POST', headers: auth });
      await expectError(empty, 400, 'VALIDATION_ERROR', version);
    });

    it('answers 400 VALIDATION_ERROR for multipart without a boundary parameter', async () => {
      const { auth } = await createKey();
      const body = rawMultipart([{ headers: filePartHeaders('a.txt', 'text/plain'), content: 'a' }]);
      const response = await postRaw(
        auth,
        body,
        { 'Content-Type': 'multipart/form-data' },
        {},
        api(version, '/upload'),
      );
      const error = await expectError(response, 400, 'VALIDATION_ERROR', version);
      expect(error.details?.length).toBeGreaterThan(0);
    });

    it('answers 400 VALIDATION_ERROR naming file when the file part is missing', async () => {
      const { id: keyId, auth } = await createKey();
      const response = await postRaw(
        auth,
        rawMultipart([fieldPart('expiresIn', '3600')]),
        {},
        {},
        api(version, '/upload'),
      );
      const body = await expectError(response, 400, 'VALIDATION_ERROR', version);
      expect(body.details?.map((detail) => detail.field)).toContain('file');
      await expectNothingStored(keyId);
    });

    it('answers 400 VALIDATION_ERROR for a multipart body with no parts at all', async () => {
      const { auth } = await createKey();
      const response = await postRaw(auth, `--${TEST_BOUNDARY}--\r\n`, {}, {}, api(version, '/upload'));
      const body = await expectError(response, 400, 'VALIDATION_ERROR', version);
      expect(body.details?.map((detail) => detail.field)).toContain('file');
    });

    it('answers 400 VALIDATION_ERROR when file is a text field instead of a file', async () => {
      const { id: keyId, auth } = await createKey();
      const data = new FormData();
      data.append('file', 'just some text');
      const response = await call(api(version, '/upload'), { method: 'POST', headers: auth, body: data });
      const body = await expectError(response, 400, 'VALIDATION_ERROR', version);
      expect(body.details?.map((detail) => detail.field)).toContain('file');
      await expectNothingStored(keyId);
    });

    it('answers 400 VALIDATION_ERROR for a file input left empty (filename="")', async () => {
      const { id: keyId, auth } = await createKey();
      const response = await postRaw(
        auth,
        rawMultipart([{ headers: filePartHeaders('', 'application/octet-stream'), content: '' }]),
        {},
        {},
        api(version, '/upload'),
      );
      const body = await expectError(response, 400, 'VALIDATION_ERROR', version);
      expect(body.details?.map((detail) => detail.field)).toContain('file');
      await expectNothingStored(keyId);
    });

    it('answers 400 VALIDATION_ERROR for two file parts and keeps neither', async () => {
      const { id: keyId, auth } = await createKey();
      const response = await call(api(version, '/upload'), {
        method: 'POST',
        headers: auth,
        body: form([
          { filename: 'one.txt', type: 'text/plain', content: 'one' },
          { filename: 'two.txt', type: 'text/plain', content: 'two' },
        ]),
      });
      const body = await expectError(response, 400, 'VALIDATION_ERROR', version);
      expect(body.details?.map((detail) => detail.field)).toContain('file');
      await expectNothingStored(keyId);
    });

    it('answers 400, never 500, for a body cut off inside the file part, and keeps nothing', async () => {
      const { id: keyId, auth } = await createKey();
      const whole = rawMultipart([{ headers: filePartHeaders('cut.txt', 'text/plain'), content: 'x'.repeat(5000) }], {
        end: false,
      });
      const response = await postRaw(auth, whole.subarray(0, whole.length - 1000), {}, {}, api(version, '/upload'));
      await expectError(response, 400, 'VALIDATION_ERROR', version);
      await expectNothingStored(keyId);
    });

    it('answers 400, never 500, for a body cut off inside the part headers', async () => {
      const { id: keyId, auth } = await createKey();
      const response = await postRaw(
        auth,
        `--${TEST_BOUNDARY}\r\nContent-Disposition: form-data; name="fi`,
        {},
        {},
        api(version, '/upload'),
      );
      await expectError(response, 400, 'VALIDATION_ERROR', version);
      await expectNothingStored(keyId);
    });

    it('answers 400, never 500, for a body that never contains the boundary', async () => {
      const { auth } = await createKey();
      const response = await postRaw(
        auth,
        'this is not multipart at all\r\n'.repeat(100),
        {},
        {},
        api(version, '/upload'),
      );
      await expectError(response, 400, 'VALIDATION_ERROR', version);
    });

    it('answers 400, never 500, for a part without Content-Disposition', async () => {
      const { auth } = await createKey();
      const response = await postRaw(
        auth,
        rawMultipart([{ headers: ['Content-Type: text/plain'], content: 'hello' }]),
        {},
        {},
        api(version, '/upload'),
      );
      await expectError(response, 400, 'VALIDATION_ERROR', version);
    });

    it('answers 400, never 500, for a boundary line followed by garbage instead of CRLF', async () => {
      const { auth } = await createKey();
      const response = await postRaw(
        auth,
        `--${TEST_BOUNDARY}garbage\r\nContent-Disposition: form-data; name="file"\r\n\r\nx`,
        {},
        {},
        api(version, '/upload'),
      );
      await expectError(response, 400, 'VALIDATION_ERROR', version);
    });

    it.each(['abc', '10', '59', '99999999999', '-60', '3600.5', '1e4'])(
      'answers 400 VALIDATION_ERROR naming expiresIn for expiresIn=%j, and keeps nothing',
      async (value) => {
        const { id: keyId, auth } = await createKey();
        const { response, body } = await upload(version, auth, { content: 'x' }, { fields: { expiresIn: value } });
        expect(response.status).toBe(400);
        expect(body.code).toBe('VALIDATION_ERROR');
        expect(body.details.map((detail: { field: string }) => detail.field)).toContain('expiresIn');
        await expectNothingStored(keyId);
      },
    );

    it('answers 400 VALIDATION_ERROR when expiresIn comes after the file and is bad, and removes the stored blob', async () => {
      const { id: keyId, auth } = await createKey();
      const body = rawMultipart([
        { headers: filePartHeaders('late.txt', 'text/plain'), content: 'late field' },
        fieldPart('expiresIn', 'soon'),
      ]);
      await expectError(await postRaw(auth, body, {}, {}, api(version, '/upload')), 400, 'VALIDATION_ERROR', version);
      await expectNothingStored(keyId);
    });
  });

  describe('size limits', () => {
    it('answers 413 FILE_TOO_LARGE from a Content-Length over MAX_FILE_SIZE, before reading the body', async () => {
      const { id: keyId, auth } = await createKey();
      const body = rawMultipart([{ headers: filePartHeaders('big.txt', 'text/plain'), content: 'small' }]);
      const response = await postRaw(
        auth,
        body,
        { 'Content-Length': String(5 * 1024 * MIB + MIB) },
        {},
        api(version, '/upload'),
      );
      await expectError(response, 413, 'FILE_TOO_LARGE', version);
      await expectNothingStored(keyId);
    });

    it('answers 413 FILE_TOO_LARGE from Content-Length against a configured MAX_FILE_SIZE', async () => {
      const { id: keyId, auth } = await createKey();
      const content = filled(200_000);
      const body = rawMultipart([{ headers: filePartHeaders('big.txt', 'text/plain'), content }]);
      const response = await postRaw(
        auth,
        body,
        { 'Content-Length': String(body.length) },
        { MAX_FILE_SIZE: '1000' },
        api(version, '/upload'),
      );
      await expectError(response, 413, 'FILE_TOO_LARGE', version);
      await expectNothingStored(keyId);
    });

    it('enforces MAX_FILE_SIZE while streaming when no Content-Length is sent, keeping nothing', async () => {
      const { id: keyId, auth } = await createKey();
      const response = await uploadFile(version, auth, 'big.txt', 'text/plain', filled(1001), {
        MAX_FILE_SIZE: '1000',
      });
      await expectError(response, 413, 'FILE_TOO_LARGE', version);
      await expectNothingStored(keyId);
    });

    it('accepts a file of exactly MAX_FILE_SIZE bytes', async () => {
      const { auth } = await createKey();
      const response = await uploadFile(version, auth, 'exact.txt', 'text/plain', filled(1000), {
        MAX_FILE_SIZE: '1000',
      });
      expect(response.status).toBe(201);
      expect((await readJson<Success<UploadRecord>>(version, response)).data.size).toBe(1000);
    });

    it('aborts a multipart R2 upload that grows past MAX_FILE_SIZE, keeping nothing', async () => {
      const { id: keyId, auth } = await createKey();
      // Past one 8 MiB part, so the R2 multipart upload has started when the limit is hit.
      const response = await uploadFile(version, auth, 'big.txt', 'text/plain', filled(10 * MIB), {
        MAX_FILE_SIZE: String(9 * MIB),
      });
      await expectError(response, 413, 'FILE_TOO_LARGE', version);
      await expectNothingStored(keyId);
    });
  });

  describe('file types', () => {
    const ELF = bytes(0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x00, 0x3e, 0x00);
    const MZ = new Uint8Array([...new TextEncoder().encode('MZ'), 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00]);

    it('keeps image/png for PNG bytes declared as image/png', async () => {
      const { auth } = await createKey();
      const response = await uploadFile(version, auth, 'pixel.png', 'image/png', PNG_1X1);
      expect(response.status).toBe(201);
      const { data } = await readJson<Success<UploadRecord>>(version, response);
      expect(data.mimeType).toBe('image/png');
      expect(data.size).toBe(PNG_1X1.length);
      expect(data.filename.endsWith('.png')).toBe(true);
    });

    it('stores the bare media type when the declared type carries parameters', async () => {
      const { auth } = await createKey();
      const response = await uploadFile(version, auth, 'notes.txt', 'text/plain; charset=utf-8', 'words');
      expect(response.status).toBe(201);
      expect((await readJson<Success<UploadRecord>>(version, response)).data.mimeType).toBe('text/plain');
    });

    it('detects image/png from the bytes when the declared type is application/octet-stream', async () => {
      const { auth } = await createKey();
      const response = await uploadFile(version, auth, 'pixel.bin', 'application/octet-stream', PNG_1X1);
      expect(response.status).toBe(201);
      const { data } = await readJson<Success<UploadRecord>>(version, response);
      expect(data.mimeType).toBe('image/png');
      const downloaded = await call(api(version, `/files/${data.id}/download`), { headers: auth });
      expect(downloaded.headers.get('content-type')).toBe('image/png');
    });

    it('detects image/png from the bytes when the part has no Content-Type at all', async () => {
      const { auth } = await createKey();
      const response = await postRaw(
        auth,
        rawMultipart([{ headers: filePartHeaders('pixel'), content: PNG_1X1 }]),
        {},
        {},
        api(version, '/upload'),
      );
      expect(response.status).toBe(201);
      expect((await readJson<Success<UploadRecord>>(version, response)).data.mimeType).toBe('image/png');
    });

    it('answers 415 INVALID_FILE_TYPE for HTML declared as image/png, keeping nothing', async () => {
      const { id: keyId, auth } = await createKey();
      const html = '<!DOCTYPE html><html><body><script>alert(1)</script></body></html>';
      await expectError(
        await uploadFile(version, auth, 'cat.png', 'image/png', html),
        415,
        'INVALID_FILE_TYPE',
        version,
      );
      await expectNothingStored(keyId);
    });

    it('answers 415 INVALID_FILE_TYPE for PNG bytes declared as image/jpeg', async () => {
      const { auth } = await createKey();
      await expectError(
        await uploadFile(version, auth, 'photo.jpg', 'image/jpeg', PNG_1X1),
        415,
        'INVALID_FILE_TYPE',
        version,
      );
    });

    it('answers 415 INVALID_FILE_TYPE for plain text declared as image/jpeg', async () => {
      const { id: keyId, auth } = await createKey();
      const response = await uploadFile(version, auth, 'photo.jpg', 'image/jpeg', 'definitely not a jpeg, just words');
      await expectError(response, 415, 'INVALID_FILE_TYPE', version);
      await expectNothingStored(keyId);
    });

    it.each([
      ['an ELF executable', 'tool', 'application/octet-stream', ELF],
      ['an ELF executable declared as a PDF', 'paper.pdf', 'application/pdf', ELF],
      ['an MZ executable', 'setup.exe', 'application/octet-stream', MZ],
      ['an MZ executable declared as plain text', 'readme.txt', 'text/plain', MZ],
    ])('answers 415 INVALID_FILE_TYPE for %s, keeping nothing', async (_label, filename, type, content) => {
      const { id: keyId, auth } = await createKey();
      await expectError(await uploadFile(version, auth, filename, type, content), 415, 'INVALID_FILE_TYPE', version);
      await expectNothingStored(keyId);
    });

    it.each([['text/javascript'], ['application/javascript'], ['application/octet-stream'], ['text/plain']])(
      'answers 415 INVALID_FILE_TYPE for a .js script declared as %s',
      async (type) => {
        const { id: keyId, auth } = await createKey();
        const response = await uploadFile(version, auth, 'app.js', type, 'document.cookie = "stolen"; console.log(1);');
        await expectError(response, 415, 'INVALID_FILE_TYPE', version);
        await expectNothingStored(keyId);
      },
    );

    it.each([
      ['run.bat', 'text/plain'],
      ['run.cmd', 'application/octet-stream'],
      ['invoice.exe', 'text/plain'],
      ['deploy.sh', 'text/plain'],
      ['index.php', 'text/plain'],
    ])('answers 415 INVALID_FILE_TYPE for a script or program named %s, declared as %s', async (filename, type) => {
      const { id: keyId, auth } = await createKey();
      await expectError(
        await uploadFile(version, auth, filename, type, 'echo harmless looking text'),
        415,
        'INVALID_FILE_TYPE',
        version,
      );
      await expectNothingStored(keyId);
    });

    it('answers 415 INVALID_FILE_TYPE for a shell script recognised by its #! line', async () => {
      const { auth } = await createKey();
      const response = await uploadFile(version, auth, 'notes.txt', 'text/plain', '#!/bin/sh\nrm -rf /\n');
      await expectError(response, 415, 'INVALID_FILE_TYPE', version);
    });

    it('answers 415 INVALID_FILE_TYPE for a text file when ALLOWED_FILE_TYPES is image/*', async () => {
      const { id: keyId, auth } = await createKey();
      const response = await uploadFile(version, auth, 'notes.txt', 'text/plain', 'plain words', {
        ALLOWED_FILE_TYPES: 'image/*',
      });
      await expectError(response, 415, 'INVALID_FILE_TYPE', version);
      await expectNothingStored(keyId);
    });

    it('accepts a PNG when ALLOWED_FILE_TYPES is image/*', async () => {
      const { auth } = await createKey();
      const response = await uploadFile(version, auth, 'pixel.png', 'image/png', PNG_1X1, {
        ALLOWED_FILE_TYPES: 'image/*',
      });
      expect(response.status).toBe(201);
      expect((await readJson<Success<UploadRecord>>(version, response)).data.mimeType).toBe('image/png');
    });

    it('accepts plain text and a PDF under the default policy', async () => {
      const { auth } = await createKey();
      const text = await uploadFile(version, auth, 'notes.txt', 'text/plain', 'words');
      expect(text.status).toBe(201);
      expect((await readJson<Success<UploadRecord>>(version, text)).data.mimeType).toBe('text/plain');
      const pdf = await uploadFile(
        version,
        auth,
        'paper.pdf',
        'application/octet-stream',
        '%PDF-1.7\n1 0 obj\n<<>>\nendobj\n',
      );
      expect(pdf.status).toBe(201);
      expect((await readJson<Success<UploadRecord>>(version, pdf)).data.mimeType).toBe('application/pdf');
    });
  });
});
