import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { type ErrorBody, type FileRecord, GET_FIELDS, ISO_MS, recordFieldsFor, type Success } from '../helpers/records';
import { api, expectError, readJson, VERSIONS } from '../helpers/responses';
import { blobsOf, rowCount } from '../helpers/storage';
import { uploadOk } from '../helpers/upload';
import { call, createKey, ORIGIN } from '../helpers/worker';

const shareToken = (shareUrl: string) => new URL(shareUrl).pathname.split('/').pop() ?? '';
const withoutRequestId = ({ requestId: _ignored, ...rest }: ErrorBody) => rest;

// Well-formed (22 base64url characters) but never issued.
const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const MALFORMED_IDS = [
  'bulk',
  '..%2Fx',
  '..%2F..%2Fetc%2Fpasswd',
  'a'.repeat(5000),
  "x'%20OR%201=1%20--",
  '%00',
  'download',
];

describe.each(VERSIONS)('%s', (version) => {
  describe('GET /files/:id', () => {
    it(`answers 200 with the seed get fields (plus originalName${version === 'v2' ? ' and isPublic' : ''}) matching the upload`, async () => {
      const { auth } = await createKey();
      const uploaded = await uploadOk(version, auth, { filename: 'notes.txt', content: 'twelve bytes' });
      const response = await call(api(version, `/files/${uploaded.id}`), { headers: auth });
      expect(response.status).toBe(200);
      const body = await readJson<Success<FileRecord>>(version, response);
      expect(Object.keys(body).sort()).toEqual(['data', 'success']);
      expect(body.success).toBe(true);
      const keys = Object.keys(body.data).filter((key) => key !== 'originalName');
      expect(keys.sort()).toEqual(recordFieldsFor(version, GET_FIELDS));
      expect(body.data.downloadUrl).toBe(`${ORIGIN}/api/${version}/files/${uploaded.id}/download`);
      if (version === 'v2') expect(body.data.isPublic).toBe(true);
      expect(body.data).toMatchObject({
        id: uploaded.id,
        filename: uploaded.filename,
        size: 12,
        mimeType: 'text/plain',
        downloadUrl: uploaded.downloadUrl,
        shareUrl: uploaded.shareUrl,
        downloadCount: 0,
        uploadedAt: uploaded.uploadedAt,
        expiresAt: null,
      });
      expect(body.data.updatedAt).toMatch(ISO_MS);
      if ('originalName' in body.data) expect(body.data.originalName).toBe('notes.txt');
    });

    it('answers 404 FILE_NOT_FOUND for an unknown id', async () => {
      const { auth } = await createKey();
      await expectError(
        await call(api(version, `/files/${UNKNOWN_ID}`), { headers: auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
    });

    // In v2, /files/bulk is the bulk-delete path (GET there is 405, see bulk-delete.test.ts).
    const malformed = version === 'v2' ? MALFORMED_IDS.filter((id) => id !== 'bulk') : MALFORMED_IDS;
    it.each(malformed.map((id) => [id.length > 40 ? `${id.slice(0, 20)}… (${id.length} chars)` : id, id]))(
      'answers 404 FILE_NOT_FOUND for the malformed id %s, on GET and download',
      async (_label, id) => {
        const { auth } = await createKey();
        await expectError(await call(api(version, `/files/${id}`), { headers: auth }), 404, 'FILE_NOT_FOUND', version);
        await expectError(
          await call(api(version, `/files/${id}/download`), { headers: auth }),
          404,
          'FILE_NOT_FOUND',
          version,
        );
      },
    );

    it('answers a malformed id exactly like an unknown one', async () => {
      const { auth } = await createKey();
      const unknown = await expectError(
        await call(api(version, `/files/${UNKNOWN_ID}`), { headers: auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
      const malformed = await expectError(
        await call(api(version, '/files/..%2Fx'), { headers: auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
      expect(withoutRequestId(malformed)).toEqual(withoutRequestId(unknown));
    });

    it('answers 404 FILE_NOT_FOUND once a file has expired, before any cleanup runs', async () => {
      const { id: keyId, auth } = await createKey();
      const file = await uploadOk(version, auth, {}, { fields: { expiresIn: '60' } });
      await env.DB.prepare('UPDATE files SET expires_at = ?1 WHERE id = ?2')
        .bind(new Date(Date.now() - 1).toISOString(), file.id)
        .run();
      expect(await rowCount(keyId)).toBe(1);
      await expectError(
        await call(api(version, `/files/${file.id}`), { headers: auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
      await expectError(
        await call(api(version, `/files/${file.id}/download`), { headers: auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
    });

    it('answers 405 METHOD_NOT_ALLOWED with an Allow header for an unsupported method on a file', async () => {
      const { auth } = await createKey();
      const file = await uploadOk(version, auth, {});
      const response = await call(api(version, `/files/${file.id}`), { method: 'PUT', headers: auth, body: 'x' });
      await expectError(response, 405, 'METHOD_NOT_ALLOWED', version);
      expect(response.headers.get('allow')).toContain('DELETE');
    });
  });

  describe('DELETE /files/:id', () => {
    it('answers 200 with exactly {success: true, data: {message}}', async () => {
      const { auth } = await createKey();
      const file = await uploadOk(version, auth, {});
      const response = await call(api(version, `/files/${file.id}`), { method: 'DELETE', headers: auth });
      expect(response.status).toBe(200);
      const body = await readJson<Success<{ message: string }>>(version, response);
      expect(Object.keys(body).sort()).toEqual(['data', 'success']);
      expect(body.success).toBe(true);
      expect(Object.keys(body.data)).toEqual(['message']);
      expect(typeof body.data.message).toBe('string');
      expect(body.data.message.length).toBeGreaterThan(0);
    });

    it('removes the file for good: record, download, blob, row and share link', async () => {
      const { id: keyId, auth } = await createKey();
      const file = await uploadOk(version, auth, { content: 'to be deleted' });
      const token = shareToken(file.shareUrl);
      // Everything works before the delete, so the 404s below are the delete's doing.
      const shared = await call(`/share/${token}/download`);
      expect(shared.status).toBe(200);
      expect(await shared.text()).toBe('to be deleted');
      expect(await blobsOf(keyId)).toHaveLength(1);

      expect((await call(api(version, `/files/${file.id}`), { method: 'DELETE', headers: auth })).status).toBe(200);

      await expectError(
        await call(api(version, `/files/${file.id}`), { headers: auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
      await expectError(
        await call(api(version, `/files/${file.id}/download`), { headers: auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
      const head = await call(api(version, `/files/${file.id}/download`), { method: 'HEAD', headers: auth });
      expect(head.status).toBe(404);
      expect(await env.FILES.head(`files/${keyId}/${file.id}`)).toBeNull();
      expect(await blobsOf(keyId)).toEqual([]);
      expect(await rowCount(keyId)).toBe(0);
      const list = await readJson<Success<{ files: FileRecord[]; pagination: { total: number } }>>(
        version,
        await call(api(version, '/files'), { headers: auth }),
      );
      expect(list.data.files).toEqual([]);
      expect(list.data.pagination.total).toBe(0);
      expect((await call(`/share/${token}/download`)).status).toBe(404);
      expect((await call(`/share/${token}`)).status).toBe(404);
    });

    it('answers 404 FILE_NOT_FOUND when the same file is deleted twice', async () => {
      const { auth } = await createKey();
      const file = await uploadOk(version, auth, {});
      expect((await call(api(version, `/files/${file.id}`), { method: 'DELETE', headers: auth })).status).toBe(200);
      await expectError(
        await call(api(version, `/files/${file.id}`), { method: 'DELETE', headers: auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
    });

    it('answers 404 FILE_NOT_FOUND for unknown and malformed ids', async () => {
      const { auth } = await createKey();
      // In v2, DELETE /files/bulk is the bulk delete endpoint, so 'bulk' is only a malformed id in v1.
      const ids = [UNKNOWN_ID, ...(version === 'v1' ? ['bulk'] : []), '..%2Fx', 'a'.repeat(5000)];
      for (const id of ids) {
        await expectError(
          await call(api(version, `/files/${id}`), { method: 'DELETE', headers: auth }),
          404,
          'FILE_NOT_FOUND',
          version,
        );
      }
    });

    it("leaves the key's other files untouched", async () => {
      const { id: keyId, auth } = await createKey();
      const doomed = await uploadOk(version, auth, { content: 'doomed' });
      const kept = await uploadOk(version, auth, { content: 'kept' });
      expect((await call(api(version, `/files/${doomed.id}`), { method: 'DELETE', headers: auth })).status).toBe(200);
      const download = await call(api(version, `/files/${kept.id}/download`), { headers: auth });
      expect(download.status).toBe(200);
      expect(await download.text()).toBe('kept');
      expect((await blobsOf(keyId)).map((blob) => blob.key)).toEqual([`files/${keyId}/${kept.id}`]);
      expect(await rowCount(keyId)).toBe(1);
    });
  });
});
