// Limits and accounting for tus uploads: MAX_FILE_SIZE and the quota at creation, the length
// reserved until the upload ends, uploads of another key, and how the rate limit counts them.
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { rateHeaders, unreachableLimiter } from '../helpers/rate-limits';
import { expectError } from '../helpers/responses';
import { blobsOf, rowCount } from '../helpers/storage';
import {
  binaryBytes,
  created,
  createUpload,
  head,
  leaseHeld,
  MIB,
  newKey,
  OCTETS,
  offsetOf,
  patch,
  patchOk,
  pausedBody,
  stateOf,
  TUS,
  terminate,
  uploadAll,
  uploadStub,
  usage,
} from '../helpers/tus';
import { form, upload } from '../helpers/upload';
import { call, createKey, revokeKeyInDb } from '../helpers/worker';

const text = (value: string) => new TextEncoder().encode(value);

describe('limits at creation, before any byte', () => {
  it('answers 413 FILE_TOO_LARGE for an Upload-Length over MAX_FILE_SIZE, naming the limit', async () => {
    const { id: keyId, auth } = await newKey('too large');
    const { response } = await createUpload(auth, 1001, { filename: 'a.bin' }, { env: { MAX_FILE_SIZE: '1000' } });
    const body = await expectError(response, 413, 'FILE_TOO_LARGE');
    expect(body.error).toContain('1000 bytes');
    expect(await usage(keyId)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
  });

  it('accepts an Upload-Length of exactly MAX_FILE_SIZE', async () => {
    const { auth } = await newKey('exact size');
    const { response } = await createUpload(auth, 1000, { filename: 'a.bin' }, { env: { MAX_FILE_SIZE: '1000' } });
    expect(response.status).toBe(201);
  });

  it('answers 413 STORAGE_EXCEEDED for an Upload-Length over the key’s quota, naming the limit', async () => {
    const { id: keyId, auth } = await newKey('over quota', { quota: 1000 });
    const { response } = await createUpload(auth, 1001, { filename: 'a.bin' });
    const body = await expectError(response, 413, 'STORAGE_EXCEEDED');
    expect(body.error).toContain('1000 bytes');
    expect(await usage(keyId)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
  });

  it.each([
    ['metadata that is not Base64', 'filename not-base64!'],
    ['a runnable name', `filename ${btoa('setup.exe')}`],
    ['a bad expiresIn', `filename ${btoa('a.txt')},expiresIn ${btoa('5')}`],
  ])(
    'checks size and quota (413) before %s, and a metadata refusal gives the reservation back',
    async (_name, meta) => {
      const { id: keyId, auth } = await newKey('413 first', { quota: 1000 });
      const tooLarge = await createUpload(
        auth,
        1001,
        {},
        { headers: { 'Upload-Metadata': meta }, env: { MAX_FILE_SIZE: '1000' } },
      );
      await expectError(tooLarge.response, 413, 'FILE_TOO_LARGE');
      const overQuota = await createUpload(auth, 1001, {}, { headers: { 'Upload-Metadata': meta } });
      await expectError(overQuota.response, 413, 'STORAGE_EXCEEDED');
      const fits = await createUpload(auth, 500, {}, { headers: { 'Upload-Metadata': meta } });
      expect([400, 415]).toContain(fits.response.status);
      expect(await usage(keyId)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
    },
  );

  it('answers 413 STORAGE_EXCEEDED when the key is at its file limit', async () => {
    const { auth } = await createKey('file limit', { maxFiles: 1, rateLimitRequests: 1000 });
    await patchOk(auth, (await created(auth, 3, { filename: 'a.txt' })).path, 0, text('abc'));
    const { response } = await createUpload(auth, 3, { filename: 'b.txt' });
    await expectError(response, 413, 'STORAGE_EXCEEDED');
  });
});

describe('the reservation', () => {
  it('holds the length against other uploads until the upload ends, then gives it back', async () => {
    const { id: keyId, auth } = await newKey('reserved', { quota: 1000 });
    const { path } = await created(auth, 800, { filename: 'big.txt' });
    expect(await usage(keyId)).toEqual({ usedBytes: 0, files: 0, heldBytes: 800, heldFiles: 1 });

    // Neither a single-request upload nor another tus upload may take the reserved room.
    const single = await upload('v1', auth, { filename: 'small.txt', content: 'x'.repeat(300) });
    expect([single.response.status, single.body.code]).toEqual([413, 'STORAGE_EXCEEDED']);
    await expectError((await createUpload(auth, 300, { filename: 'c.txt' })).response, 413, 'STORAGE_EXCEEDED');
    // What is left beside it still fits.
    expect((await upload('v1', auth, { filename: 'fits.txt', content: 'x'.repeat(200) })).response.status).toBe(201);

    expect((await terminate(auth, path)).status).toBe(204);
    expect(await usage(keyId)).toEqual({ usedBytes: 200, files: 1, heldBytes: 0, heldFiles: 0 });
    expect((await createUpload(auth, 800, { filename: 'again.txt' })).response.status).toBe(201);
  });

  it('becomes the file when the upload completes: settled in the account, nothing held', async () => {
    const { id: keyId, auth } = await newKey('settled', { quota: 1000 });
    const { path } = await created(auth, 1000, { filename: 'full.txt' });
    await patchOk(auth, path, 0, text('y'.repeat(1000)));
    expect(await usage(keyId)).toEqual({ usedBytes: 1000, files: 1, heldBytes: 0, heldFiles: 0 });
    const { response, body } = await upload('v1', auth, { filename: 'one-more.txt', content: 'z' });
    expect([response.status, body.code]).toEqual([413, 'STORAGE_EXCEEDED']);
  });

  it('is held in the account’s own object: made while the key’s object is down, and still exact', async () => {
    const { id: keyId, auth } = await newKey('key-down', { quota: 1000 });
    const limiter = unreachableLimiter();
    const down = { env: { KEY_LIMITER: limiter.binding } };
    const first = await createUpload(auth, 800, { filename: 'big.txt' }, down);
    expect(first.response.status, await first.response.clone().text()).toBe(201);
    expect(await usage(keyId)).toEqual({ usedBytes: 0, files: 0, heldBytes: 800, heldFiles: 1 });
    await expectError((await createUpload(auth, 300, { filename: 'c.txt' }, down)).response, 413, 'STORAGE_EXCEEDED');
    // Only authentication asked the key's object (and fell back to D1).
    expect(limiter.calls).toEqual(['authorize', 'authorize']);
  });

  it('holds for parallel creations exactly: of five 300-byte uploads under a 1000-byte quota, three are created', async () => {
    const { id: keyId, auth } = await newKey('parallel', { quota: 1000 });
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => createUpload(auth, 300, { filename: `p${i}.txt` })),
    );
    const statuses = results.map((result) => result.response.status).sort();
    expect(statuses).toEqual([201, 201, 201, 413, 413]);
    expect(await usage(keyId)).toMatchObject({ heldBytes: 900, heldFiles: 3 });
  });
});

describe('another key’s upload', () => {
  it('is 404 for HEAD, PATCH, DELETE and GET, exactly like an unknown upload, and stays untouched', async () => {
    const owner = await newKey('owner');
    const other = await newKey('other');
    const { path } = await created(owner.auth, 10, { filename: 'mine.txt' });
    await patchOk(owner.auth, path, 0, text('abc'));
    const unknown = '/api/v2/uploads/AAAAAAAAAAAAAAAAAAAAAA';
    for (const target of [path, unknown]) {
      expect((await head(other.auth, target)).status).toBe(404);
      await expectError(await patch(other.auth, target, 3, 'def'), 404, 'FILE_NOT_FOUND');
      await expectError(await terminate(other.auth, target), 404, 'FILE_NOT_FOUND');
      await expectError(await call(target, { headers: other.auth }), 404, 'FILE_NOT_FOUND');
    }
    expect(await offsetOf(owner.auth, path)).toBe(3);
  });

  it('leaves nothing stored in the object a probe for an unknown id reached', async () => {
    const { auth } = await newKey('probe');
    const id = 'BBBBBBBBBBBBBBBBBBBBBB';
    expect((await head(auth, `/api/v2/uploads/${id}`)).status).toBe(404);
    const stored = await runInDurableObject(uploadStub(id), (_instance, state) => ({
      entries: [...state.storage.kv.list()].length,
      tables: state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'parts'").toArray().length,
    }));
    expect(stored).toEqual({ entries: 0, tables: 0 });
  });

  it('is 401 without a key or with a revoked one', async () => {
    const owner = await newKey('owner 401');
    const { path } = await created(owner.auth, 10, { filename: 'mine.txt' });
    await expectError(await patch({}, path, 0, 'abc'), 401, 'UNAUTHORIZED');
    await expectError(await patch({ Authorization: 'Bearer esk_nope' }, path, 0, 'abc'), 401, 'UNAUTHORIZED');
  });
});

describe('a key revoked or expired while the last PATCH streams', () => {
  /** Ends the key's validity the way the admin API does: in D1, and told to its object at once. */
  const ends = {
    revoked: (keyId: string) => revokeKeyInDb(keyId),
    expired: async (keyId: string) => {
      const expiresAt = Date.now() - 1;
      await env.DB.prepare('UPDATE api_keys SET expires_at = ?2 WHERE id = ?1')
        .bind(keyId, new Date(expiresAt).toISOString())
        .run();
      await env.KEY_LIMITER.getByName(keyId).updateKey({ expiresAt });
    },
  };

  it.each(['revoked', 'expired'] as const)(
    'creates no file when the key is %s before the commit: 401, its bytes deleted, its reservation released',
    async (how) => {
      const { id: keyId, auth } = await newKey(`${how} mid-patch`, { quota: 10 * MIB });
      const bytes = binaryBytes(2 * MIB, 61);
      const { path, id } = await created(auth, bytes.length, { filename: 'late.bin' });
      const body = pausedBody(bytes, MIB);
      const pending = call(path, {
        method: 'PATCH',
        headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': '0' },
        body: body.stream,
      });
      await leaseHeld(id);
      await ends[how](keyId);
      body.open();
      const response = await pending;
      await expectError(response, 401, 'UNAUTHORIZED');
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await rowCount(keyId)).toBe(0);
      expect(await blobsOf(keyId)).toEqual([]);
      expect(await usage(keyId)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
      expect((await stateOf(id)) as unknown as { status: string }).toMatchObject({ status: 'terminated' });
    },
  );
});

describe('the rate limit', () => {
  it('does not count PATCHes that store bytes of an upload the key owns, and never refuses them', async () => {
    const { auth } = await newKey('uncounted', { rateLimit: 3 });
    const bytes = binaryBytes(3 * MIB, 51);
    const { response, path } = await createUpload(auth, bytes.length, { filename: 'big.bin' });
    // The creation counts.
    expect(rateHeaders(response).remaining).toBe(2);
    // The rest of the key's budget goes on other requests…
    for (let i = 0; i < 2; i++) expect((await call('/api/v2/files', { headers: auth })).status).toBe(200);
    expect((await call('/api/v2/files', { headers: auth })).status).toBe(429);
    // …yet the upload goes on, in many PATCHes, each reporting the window unchanged. (A HEAD
    // counts like any request: past the limit it is refused, see below.)
    const heads = await head(auth, path);
    expect(heads.status).toBe(429);
    expect(rateHeaders(heads)).toMatchObject({ limit: 3, remaining: 0 });
    const last = await uploadAll(auth, path, bytes, 256 * 1024);
    expect(last.headers.get('x-file-id')).toBeTruthy();
    expect(rateHeaders(last)).toMatchObject({ limit: 3, remaining: 0 });
  });

  it('counts HEAD of an upload the key owns, once, and refuses it past the limit (POST-with-override too)', async () => {
    const { auth } = await newKey('heads counted', { rateLimit: 4 });
    const { response, path } = await createUpload(auth, 10, { filename: 'a.txt' });
    expect(rateHeaders(response).remaining).toBe(3);
    const first = await head(auth, path);
    expect(first.status).toBe(204);
    expect(rateHeaders(first).remaining).toBe(2);
    const overridden = await call(path, {
      method: 'POST',
      headers: { ...TUS, ...auth, 'X-HTTP-Method-Override': 'HEAD' },
    });
    expect(overridden.status).toBe(204);
    expect(rateHeaders(overridden).remaining).toBe(1);
    expect(rateHeaders(await head(auth, path)).remaining).toBe(0);
    const refused = await head(auth, path);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(rateHeaders(refused)).toMatchObject({ limit: 4, remaining: 0 });
  });

  it('counts a PATCH of its own upload that stores no byte (wrong offset, empty body, checksum mismatch); past the limit 429', async () => {
    const { auth } = await newKey('no bytes counted', { rateLimit: 4 });
    const { response, path } = await createUpload(auth, 10, { filename: 'a.txt' });
    expect(rateHeaders(response).remaining).toBe(3);
    // Bytes stored: not counted.
    const stored = await patch(auth, path, 0, 'abc');
    expect(stored.status).toBe(204);
    expect(rateHeaders(stored).remaining).toBe(3);
    // Refused before its body is read: counted.
    const wrongOffset = await patch(auth, path, 0, 'abc');
    await expectError(wrongOffset, 409, 'UPLOAD_CONFLICT');
    expect(rateHeaders(wrongOffset).remaining).toBe(2);
    const empty = await patch(auth, path, 3, '');
    expect(empty.status).toBe(204);
    expect(empty.headers.get('upload-offset')).toBe('3');
    expect(rateHeaders(empty).remaining).toBe(1);
    // Read, but nothing of it kept.
    const mismatch = await patch(auth, path, 3, 'def', { 'Upload-Checksum': 'sha1 Kq5sNclPz7QV2+lfQIuc6R7oRu0=' });
    await expectError(mismatch, 460, 'CHECKSUM_MISMATCH');
    expect(rateHeaders(mismatch).remaining).toBe(0);
    // Past the limit: refused with 429 and Retry-After…
    const refused = await patch(auth, path, 0, 'abc');
    await expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBeTruthy();
    expect(rateHeaders(refused)).toMatchObject({ limit: 4, remaining: 0 });
    // …while a PATCH that stores bytes still goes through, to the last byte.
    const more = await patch(auth, path, 3, 'defg');
    expect(more.status).toBe(204);
    expect(more.headers.get('upload-offset')).toBe('7');
    const last = await patch(auth, path, 7, 'hij');
    expect(last.headers.get('x-file-id')).toBeTruthy();
    expect(rateHeaders(last)).toMatchObject({ limit: 4, remaining: 0 });
  });

  it('counts PATCH, HEAD and POST-with-override of an upload the key does not have', async () => {
    const { auth } = await newKey('probing', { rateLimit: 3 });
    const unknown = '/api/v2/uploads/AAAAAAAAAAAAAAAAAAAAAA';
    expect(rateHeaders(await head(auth, unknown)).remaining).toBe(2);
    expect(rateHeaders(await patch(auth, unknown, 0, 'x')).remaining).toBe(1);
    const overridden = await call(unknown, {
      method: 'POST',
      headers: { ...TUS, ...auth, ...OCTETS, 'X-HTTP-Method-Override': 'PATCH', 'Upload-Offset': '0' },
      body: 'x',
    });
    expect(rateHeaders(overridden).remaining).toBe(0);
    const refused = await head(auth, unknown);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
  });

  it('counts PATCH and HEAD of another key’s upload, and PATCHes refused before the upload is looked up', async () => {
    const owner = await newKey('owner counted', { rateLimit: 100 });
    const { auth } = await newKey('not the owner', { rateLimit: 5 });
    const { path } = await created(owner.auth, 10, { filename: 'mine.txt' });
    expect(rateHeaders(await head(auth, path)).remaining).toBe(4);
    expect(rateHeaders(await patch(auth, path, 0, 'x')).remaining).toBe(3);
    // Malformed PATCHes prove no ownership: counted too, whoever's upload they name.
    const noType = await call(path, {
      method: 'PATCH',
      headers: { ...TUS, ...auth, 'Upload-Offset': '0' },
      body: 'x',
    });
    expect(noType.status).toBe(415);
    expect(rateHeaders(noType).remaining).toBe(2);
    const badOffset = await call(path, {
      method: 'PATCH',
      headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': 'soon' },
      body: 'x',
    });
    expect(badOffset.status).toBe(400);
    expect(rateHeaders(badOffset).remaining).toBe(1);
    expect(rateHeaders(await patch(auth, path, 0, 'x')).remaining).toBe(0);
    expect((await patch(auth, path, 0, 'x')).status).toBe(429);
    // The owner's transfers are untouched by all this.
    expect(await offsetOf(owner.auth, path)).toBe(0);
  });

  it('counts creation, termination and the record lookup like any request', async () => {
    const { auth } = await newKey('counted', { rateLimit: 10 });
    const { response, path } = await createUpload(auth, 3, { filename: 'a.txt' });
    expect(rateHeaders(response).remaining).toBe(9);
    expect(rateHeaders(await call(path, { headers: auth })).remaining).toBe(8);
    expect(rateHeaders(await terminate(auth, path)).remaining).toBe(7);
  });
});

describe('the single-request upload beside tus', () => {
  it('still takes a file through POST /upload (its size bounded by the platform’s body limit, not the Worker)', async () => {
    const { auth } = await newKey('multipart still');
    const response = await call('/api/v2/upload', {
      method: 'POST',
      headers: auth,
      body: form([{ filename: 'a.txt', type: 'text/plain', content: 'hello' }]),
    });
    expect(response.status).toBe(201);
  });
});
