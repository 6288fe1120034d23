// The upload's R2 part size, chosen by its first PATCH: a client sending chunks of one size (5 MiB
// or more, with their Content-Length) has each chunk stored as one part, with no tail object to
// rewrite between PATCHes; so does an age upload's payload after a first PATCH holding its header
// alone. A small or chunked first PATCH keeps 8 MiB parts. Resuming after a
// broken PATCH and a checksum refusal keep working with the chosen size.
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { PART_SIZE } from '../../src/storage/blobs';
import { CHUNK_PART_MAX, chunkPartSize, MIN_PART_SIZE } from '../../src/tus/part-writer';
import { MAX_PART_SIZE } from '../../src/tus/protocol';
import { ageFile, newIdentity } from '../helpers/age-files';
import { sha256Hex } from '../helpers/digests';
import { expectError } from '../helpers/responses';
import {
  type Auth,
  binaryBytes,
  breakingBody,
  created,
  digestBase64,
  MIB,
  newKey,
  OCTETS,
  offsetOf,
  patch,
  TUS,
  tailObjects,
  uploadStub,
} from '../helpers/tus';
import { call } from '../helpers/worker';

/** A PATCH as real clients send it: with its Content-Length (in-process requests get none by themselves). */
function sized(auth: Auth, path: string, offset: number, bytes: Uint8Array, headers: Record<string, string> = {}) {
  return patch(auth, path, offset, bytes, { 'Content-Length': String(bytes.length), ...headers });
}

async function sizedOk(auth: Auth, path: string, offset: number, bytes: Uint8Array): Promise<number> {
  const response = await sized(auth, path, offset, bytes);
  if (response.status !== 204) throw new Error(`PATCH at ${offset}: ${response.status} ${await response.text()}`);
  return Number(response.headers.get('upload-offset'));
}

/** The part size and part count the upload's object keeps. */
async function partsOf(id: string): Promise<{ partSize: number; partCount: number }> {
  return runInDurableObject(uploadStub(id), (_instance, state) => {
    const stored = state.storage.kv.get<{ partSize: number; partCount: number }>('upload');
    if (!stored) throw new Error('no upload state');
    return { partSize: stored.partSize, partCount: stored.partCount };
  });
}

async function storedSha(keyId: string, id: string): Promise<{ sha: string; etag: string }> {
  const object = await env.FILES.get(`files/${keyId}/${id}`);
  if (!object) throw new Error('no stored object');
  return { sha: await sha256Hex(await object.arrayBuffer()), etag: object.httpEtag };
}

