import { describe, expect, it } from 'vitest';
import { getRecord } from '../helpers/files';
import type { ErrorBody, FileRecord, Pagination, Success } from '../helpers/records';
import { type ApiVersion, api, expectError, readJson, VERSIONS } from '../helpers/responses';
import { blobsOf } from '../helpers/storage';
import { form, uploadOk } from '../helpers/upload';
import { call, createKey, revokeKeyInDb } from '../helpers/worker';

const UNAUTHORIZED = { error: 'Invalid or inactive API key', code: 'UNAUTHORIZED' };
const withoutRequestId = ({ requestId: _ignored, ...rest }: ErrorBody) => rest;

async function twoKeysAndAFile(version: ApiVersion) {
  const a = await createKey('owner');
  const b = await createKey('intruder');
  const file = await uploadOk(version, a.auth, { filename: 'secret.txt', content: 'only for A' });
  return { a, b, file };
}

async function listIds(version: ApiVersion, auth: Record<string, string>) {
  const response = await call(api(version, '/files?limit=100'), { headers: auth });
  expect(response.status).toBe(200);
  const { data } = await readJson<Success<{ files: FileRecord[]; pagination: Pagination }>>(version, response);
  return { ids: data.files.map((file) => file.id), total: data.pagination.total };
}

/**
 * Asserts the one 401 answer: a Bearer challenge and the exact body, requestId aside and, in v2,
 * `_perf` aside (readJson checks it is there, and that v1 has none).
 */
async function expectUnauthorized(version: ApiVersion, response: Response) {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer');
  const body = await readJson<ErrorBody>(version, response);
  expect(
    Object.keys(body)
      .filter((key) => key !== 'requestId')
      .sort(),
  ).toEqual(['code', 'error']);
  expect(withoutRequestId(body)).toEqual(UNAUTHORIZED);
  return body;
}

