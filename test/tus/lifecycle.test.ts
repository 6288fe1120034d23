// How an upload ends without becoming a file: termination (DELETE), expiration (the object's
// alarm), a type refused at the first bytes. Each frees everything: the R2 multipart upload, the
// tail objects, the key's reservation. And the sweep never takes an upload's bytes for orphans.
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { expectError } from '../helpers/responses';
import { GRACE_MS, sweepAt, sweepUntilQuiet } from '../helpers/storage';
import {
  binaryBytes,
  created,
  expireNow,
  head,
  MIB,
  multipartAlive,
  newKey,
  offsetOf,
  patch,
  patchOk,
  type StoredState,
  stateOf,
  tailObjects,
  terminate,
  uploadStub,
  usage,
} from '../helpers/tus';
import { call } from '../helpers/worker';

/** An upload with a started R2 multipart upload (one 8 MiB part) and a tail object. */
async function halfDone(name: string) {
  const key = await newKey(name);
  const { path, id } = await created(key.auth, 20 * MIB, { filename: 'half.bin' });
  await patchOk(key.auth, path, 0, binaryBytes(9 * MIB, 41));
  const state = await stateOf(id);
  if (!state) throw new Error('no state');
  expect(await multipartAlive(state)).toBe(true);
  expect(await tailObjects(id)).toHaveLength(1);
  expect(await usage(key.id)).toMatchObject({ heldBytes: 20 * MIB, heldFiles: 1 });
  return { keyId: key.id, auth: key.auth, path, id, state };
}

