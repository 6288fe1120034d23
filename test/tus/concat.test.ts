// tus concatenation: partial uploads (Upload-Concat: partial) that are no files, and a final
// upload (Upload-Concat: final;…) that is a file made of their objects, in order, without a copy.
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { CLAIM_TIMEOUT_MS } from '../../src/tus/tus-upload-contract';
import { sha256Hex } from '../helpers/digests';
import type { FileRecordV2 as FileRecord, Success } from '../helpers/records';
import { expectError, json } from '../helpers/responses';
import {
  type Auth,
  binaryBytes,
  createFinal,
  createPartial,
  expireNow,
  head,
  joined,
  MIB,
  newKey,
  OCTETS,
  partialOf,
  patch,
  TUS,
  terminate,
  uploadStub,
  usage,
} from '../helpers/tus';
import { call, revokeKeyInDb } from '../helpers/worker';

type FileList = { files: FileRecord[] };

const fileOf = async (auth: Auth, id: string) =>
  (await json<Success<FileRecord>>(await call(`/api/v2/files/${id}`, { headers: auth }))).data;

async function download(auth: Auth, id: string, headers: Record<string, string> = {}) {
  return call(`/api/v2/files/${id}/download`, { headers: { ...auth, ...headers } });
}

/** Three complete partials (one in a multipart upload, one put, one small) and their bytes. */
async function threePartials(auth: Auth) {
  const bytes = [binaryBytes(9 * MIB + 3, 11), binaryBytes(MIB + 5, 12), binaryBytes(100 * 1024, 13)];
  const partials = [];
  for (const part of bytes) partials.push(await partialOf(auth, part));
  return { bytes, partials, whole: joined(bytes) };
}