describe.each(VERSIONS)('%s', (version) => {
  describe('isolation between keys', () => {
    it("answers 404 FILE_NOT_FOUND for another key's file, exactly like an unknown id", async () => {
      const { b, file } = await twoKeysAndAFile(version);
      const foreign = await expectError(
        await call(api(version, `/files/${file.id}`), { headers: b.auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
      const unknown = await expectError(
        await call(api(version, '/files/AAAAAAAAAAAAAAAAAAAAAA'), { headers: b.auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
      expect(withoutRequestId(foreign)).toEqual(withoutRequestId(unknown));
    });

    it("answers 404 FILE_NOT_FOUND for a download of another key's file, ranged or not, and does not count it", async () => {
      const { a, b, file } = await twoKeysAndAFile(version);
      const path = api(version, `/files/${file.id}/download`);
      await expectError(await call(path, { headers: b.auth }), 404, 'FILE_NOT_FOUND', version);
      await expectError(
        await call(path, { headers: { ...b.auth, Range: 'bytes=0-1' } }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
      const head = await call(path, { method: 'HEAD', headers: b.auth });
      expect(head.status).toBe(404);
      expect(head.headers.get('content-disposition')).toBeNull();
      expect(await head.text()).toBe('');
      expect((await getRecord(a.auth, file.id, version)).downloadCount).toBe(0);
    });

    it("answers 404 FILE_NOT_FOUND to a delete of another key's file and leaves it in place", async () => {
      const { a, b, file } = await twoKeysAndAFile(version);
      await expectError(
        await call(api(version, `/files/${file.id}`), { method: 'DELETE', headers: b.auth }),
        404,
        'FILE_NOT_FOUND',
        version,
      );
      const record = await getRecord(a.auth, file.id, version);
      expect(record.id).toBe(file.id);
      const download = await call(api(version, `/files/${file.id}/download`), { headers: a.auth });
      expect(download.status).toBe(200);
      expect(await download.text()).toBe('only for A');
      expect((await blobsOf(a.id)).map((blob) => blob.key)).toEqual([`files/${a.id}/${file.id}`]);
    });

    it("lists only the caller's own files", async () => {
      const { a, b, file } = await twoKeysAndAFile(version);
      const own = await uploadOk(version, b.auth, { content: 'B owns this' });
      const forB = await listIds(version, b.auth);
      expect(forB.ids).toEqual([own.id]);
      expect(forB.total).toBe(1);
      const forA = await listIds(version, a.auth);
      expect(forA.ids).toEqual([file.id]);
      expect(forA.total).toBe(1);
    });

    it("stores each key's blobs under its own prefix", async () => {
      const { a, b, file } = await twoKeysAndAFile(version);
      const own = await uploadOk(version, b.auth, {});
      expect((await blobsOf(a.id)).map((blob) => blob.key)).toEqual([`files/${a.id}/${file.id}`]);
      expect((await blobsOf(b.id)).map((blob) => blob.key)).toEqual([`files/${b.id}/${own.id}`]);
    });
  });

  describe('authentication', () => {
    const unknownWellFormed = `esk_${'A'.repeat(43)}`;

    it.each([
      ['no Authorization header', undefined],
      ['a Basic scheme', 'Basic dXNlcjpwYXNz'],
      ['a Bearer scheme with no token', 'Bearer '],
      ['a Bearer token that is not a key', 'Bearer garbage'],
      ['a well-formed but unknown esk_ key', `Bearer ${unknownWellFormed}`],
      ['a known key with trailing junk', 'KNOWN_WITH_JUNK'],
    ])('answers 401 UNAUTHORIZED with WWW-Authenticate: Bearer for %s', async (_label, header) => {
      const known = await createKey();
      const value = header === 'KNOWN_WITH_JUNK' ? `Bearer ${known.key}x!` : header;
      const headers: Record<string, string> = value === undefined ? {} : { Authorization: value };
      await expectUnauthorized(version, await call(api(version, '/files'), { headers }));
    });

    it('answers 401 for a revoked key that worked a moment before, on every files endpoint', async () => {
      const { id, auth } = await createKey();
      const file = await uploadOk(version, auth, {});
      expect((await call(api(version, '/files'), { headers: auth })).status).toBe(200);
      await revokeKeyInDb(id);
      await expectUnauthorized(version, await call(api(version, '/files'), { headers: auth }));
      await expectUnauthorized(version, await call(api(version, `/files/${file.id}`), { headers: auth }));
      await expectUnauthorized(version, await call(api(version, `/files/${file.id}/download`), { headers: auth }));
      await expectUnauthorized(
        version,
        await call(api(version, `/files/${file.id}`), { method: 'DELETE', headers: auth }),
      );
      const uploadBody = form([{ filename: 'late.txt', type: 'text/plain', content: 'x' }]);
      await expectUnauthorized(
        version,
        await call(api(version, '/upload'), { method: 'POST', headers: auth, body: uploadBody }),
      );
      // The revoked key's file is untouched, merely unreachable.
      expect(await blobsOf(id)).toHaveLength(1);
    });

    it('gives the same body for every kind of bad key, so none can be told apart', async () => {
      const revoked = await createKey();
      await revokeKeyInDb(revoked.id);
      const headers: Record<string, string>[] = [
        {},
        { Authorization: 'Basic dXNlcjpwYXNz' },
        { Authorization: 'Bearer garbage' },
        { Authorization: `Bearer ${unknownWellFormed}` },
        revoked.auth,
      ];
      const bodies: Omit<ErrorBody, 'requestId'>[] = [];
      for (const h of headers)
        bodies.push(
          withoutRequestId(await expectUnauthorized(version, await call(api(version, '/files'), { headers: h }))),
        );
      for (const body of bodies) expect(body).toEqual(bodies[0]);
    });

    it('checks the key before reading an upload body', async () => {
      const response = await call(api(version, '/upload'), {
        method: 'POST',
        headers: { Authorization: 'Bearer garbage', 'Content-Type': 'application/json' },
        body: 'not even multipart',
      });
      await expectUnauthorized(version, response);
    });
  });

  describe('rate limits', () => {
    it("answers 429 RATE_LIMITED with Retry-After once the key's own limit is used up", async () => {
      const { auth } = await createKey('tight', { rateLimitRequests: 1, rateLimitWindowSeconds: 3600 });
      const allowed = await call(api(version, '/files'), { headers: auth });
      expect(allowed.status).toBe(200);
      await readJson(version, allowed);
      const refused = await call(api(version, '/files'), { headers: auth });
      await expectError(refused, 429, 'RATE_LIMITED', version);
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    });
  });
});