async function expectFreed(keyId: string, id: string, state: StoredState) {
  expect(await multipartAlive(state)).toBe(false);
  expect(await tailObjects(id)).toEqual([]);
  expect(await usage(keyId)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
  expect((await env.FILES.list({ prefix: `files/${keyId}/` })).objects).toEqual([]);
}

describe('termination', () => {
  it('answers 204 and frees everything at once; the upload then answers 410', async () => {
    const upload = await halfDone('terminate');
    const response = await terminate(upload.auth, upload.path);
    expect(response.status).toBe(204);
    expect(response.headers.get('tus-resumable')).toBe('1.0.0');
    await expectFreed(upload.keyId, upload.id, upload.state);
    expect((await head(upload.auth, upload.path)).status).toBe(410);
    await expectError(await patch(upload.auth, upload.path, 9 * MIB, 'x'), 410, 'UPLOAD_GONE');
    await expectError(await terminate(upload.auth, upload.path), 410, 'UPLOAD_GONE');
    await expectError(await call(upload.path, { headers: upload.auth }), 410, 'UPLOAD_GONE');
  });

  it('deletes a completed upload like its file', async () => {
    const { id: keyId, auth } = await newKey('terminate completed');
    const { path, id } = await created(auth, 5, { filename: 'a.txt' });
    await patchOk(auth, path, 0, new TextEncoder().encode('hello'));
    expect((await terminate(auth, path)).status).toBe(204);
    await expectError(await call(`/api/v2/files/${id}`, { headers: auth }), 404, 'FILE_NOT_FOUND');
    expect(await usage(keyId)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
    expect((await head(auth, path)).status).toBe(410);
  });

  it('is forgotten after a week: 404 instead of 410, and the object stores nothing', async () => {
    const upload = await halfDone('forget');
    await terminate(upload.auth, upload.path);
    await runInDurableObject(uploadStub(upload.id), (_instance, state) => {
      const stored = state.storage.kv.get<StoredState>('upload');
      state.storage.kv.put('upload', { ...stored, forgetAt: Date.now() - 1 });
    });
    await runDurableObjectAlarm(uploadStub(upload.id));
    expect(await stateOf(upload.id)).toBeUndefined();
    expect((await head(upload.auth, upload.path)).status).toBe(404);
  });
});

describe('expiration', () => {
  it('moves Upload-Expires to 24 hours after each PATCH', async () => {
    const { auth } = await newKey('expires moves');
    const { path, id } = await created(auth, 10, { filename: 'a.txt' });
    const before = (await stateOf(id))?.expiresAt ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const response = await patch(auth, path, 0, 'abc');
    const after = Date.parse(response.headers.get('upload-expires') ?? '');
    expect(after).toBeGreaterThan(before);
    expect(Math.abs(after - (Date.now() + 24 * 3600 * 1000))).toBeLessThan(5_000);
  });

  it('expires an abandoned upload from its alarm: frees everything, then answers 410', async () => {
    const upload = await halfDone('expire');
    await expireNow(upload.id);
    await expectFreed(upload.keyId, upload.id, upload.state);
    expect((await head(upload.auth, upload.path)).status).toBe(410);
    await expectError(await patch(upload.auth, upload.path, 9 * MIB, 'x'), 410, 'UPLOAD_GONE');
  });

  it('treats an upload past its expiry as expired even before its alarm runs', async () => {
    const upload = await halfDone('expired early');
    await runInDurableObject(uploadStub(upload.id), (_instance, state) => {
      const stored = state.storage.kv.get<StoredState>('upload');
      state.storage.kv.put('upload', { ...stored, expiresAt: Date.now() - 1 });
    });
    await expectError(await patch(upload.auth, upload.path, 9 * MIB, 'x'), 410, 'UPLOAD_GONE');
    await expectFreed(upload.keyId, upload.id, upload.state);
  });

  it('never expires while a PATCH holds the lease: the alarm comes back after it', async () => {
    const { auth } = await newKey('leased');
    const { path, id } = await created(auth, 10, { filename: 'a.txt' });
    await runInDurableObject(uploadStub(id), (_instance, state) => {
      const stored = state.storage.kv.get<StoredState>('upload');
      state.storage.kv.put('upload', {
        ...stored,
        expiresAt: Date.now() - 1,
        lease: { token: 't', until: Date.now() + 60_000 },
      });
    });
    await runDurableObjectAlarm(uploadStub(id));
    expect((await stateOf(id)) as unknown as { status: string }).toMatchObject({ status: 'active' });
    expect(await offsetOf(auth, path)).toBe(0);
  });
});

describe('a type refused at the first bytes', () => {
  it.each([
    [
      'content that contradicts the declared type',
      { filename: 'photo.png', filetype: 'image/png' },
      'not a png, just text',
    ],
    ['a program', { filename: 'data.bin' }, '\x7fELF\x02\x01\x01\x00 and the rest of an executable'],
  ])('ends the upload with 415 INVALID_FILE_TYPE for %s, freeing everything', async (_name, meta, content) => {
    const { id: keyId, auth } = await newKey('refused type');
    // Past the bytes the type check reads (4100), in an upload that goes on.
    const bytes = new TextEncoder().encode(content.padEnd(5_000, ' and more'));
    const { path, id } = await created(auth, 3 * bytes.length, meta);
    await expectError(await patch(auth, path, 0, bytes), 415, 'INVALID_FILE_TYPE');
    expect((await head(auth, path)).status).toBe(410);
    expect(await tailObjects(id)).toEqual([]);
    expect(await usage(keyId)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
  });

  it('waits for enough bytes to decide: a first PATCH shorter than the sniffed head is kept', async () => {
    const { auth } = await newKey('short first patch');
    const { path } = await created(auth, 10_000, { filename: 'photo.png', filetype: 'image/png' });
    expect(await patchOk(auth, path, 0, new TextEncoder().encode('not'))).toBe(3);
    await expectError(
      await patch(auth, path, 3, new TextEncoder().encode(' a png'.repeat(1000))),
      415,
      'INVALID_FILE_TYPE',
    );
  });
});

describe('the sweep', () => {
  it('never takes a finishing upload’s object for an orphan, and takes it once the upload is gone', async () => {
    const upload = await halfDone('sweep finishing');
    // As the last PATCH leaves it for a moment: the object at files/<keyId>/<id>, no row yet.
    await env.FILES.put(upload.state.r2Key, 'finished bytes', {
      customMetadata: { keyId: upload.keyId, fileId: upload.id },
    });
    const later = Date.now() + GRACE_MS + 60_000;
    await sweepUntilQuiet(later);
    expect(await env.FILES.head(upload.state.r2Key)).not.toBeNull();
    // Its parts are not objects, its tail is outside files/: both untouched.
    expect(await multipartAlive(upload.state)).toBe(true);
    expect(await tailObjects(upload.id)).toHaveLength(1);

    await terminate(upload.auth, upload.path);
    await sweepUntilQuiet(later);
    expect(await env.FILES.head(upload.state.r2Key)).toBeNull();
  });

  it('deletes objects under uploads/ older than any upload can live, and only those', async () => {
    await env.FILES.put('uploads/forgotten/tail-1-abcdefgh', 'left behind');
    const young = await halfDone('young tail');
    const report = await sweepAt(Date.now() + 8 * 24 * 3600 * 1000);
    expect(report.strayUploadObjects).toBeGreaterThanOrEqual(2);
    expect(await env.FILES.head('uploads/forgotten/tail-1-abcdefgh')).toBeNull();
    // The same run a day later: within the lifetime, nothing under uploads/ is touched.
    await env.FILES.put('uploads/forgotten/tail-2-abcdefgh', 'recent');
    await sweepAt(Date.now() + 24 * 3600 * 1000);
    expect(await env.FILES.head('uploads/forgotten/tail-2-abcdefgh')).not.toBeNull();
    expect(young.id).toBeTruthy();
  });
});