describe('tus concatenation', () => {
  it('offers the concatenation extension', async () => {
    const response = await call('/api/v2/uploads', { method: 'OPTIONS' });
    expect(response.headers.get('tus-extension')?.split(',')).toContain('concatenation');
  });

  it('makes one file of three partials: bytes, ranges across boundaries, HEAD, digest, listing', async () => {
    const key = await newKey('concat-happy');
    const { bytes, partials, whole } = await threePartials(key.auth);

    // A partial upload is not a file: not listed, no record, not downloadable.
    const listed = await json<Success<FileList>>(await call('/api/v2/files', { headers: key.auth }));
    expect(listed.data.files).toEqual([]);
    const partialHead = await head(key.auth, partials[0]?.path ?? '');
    expect(partialHead.status).toBe(204);
    expect(partialHead.headers.get('upload-concat')).toBe('partial');
    expect(partialHead.headers.has('x-file-id')).toBe(false);
    await expectError(await download(key.auth, partials[0]?.id ?? ''), 404, 'FILE_NOT_FOUND');
    await expectError(await call(partials[0]?.path ?? '', { headers: key.auth }), 404, 'FILE_NOT_FOUND');

    // The final names them as absolute URLs and as paths alike.
    const urls = [partials[0]?.location ?? '', partials[1]?.path ?? '', partials[2]?.location ?? ''];
    const response = await createFinal(key.auth, urls, {
      filename: 'joined.bin',
      filetype: 'application/octet-stream',
    });
    expect(response.status).toBe(201);
    const fileId = response.headers.get('x-file-id') ?? '';
    const location = response.headers.get('location') ?? '';
    expect(location).toBe(`http://edgeshare.test/api/v2/uploads/${fileId}`);

    const finalHead = await head(key.auth, new URL(location).pathname);
    expect(finalHead.status).toBe(204);
    expect(finalHead.headers.get('upload-concat')).toBe(`final;${urls.join(' ')}`);
    expect(finalHead.headers.get('upload-length')).toBe(String(whole.length));
    expect(finalHead.headers.get('upload-offset')).toBe(String(whole.length));
    expect(finalHead.headers.get('x-file-id')).toBe(fileId);

    // The file: record, digest (computed right after creation), list, bytes.
    const record = await fileOf(key.auth, fileId);
    expect(record).toMatchObject({ size: whole.length, originalName: 'joined.bin' });
    expect(record.sha256).toBe(await sha256Hex(whole));
    const tusRecord = await json<Success<FileRecord>>(await call(new URL(location).pathname, { headers: key.auth }));
    expect(tusRecord.data.id).toBe(fileId);
    const after = await json<Success<FileList>>(await call('/api/v2/files', { headers: key.auth }));
    expect(after.data.files.map((file) => file.id)).toEqual([fileId]);

    const full = await download(key.auth, fileId);
    expect(full.status).toBe(200);
    expect(full.headers.get('content-length')).toBe(String(whole.length));
    expect(full.headers.get('repr-digest')).toMatch(/^sha-256=:/);
    expect(await sha256Hex(await full.arrayBuffer())).toBe(await sha256Hex(whole));

    // A range across both boundaries (end of partial 1 to the start of partial 3).
    const from = (bytes[0]?.length ?? 0) - 10;
    const to = (bytes[0]?.length ?? 0) + (bytes[1]?.length ?? 0) + 9;
    const ranged = await download(key.auth, fileId, { Range: `bytes=${from}-${to}` });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes ${from}-${to}/${whole.length}`);
    expect(new Uint8Array(await ranged.arrayBuffer())).toEqual(whole.slice(from, to + 1));
    const etag = full.headers.get('etag') ?? '';
    expect((await download(key.auth, fileId, { 'If-None-Match': etag })).status).toBe(304);

    // The share link serves the same bytes; v1 too.
    const v1 = await call(`/api/v1/files/${fileId}/download`, { headers: key.auth });
    expect(await sha256Hex(await v1.arrayBuffer())).toBe(await sha256Hex(whole));

    // Quota: one file of the summed size; no hold left.
    expect(await usage(key.id)).toEqual({ usedBytes: whole.length, files: 1, heldBytes: 0, heldFiles: 0 });
  });

  it('refuses PATCH on a final upload (403) and answers partials as parts of it', async () => {
    const key = await newKey('concat-patch');
    const partial = await partialOf(key.auth, binaryBytes(1000, 3));
    const response = await createFinal(key.auth, [partial.location]);
    expect(response.status).toBe(201);
    const path = new URL(response.headers.get('location') ?? '').pathname;
    await expectError(await patch(key.auth, path, 1000, 'x'), 403, 'FORBIDDEN');
    await expectError(await patch(key.auth, path, 0, 'x'), 403, 'FORBIDDEN');
    // The partial it took: still complete, no longer expiring, never deletable on its own.
    const taken = await head(key.auth, partial.path);
    expect(taken.status).toBe(204);
    expect(taken.headers.get('upload-concat')).toBe('partial');
    expect(taken.headers.has('upload-expires')).toBe(false);
    await expectError(await terminate(key.auth, partial.path), 409, 'UPLOAD_CONFLICT');
    expect((await download(key.auth, response.headers.get('x-file-id') ?? '')).status).toBe(200);
  });

  it('refuses bad finals with the error envelope, and leaves the partials as they were', async () => {
    const key = await newKey('concat-errors');
    const other = await newKey('concat-errors-other');
    const done = await partialOf(key.auth, binaryBytes(2000, 5));
    const half = await createPartial(key.auth, 4000);
    expect((await patch(key.auth, half.path, 0, binaryBytes(1000, 6))).status).toBe(204);
    const foreign = await partialOf(other.auth, binaryBytes(500, 7));

    const incomplete = await createFinal(key.auth, [done.location, half.location]);
    const body = await expectError(incomplete, 409, 'UPLOAD_INCOMPLETE');
    expect(body.error).toContain(half.location);
    expect(body.error).toContain('1000 of 4000');
    await expectError(await createFinal(key.auth, [done.location, foreign.location]), 404, 'FILE_NOT_FOUND');
    await expectError(
      await createFinal(key.auth, [done.location], undefined, { 'Upload-Length': '2000' }),
      400,
      'VALIDATION_ERROR',
    );
    await expectError(await createFinal(key.auth, ['http://elsewhere.test/some/path']), 400, 'VALIDATION_ERROR');
    await expectError(await createFinal(key.auth, []), 400, 'VALIDATION_ERROR');
    await expectError(await createFinal(key.auth, [done.path, done.path]), 400, 'VALIDATION_ERROR');
    const bogus = await call('/api/v2/uploads', {
      method: 'POST',
      headers: { ...TUS, ...key.auth, 'Upload-Concat': 'whole' },
    });
    await expectError(bogus, 400, 'VALIDATION_ERROR');
    // An ordinary upload is no partial.
    const plain = await call('/api/v2/uploads', {
      method: 'POST',
      headers: { ...TUS, ...key.auth, 'Upload-Length': '3' },
    });
    const plainPath = new URL(plain.headers.get('location') ?? '').pathname;
    await expectError(await createFinal(key.auth, [plainPath]), 400, 'VALIDATION_ERROR');

    // None of that took the complete partial: it still makes a final, once.
    const first = await createFinal(key.auth, [done.path]);
    expect(first.status).toBe(201);
    const reused = await expectError(await createFinal(key.auth, [done.path]), 409, 'UPLOAD_CONFLICT');
    expect(reused.error).toContain('another final upload');
    // Terminated and expired partials are gone.
    await terminate(key.auth, half.path);
    await expectError(await createFinal(key.auth, [half.path]), 410, 'UPLOAD_GONE');
  });

  it('refuses a final whose first bytes are a type that runs (415), charging nothing new', async () => {
    const key = await newKey('concat-type');
    // An ELF executable's first bytes: a partial takes them (its bytes are no file), the final not.
    const elf = binaryBytes(3000, 9);
    elf.set([0x7f, 0x45, 0x4c, 0x46], 0);
    const partial = await partialOf(key.auth, elf);
    const refused = await createFinal(key.auth, [partial.path], { filename: 'tool.bin' });
    const body = await expectError(refused, 415, 'INVALID_FILE_TYPE');
    expect(body.error).toContain('application/x-executable');
    expect(await usage(key.id)).toEqual({ usedBytes: 0, files: 0, heldBytes: elf.length, heldFiles: 1 });
    // The partial was given back: terminating it frees its reservation and its object.
    expect((await terminate(key.auth, partial.path)).status).toBe(204);
    expect(await usage(key.id)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
    expect((await env.FILES.list({ prefix: `segments/${key.id}/` })).objects).toEqual([]);
  });

  it('keeps quota exact: partials hold, the final converts, unused partials release', async () => {
    const quota = 3000;
    const key = await newKey('concat-quota', { quota });
    const a = await partialOf(key.auth, binaryBytes(1000, 21));
    const b = await partialOf(key.auth, binaryBytes(1000, 22));
    const c = await partialOf(key.auth, binaryBytes(1000, 23));
    expect(await usage(key.id)).toEqual({ usedBytes: 0, files: 0, heldBytes: 3000, heldFiles: 3 });
    // Full: nothing else fits beside the partials' reservations.
    const over = await call('/api/v2/uploads', {
      method: 'POST',
      headers: { ...TUS, ...key.auth, 'Upload-Length': '1' },
    });
    await expectError(over, 413, 'STORAGE_EXCEEDED');
    // A final of the whole quota fits exactly: the reservations become the file.
    const final = await createFinal(key.auth, [a.path, b.path]);
    expect(final.status).toBe(201);
    expect(await usage(key.id)).toEqual({ usedBytes: 2000, files: 1, heldBytes: 1000, heldFiles: 1 });
    expect((await terminate(key.auth, c.path)).status).toBe(204);
    expect(await usage(key.id)).toEqual({ usedBytes: 2000, files: 1, heldBytes: 0, heldFiles: 0 });
    const fileId = final.headers.get('x-file-id') ?? '';

    // Deleting the final frees its bytes and every segment object.
    expect((await env.FILES.list({ prefix: `segments/${key.id}/` })).objects).toHaveLength(2);
    const deleted = await call(`/api/v2/files/${fileId}`, { method: 'DELETE', headers: key.auth });
    expect(deleted.status).toBe(200);
    expect(await usage(key.id)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
    expect((await env.FILES.list({ prefix: `segments/${key.id}/` })).objects).toEqual([]);
    const queued = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM blob_deletions WHERE r2_key LIKE 'segments/%'",
    ).first<{
      n: number;
    }>();
    expect(queued?.n).toBe(0);
    expect((await download(key.auth, fileId)).status).toBe(404);
  });

  it('a refused conversion (limits lowered meanwhile) leaves the partials’ reservations held', async () => {
    const key = await newKey('concat-refused');
    const a = await partialOf(key.auth, binaryBytes(1000, 24));
    const b = await partialOf(key.auth, binaryBytes(1000, 25));
    const holdOf = (id: string) =>
      runInDurableObject(
        uploadStub(id),
        (_instance, state) => state.storage.kv.get<{ holdId: string }>('upload')?.holdId ?? '',
      );
    const holdIds = [await holdOf(a.id), await holdOf(b.id)];
    const limiter = env.KEY_LIMITER.getByName(key.id);
    const limits = { quotaBytes: 1500, maxFiles: 100, holdTtlMs: 60_000 };
    const refused = await limiter.commit({
      keyId: key.id,
      holdIds,
      files: [{ id: 'x', size: 2000, expiresAt: null }],
      limits,
    });
    expect(refused.accepted).toEqual([]);
    expect(await usage(key.id)).toEqual({ usedBytes: 0, files: 0, heldBytes: 2000, heldFiles: 2 });
    // With room, the same conversion takes them all at once.
    const final = await createFinal(key.auth, [a.path, b.path]);
    expect(final.status).toBe(201);
    expect(await usage(key.id)).toEqual({ usedBytes: 2000, files: 1, heldBytes: 0, heldFiles: 0 });
  });

  it('refuses the final with 401 when its key is revoked while it is made: no file, the partials held as before', async () => {
    const key = await newKey('concat-revoked');
    const a = await partialOf(key.auth, binaryBytes(1000, 26));
    const b = await partialOf(key.auth, binaryBytes(1000, 27));
    const before = await usage(key.id);
    // The key is revoked after this request was admitted (its first read of the partials' bytes)
    // and before the file is recorded: the check right before the commit sees it.
    let revoked = false;
    const bucket = new Proxy(env.FILES, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (property !== 'get') return value.bind(target);
        return async (...args: Parameters<R2Bucket['get']>) => {
          if (!revoked) {
            revoked = true;
            await revokeKeyInDb(key.id);
          }
          return target.get(...args);
        };
      },
    });
    const response = await call(
      '/api/v2/uploads',
      { method: 'POST', headers: { ...TUS, ...key.auth, 'Upload-Concat': `final;${a.path} ${b.path}` } },
      { FILES: bucket },
    );
    expect(revoked).toBe(true);
    await expectError(response, 401, 'UNAUTHORIZED');
    const rows = await env.DB.prepare('SELECT COUNT(*) AS n FROM files WHERE account_id = ?1')
      .bind(key.id)
      .first<{ n: number }>();
    expect(rows?.n).toBe(0);
    expect(await usage(key.id)).toEqual(before);
    expect(before).toMatchObject({ usedBytes: 0, files: 0, heldBytes: 2000, heldFiles: 2 });
    // The claims were given back: the partials are no part of any final.
    const claimed = await runInDurableObject(
      uploadStub(a.id),
      (_instance, state) => state.storage.kv.get<{ claim?: unknown }>('upload')?.claim ?? null,
    );
    expect(claimed).toBeNull();
  });

  it('DELETE on the final upload deletes its file and segments, like a completed upload', async () => {
    const key = await newKey('concat-terminate');
    const a = await partialOf(key.auth, binaryBytes(700, 31));
    const b = await partialOf(key.auth, binaryBytes(900, 32));
    const final = await createFinal(key.auth, [a.path, b.path]);
    const path = new URL(final.headers.get('location') ?? '').pathname;
    expect((await terminate(key.auth, path)).status).toBe(204);
    expect((await env.FILES.list({ prefix: `segments/${key.id}/` })).objects).toEqual([]);
    expect(await usage(key.id)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
    expect((await head(key.auth, path)).status).toBe(404);
  });

  it('a claimed partial survives its expiry alarm; an unused one expires and frees all', async () => {
    const key = await newKey('concat-expiry');
    const used = await partialOf(key.auth, binaryBytes(1200, 41));
    const unused = await partialOf(key.auth, binaryBytes(800, 42));
    const final = await createFinal(key.auth, [used.path]);
    expect(final.status).toBe(201);
    const fileId = final.headers.get('x-file-id') ?? '';

    await expireNow(used.id);
    await expireNow(unused.id);
    expect((await head(key.auth, used.path)).status).toBe(204);
    expect((await head(key.auth, unused.path)).status).toBe(410);
    const objects = (await env.FILES.list({ prefix: `segments/${key.id}/` })).objects.map((object) => object.key);
    expect(objects).toEqual([`segments/${key.id}/${used.id}`]);
    expect(await usage(key.id)).toEqual({ usedBytes: 1200, files: 1, heldBytes: 0, heldFiles: 0 });
    const bytes = new Uint8Array(await (await download(key.auth, fileId)).arrayBuffer());
    expect(bytes).toEqual(binaryBytes(1200, 41));

    // Forgetting the claimed partial's state (after RETAIN_MS) never touches the file's bytes.
    await runInDurableObject(uploadStub(used.id), (_instance, state) => {
      const stored = state.storage.kv.get<{ forgetAt: number }>('upload');
      if (stored) state.storage.kv.put('upload', { ...stored, forgetAt: Date.now() - 1 });
    });
    await runDurableObjectAlarm(uploadStub(used.id));
    expect((await head(key.auth, used.path)).status).toBe(404);
    expect((await download(key.auth, fileId)).status).toBe(200);
  });

  it('settles a claim left pending by a request that died: from D1, kept or given back', async () => {
    const key = await newKey('concat-pending');
    const orphan = await partialOf(key.auth, binaryBytes(600, 51));
    // A final's request claimed it, then died before writing any row.
    const claim = await uploadStub(orphan.id).claim({ accountId: key.id, finalId: 'f'.repeat(21) });
    expect(claim.status).toBe('ok');
    await expectError(await createFinal(key.auth, [orphan.path]), 409, 'UPLOAD_CONFLICT');
    await expireNow(orphan.id);
    expect((await head(key.auth, orphan.path)).status).toBe(204);
    // An hour on, its alarm finds no row: free again, and (past its expiry) it expires.
    await runInDurableObject(uploadStub(orphan.id), (_instance, state) => {
      const stored = state.storage.kv.get<{ claim: { at: number } }>('upload');
      if (stored)
        state.storage.kv.put('upload', {
          ...stored,
          claim: { ...stored.claim, at: Date.now() - CLAIM_TIMEOUT_MS - 1 },
        });
    });
    await runDurableObjectAlarm(uploadStub(orphan.id));
    await runDurableObjectAlarm(uploadStub(orphan.id));
    expect((await head(key.auth, orphan.path)).status).toBe(410);
    expect(await usage(key.id)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
    expect((await env.FILES.list({ prefix: `segments/${key.id}/` })).objects).toEqual([]);
  });

  it('two finals racing for the same partials: exactly one wins', async () => {
    const key = await newKey('concat-race');
    const a = await partialOf(key.auth, binaryBytes(1500, 61));
    const b = await partialOf(key.auth, binaryBytes(1500, 62));
    const [one, two] = await Promise.all([
      createFinal(key.auth, [a.path, b.path]),
      createFinal(key.auth, [b.path, a.path]),
    ]);
    expect([one.status, two.status].sort()).toEqual([201, 409]);
    const files = await json<Success<FileList>>(await call('/api/v2/files', { headers: key.auth }));
    expect(files.data.files).toHaveLength(1);
    expect(await usage(key.id)).toEqual({ usedBytes: 3000, files: 1, heldBytes: 0, heldFiles: 0 });
  });

  it('replays the final POST for the same Idempotency-Key (one file)', async () => {
    const key = await newKey('concat-idempotent');
    const a = await partialOf(key.auth, binaryBytes(300, 71));
    const headers = { 'Idempotency-Key': 'final-0001' };
    const first = await createFinal(key.auth, [a.path], { filename: 'x.bin' }, headers);
    const again = await createFinal(key.auth, [a.path], { filename: 'x.bin' }, headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.headers.get('x-file-id')).toBe(first.headers.get('x-file-id'));
    const files = await json<Success<FileList>>(await call('/api/v2/files', { headers: key.auth }));
    expect(files.data.files).toHaveLength(1);
  });

  it('file requests refuse Upload-Concat with a 400', async () => {
    const key = await newKey('concat-request');
    const made = await call('/api/v2/requests', {
      method: 'POST',
      headers: { ...key.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ maxFiles: 2 }),
    });
    expect(made.status).toBe(201);
    const tusUrl = (await json<Success<{ tusUrl: string }>>(made)).data.tusUrl;
    const response = await call(new URL(tusUrl).pathname, {
      method: 'POST',
      headers: { ...TUS, 'Upload-Length': '10', 'Upload-Concat': 'partial', ...OCTETS },
    });
    await expectError(response, 400, 'VALIDATION_ERROR');
    const options = await call(new URL(tusUrl).pathname, { method: 'OPTIONS' });
    expect(options.headers.get('tus-extension')?.split(',')).not.toContain('concatenation');
  });
});