describe('the part size chosen by the first PATCH', () => {
  it('stores 15 MiB sent in 6 MiB chunks as parts of 6, 6 and 3 MiB, with no tail object between PATCHes', async () => {
    const { id: keyId, auth } = await newKey('six mib chunks');
    const bytes = binaryBytes(15 * MIB, 31);
    const { path, id } = await created(auth, bytes.length, { filename: 'chunks.bin' });

    expect(await sizedOk(auth, path, 0, bytes.slice(0, 6 * MIB))).toBe(6 * MIB);
    expect(await partsOf(id)).toEqual({ partSize: 6 * MIB, partCount: 1 });
    expect(await tailObjects(id)).toEqual([]);
    expect(await sizedOk(auth, path, 6 * MIB, bytes.slice(6 * MIB, 12 * MIB))).toBe(12 * MIB);
    expect(await partsOf(id)).toEqual({ partSize: 6 * MIB, partCount: 2 });
    expect(await tailObjects(id)).toEqual([]);
    const last = await sized(auth, path, 12 * MIB, bytes.slice(12 * MIB));
    expect(last.headers.get('x-file-id')).toBe(id);

    const stored = await storedSha(keyId, id);
    // An R2 multipart object's ETag ends in -<parts>: 8 MiB parts would have made two.
    expect(stored.etag).toMatch(/-3"$/);
    expect(stored.sha).toBe(await sha256Hex(bytes));
    const record = await call(`/api/v2/files/${id}`, { headers: auth });
    expect(((await record.json()) as { data: { sha256: string } }).data.sha256).toBe(await sha256Hex(bytes));
  });

  it('sizes an age upload’s parts by the payload chunks that follow a first PATCH holding the header alone', async () => {
    const { id: keyId, auth } = await newKey('age header first');
    const file = await ageFile(await newIdentity(), 13 * MIB, 7);
    const header = file.header.length;
    const meta = { filename: 'f.age', encryption: 'age', meta: file.meta };
    const { path, id } = await created(auth, file.bytes.length, meta);

    // The header alone: no byte of a part yet, so the next PATCH still chooses.
    expect(await sizedOk(auth, path, 0, file.bytes.slice(0, header))).toBe(header);
    expect(await tailObjects(id)).toEqual([]);
    for (const [at, count] of [
      [header, 1],
      [header + 6 * MIB, 2],
    ] as const) {
      expect(await sizedOk(auth, path, at, file.bytes.slice(at, at + 6 * MIB))).toBe(at + 6 * MIB);
      // Each 6 MiB of payload is one whole part: no tail to write now and read back next time.
      expect(await partsOf(id)).toEqual({ partSize: 6 * MIB, partCount: count });
      expect(await tailObjects(id)).toEqual([]);
    }
    const last = await sized(auth, path, header + 12 * MIB, file.bytes.slice(header + 12 * MIB));
    expect(last.headers.get('x-file-id')).toBe(id);
    const stored = await storedSha(keyId, id);
    expect(stored.etag).toMatch(/-3"$/);
    expect(stored.sha).toBe(await sha256Hex(file.payload));
  });

  it('keeps 8 MiB parts when the first PATCH is under 5 MiB, even if larger chunks follow', async () => {
    const { id: keyId, auth } = await newKey('small first chunk');
    const bytes = binaryBytes(17 * MIB, 32);
    const { path, id } = await created(auth, bytes.length, { filename: 'small-first.bin' });

    expect(await sizedOk(auth, path, 0, bytes.slice(0, MIB))).toBe(MIB);
    expect(await partsOf(id)).toEqual({ partSize: PART_SIZE, partCount: 0 });
    expect(await sizedOk(auth, path, MIB, bytes.slice(MIB, 11 * MIB))).toBe(11 * MIB);
    // One 8 MiB part; the 3 MiB past it wait in the tail object.
    expect(await partsOf(id)).toEqual({ partSize: PART_SIZE, partCount: 1 });
    expect(await tailObjects(id)).toHaveLength(1);
    await sized(auth, path, 11 * MIB, bytes.slice(11 * MIB));

    const stored = await storedSha(keyId, id);
    expect(stored.etag).toMatch(/-3"$/);
    expect(stored.sha).toBe(await sha256Hex(bytes));
  });

  it('keeps 8 MiB parts for an upload whose first PATCH has no Content-Length', async () => {
    const { auth } = await newKey('chunked first');
    const bytes = binaryBytes(12 * MIB, 33);
    const { path, id } = await created(auth, bytes.length, { filename: 'chunked.bin' });
    const response = await patch(auth, path, 0, bytes.slice(0, 10 * MIB));
    expect(response.status).toBe(204);
    expect(await partsOf(id)).toEqual({ partSize: PART_SIZE, partCount: 1 });
    expect(await tailObjects(id)).toHaveLength(1);
  });
});

describe('resuming with the chosen part size', () => {
  it('keeps what arrived of a broken PATCH as the tail and completes in 6 MiB parts', async () => {
    const { id: keyId, auth } = await newKey('broken chunk');
    const bytes = binaryBytes(18 * MIB, 34);
    const { path, id } = await created(auth, bytes.length, { filename: 'broken-chunk.bin' });
    expect(await sizedOk(auth, path, 0, bytes.slice(0, 6 * MIB))).toBe(6 * MIB);

    // The next 6 MiB chunk breaks off after 2 MiB: those are kept, in a tail object.
    const broken = await call(path, {
      method: 'PATCH',
      headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': String(6 * MIB) },
      body: breakingBody(bytes.subarray(6 * MIB, 12 * MIB), 2 * MIB),
    });
    expect(broken.status).toBe(204);
    expect(await offsetOf(auth, path)).toBe(8 * MIB);
    expect(await partsOf(id)).toEqual({ partSize: 6 * MIB, partCount: 1 });
    expect(await tailObjects(id)).toHaveLength(1);

    // The client resumes with chunks of its size from the offset HEAD reports: the tail goes in front.
    expect(await sizedOk(auth, path, 8 * MIB, bytes.slice(8 * MIB, 14 * MIB))).toBe(14 * MIB);
    expect(await partsOf(id)).toEqual({ partSize: 6 * MIB, partCount: 2 });
    const last = await sized(auth, path, 14 * MIB, bytes.slice(14 * MIB));
    expect(last.headers.get('x-file-id')).toBe(id);
    expect(await tailObjects(id)).toEqual([]);

    const stored = await storedSha(keyId, id);
    expect(stored.etag).toMatch(/-3"$/);
    expect(stored.sha).toBe(await sha256Hex(bytes));
  });

  it('keeps the size a broken first PATCH chose from its Content-Length', async () => {
    const { id: keyId, auth } = await newKey('broken first');
    const bytes = binaryBytes(13 * MIB, 35);
    const { path, id } = await created(auth, bytes.length, { filename: 'broken-first.bin' });
    const broken = await call(path, {
      method: 'PATCH',
      headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': '0', 'Content-Length': String(6 * MIB) },
      body: breakingBody(bytes, 4 * MIB),
    });
    expect(broken.status).toBe(204);
    expect(await offsetOf(auth, path)).toBe(4 * MIB);
    expect(await partsOf(id)).toEqual({ partSize: 6 * MIB, partCount: 0 });

    expect(await sizedOk(auth, path, 4 * MIB, bytes.slice(4 * MIB, 10 * MIB))).toBe(10 * MIB);
    expect(await partsOf(id)).toEqual({ partSize: 6 * MIB, partCount: 1 });
    await sized(auth, path, 10 * MIB, bytes.slice(10 * MIB));
    const stored = await storedSha(keyId, id);
    // Parts of 6, 6 and 1 MiB: 8 MiB parts would have made two.
    expect(stored.etag).toMatch(/-3"$/);
    expect(stored.sha).toBe(await sha256Hex(bytes));
  });

  it('lets the first bytes choose again after a first PATCH refused by its checksum (its parts do not count)', async () => {
    const { id: keyId, auth } = await newKey('refused first');
    const bytes = binaryBytes(18 * MIB, 36);
    const { path, id } = await created(auth, bytes.length, { filename: 'refused.bin' });
    const wrong = await digestBase64('SHA-256', bytes.subarray(0, 10));
    const refused = await sized(auth, path, 0, bytes.slice(0, 10 * MIB), { 'Upload-Checksum': `sha256 ${wrong}` });
    await expectError(refused, 460, 'CHECKSUM_MISMATCH');
    expect(await offsetOf(auth, path)).toBe(0);

    // Now 6 MiB chunks: 6 MiB parts, replacing the refused PATCH's 10 MiB part number 1.
    for (let offset = 0; offset < bytes.length; offset += 6 * MIB) {
      await sizedOk(auth, path, offset, bytes.slice(offset, offset + 6 * MIB));
      if (offset === 0) expect(await partsOf(id)).toEqual({ partSize: 6 * MIB, partCount: 1 });
    }
    const stored = await storedSha(keyId, id);
    expect(stored.etag).toMatch(/-3"$/);
    expect(stored.sha).toBe(await sha256Hex(bytes));
  });
});

describe('chunkPartSize', () => {
  const GIB = 1024 * MIB;
  it('takes a chunk of 5 to 16 MiB as the part size, and splits a larger one into equal parts', () => {
    expect(chunkPartSize(PART_SIZE, 300 * MIB, 10 * MIB)).toBe(10 * MIB);
    expect(chunkPartSize(PART_SIZE, 300 * MIB, MIN_PART_SIZE)).toBe(MIN_PART_SIZE);
    expect(chunkPartSize(PART_SIZE, 300 * MIB, 10_000_000)).toBe(10_000_000);
    expect(chunkPartSize(PART_SIZE, 300 * MIB, CHUNK_PART_MAX)).toBe(CHUNK_PART_MAX);
    expect(chunkPartSize(PART_SIZE, 300 * MIB, MAX_PART_SIZE)).toBe(16 * MIB);
    expect(chunkPartSize(PART_SIZE, 300 * MIB, 50 * MIB)).toBe(12.5 * MIB);
    // 7 parts of 100 MiB would not be equal: 8 are.
    expect(chunkPartSize(PART_SIZE, 300 * MIB, 100 * MIB)).toBe(12.5 * MIB);
    // No exact split within twice the fewest parts: the fewest, and the rest left over.
    expect(chunkPartSize(PART_SIZE, 300 * MIB, 16 * MIB + 1)).toBe(Math.floor((16 * MIB + 1) / 2));
  });

  it('cuts larger parts when 10,000 parts of at most 16 MiB are too few for the upload', () => {
    // 200 GiB: 12.5 MiB parts would hold 122 GiB; 25 MiB parts hold it.
    expect(chunkPartSize(21 * MIB, 200 * GIB, 50 * MIB)).toBe(25 * MIB);
  });

  it('keeps the upload’s size for a small, unsized or whole-upload first PATCH', () => {
    expect(chunkPartSize(PART_SIZE, 300 * MIB, MIN_PART_SIZE - 1)).toBe(PART_SIZE);
    expect(chunkPartSize(PART_SIZE, 300 * MIB, undefined)).toBe(PART_SIZE);
    expect(chunkPartSize(PART_SIZE, 300 * MIB, 300 * MIB)).toBe(PART_SIZE);
  });

  it('never chooses parts too small for the upload to fit in 10,000 of them', () => {
    expect(chunkPartSize(8 * MIB, 60 * GIB, 5 * MIB)).toBe(8 * MIB);
    expect(chunkPartSize(8 * MIB, 60 * GIB, 10 * MIB)).toBe(10 * MIB);
  });
});
