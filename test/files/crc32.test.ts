// The CRC-32 of every stored file (issue 31): computed on every upload path in the same pass as
// the SHA-256 and kept with the row (files.crc32, unsigned), so a ZIP of the files can carry it
// in its local headers. Checked against node:zlib's own crc32 of the bytes sent and of the bytes
// stored. A tus upload carries the CRC's state across PATCHes in its object; a final upload
// combines its partials' CRCs (it reads them once, for its SHA-256, before it exists).
import { env, evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { backfillDigests } from '../../src/maintenance/digest-backfill';
import { chunked, putChunked, putRaw, sha256Hex, textOf } from '../helpers/digests';
import type { Success } from '../helpers/records';
import { makeRequest, newOwner, receivedRows } from '../helpers/requests';
import { expectError, json } from '../helpers/responses';
import {
  binaryBytes,
  breakingBody,
  created,
  createFinal,
  joined,
  MIB,
  metadata,
  newKey,
  OCTETS,
  partialOf,
  patch,
  patchOk,
  TUS,
  uploadStub,
} from '../helpers/tus';
import { form } from '../helpers/upload';
import { call } from '../helpers/worker';

const zlib = (bytes: Uint8Array) => zlibCrc32(bytes) >>> 0;

/** The row's crc32 as D1 holds it. */
async function storedCrc32(id: string): Promise<number | null> {
  const row = await env.DB.prepare('SELECT crc32 FROM files WHERE id = ?1').bind(id).first<{ crc32: number | null }>();
  if (!row) throw new Error(`no row for ${id}`);
  return row.crc32;
}

/** The file's bytes as a download gives them. */
async function downloaded(auth: Record<string, string>, id: string): Promise<Uint8Array> {
  const response = await call(`/api/v2/files/${id}/download`, { headers: auth });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

/** The row holds zlib's CRC-32 of the bytes sent, which is also that of the bytes stored. */
async function expectCrc32(auth: Record<string, string>, id: string, sent: Uint8Array): Promise<void> {
  expect(await storedCrc32(id), id).toBe(zlib(sent));
  expect(zlib(await downloaded(auth, id)), id).toBe(zlib(sent));
}

/** Text bytes whose CRC-32 has its top bit set: stored unsigned, never as a negative number. */
function highBitText(size: number): Uint8Array {
  for (let seed = 1; ; seed++) {
    const bytes = textOf(size, seed);
    if (zlib(bytes) >= 2 ** 31) return bytes;
  }
}

const idOf = async (response: Response) => {
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: { id: string } }).data.id;
};

type UploadState = { offset: number; crc32?: number | null };
const stateOf = (id: string) =>
  runInDurableObject(uploadStub(id), (_instance, state) => state.storage.kv.get<UploadState>('upload'));

describe('the CRC-32 of every upload', () => {
  it('POST /upload (v1 and v2): a small file, one past a multipart part, and a CRC with its top bit set', async () => {
    const { auth } = await newKey('crc-form');
    const files = [textOf(1000, 1), textOf(9 * MIB + 13, 2), highBitText(300)];
    for (const [index, bytes] of files.entries()) {
      const version = index % 2 === 0 ? 'v2' : 'v1';
      const body = form([{ filename: `f${index}.txt`, type: 'text/plain', content: bytes }]);
      const id = await idOf(await call(`/api/${version}/upload`, { method: 'POST', headers: auth, body }));
      await expectCrc32(auth, id, bytes);
    }
    expect(zlib(files[2] as Uint8Array)).toBeGreaterThanOrEqual(2 ** 31);
  });

  it('POST /upload/bulk: each file its own', async () => {
    const { auth } = await newKey('crc-bulk');
    const files = [textOf(10, 3), textOf(70_000, 4), textOf(8 * MIB + 1, 5)];
    const body = form(files.map((content, index) => ({ name: 'files', filename: `b${index}.txt`, content })));
    const response = await call('/api/v2/upload/bulk', { method: 'POST', headers: auth, body });
    expect(response.status).toBe(201);
    type Results = { results: { success: boolean; data?: { id: string } }[] };
    const { results } = (await json<Success<Results>>(response)).data;
    expect(results.map((result) => result.success)).toEqual([true, true, true]);
    for (const [index, result] of results.entries()) {
      await expectCrc32(auth, result.data?.id ?? '', files[index] as Uint8Array);
    }
  });

  it('PUT /upload/{filename}: with a Content-Length (one put) and chunked (parts), and an empty body', async () => {
    const { auth } = await newKey('crc-raw');
    const sized = textOf(3 * MIB + 7, 6);
    await expectCrc32(auth, await idOf(await putRaw(auth, 'sized.txt', sized)), sized);
    const streamed = textOf(9 * MIB + 1, 7);
    await expectCrc32(auth, await idOf(await putChunked(auth, 'streamed.txt', streamed)), streamed);
    const empty = new Uint8Array(0);
    const id = await idOf(await putChunked(auth, 'empty.txt', empty));
    expect(await storedCrc32(id)).toBe(0);
  });

  it('file requests: the multipart form, the raw PUT and tus through the request', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxFiles: 10 });
    const formBytes = [textOf(2000, 8), textOf(9 * MIB, 9)];
    const data = new FormData();
    for (const [index, bytes] of formBytes.entries()) data.append('file', new File([bytes], `r${index}.txt`));
    expect((await call(request.uploadUrl, { method: 'POST', body: data })).status).toBe(201);
    const raw = textOf(5000, 10);
    const put = await call(`${request.uploadUrl}/raw.txt`, {
      method: 'PUT',
      headers: { 'Content-Length': String(raw.length) },
      body: raw,
    });
    expect(put.status).toBe(201);
    const chunkedRaw = textOf(6 * MIB + 3, 11);
    const streamed = await call(`${request.uploadUrl}/chunked.txt`, {
      method: 'PUT',
      body: chunked(chunkedRaw),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(201);
    const tusBytes = binaryBytes(9 * MIB + 100, 12);
    const tus = await call(request.tusUrl, {
      method: 'POST',
      headers: { ...TUS, 'Upload-Length': String(tusBytes.length), 'Upload-Metadata': metadata({ filename: 't.bin' }) },
    });
    expect(tus.status).toBe(201);
    const location = tus.headers.get('location') ?? '';
    const first = await call(location, {
      method: 'PATCH',
      headers: { ...TUS, ...OCTETS, 'Upload-Offset': '0' },
      body: tusBytes.slice(0, 5 * MIB + 1),
    });
    expect(first.status).toBe(204);
    const last = await call(location, {
      method: 'PATCH',
      headers: { ...TUS, ...OCTETS, 'Upload-Offset': String(5 * MIB + 1) },
      body: tusBytes.slice(5 * MIB + 1),
    });
    expect(last.status).toBe(204);

    const sent = [...formBytes, raw, chunkedRaw, tusBytes];
    const rows = await receivedRows(request.id);
    expect(rows).toHaveLength(sent.length);
    const bySize = new Map(sent.map((bytes) => [bytes.length, bytes]));
    for (const row of rows) await expectCrc32(owner.auth, row.id, bySize.get(row.size) as Uint8Array);
  });

  it('tus: the CRC-32 state goes on across unaligned PATCHes, restarts of the object and a body broken off', async () => {
    const { auth } = await newKey('crc-tus');
    const bytes = binaryBytes(19 * MIB + 12_345, 13);
    const { path, id } = await created(auth, bytes.length, { filename: 'video.bin' });
    expect((await stateOf(id))?.crc32).toBe(0);
    // After every PATCH the object holds the CRC-32 of exactly the bytes up to its offset.
    const expectState = async () => {
      const state = await stateOf(id);
      expect(state?.crc32).toBe(zlib(bytes.subarray(0, state?.offset ?? -1)));
      return state?.offset ?? 0;
    };
    let offset = await patchOk(auth, path, 0, bytes.slice(0, 3 * MIB + 7));
    expect(await expectState()).toBe(offset);
    await evictDurableObject(uploadStub(id));
    offset = await patchOk(auth, path, offset, bytes.slice(offset, 9 * MIB + 1));
    expect(await expectState()).toBe(offset);
    await evictDurableObject(uploadStub(id));
    const cut = await patch(auth, path, offset, breakingBody(bytes.slice(offset, 14 * MIB), 2 * MIB + 3));
    expect(cut.status).toBeGreaterThanOrEqual(200);
    offset = await expectState();
    const last = await patch(auth, path, offset, bytes.slice(offset));
    expect(last.status).toBe(204);
    await expectCrc32(auth, last.headers.get('x-file-id') ?? '', bytes);
  });

  it('tus: an upload sent whole at creation', async () => {
    const { auth } = await newKey('crc-tus-small');
    const bytes = binaryBytes(1000, 14);
    const response = await call('/api/v2/uploads', {
      method: 'POST',
      headers: {
        ...TUS,
        ...auth,
        ...OCTETS,
        'Upload-Length': String(bytes.length),
        'Upload-Metadata': metadata({ filename: 'a.bin' }),
      },
      body: bytes,
    });
    expect(response.status).toBe(201);
    await expectCrc32(auth, response.headers.get('x-file-id') ?? '', bytes);
  });

  it('tus: an upload begun before CRCs were kept gets none on the way (never a wrong one), then the backfill’s', async () => {
    const { auth } = await newKey('crc-tus-old');
    const bytes = binaryBytes(9 * MIB + 5, 15);
    const { path, id } = await created(auth, bytes.length, { filename: 'old.bin' });
    const offset = await patchOk(auth, path, 0, bytes.slice(0, 8 * MIB + 1));
    // Its object's state as a version before CRCs saved it: no crc32 at all.
    await runInDurableObject(uploadStub(id), (_instance, state) => {
      const saved = state.storage.kv.get<UploadState>('upload');
      if (!saved) throw new Error('no state');
      delete saved.crc32;
      state.storage.kv.put('upload', saved);
    });
    const last = await patch(auth, path, offset, bytes.slice(offset));
    expect(last.status).toBe(204);
    const fileId = last.headers.get('x-file-id') ?? '';
    expect(await storedCrc32(fileId)).toBeNull();
    for (let run = 0; run < 50 && (await storedCrc32(fileId)) === null; run++) {
      await backfillDigests({ db: env.DB, bucket: env.FILES });
    }
    await expectCrc32(auth, fileId, bytes);
  });
});

describe('the CRC-32 of a tus final upload', () => {
  /**
   * Three complete partials, each larger than a type sniff, and their bytes. The first is past an
   * R2 part where the combination itself is checked (`first`); the tests of a final whose digest
   * read fails or fills in a lost CRC take a smaller one: that path reads each partial whole
   * whatever its size, and 16 MiB more of uploads and reads cost them seconds of CPU.
   */
  async function partials(auth: Record<string, string>, seed: number, first = 9 * MIB + 3) {
    const bytes = [binaryBytes(first, seed), binaryBytes(MIB + 5, seed + 1), binaryBytes(100 * 1024, seed + 2)];
    const made = [];
    for (const part of bytes) made.push(await partialOf(auth, part));
    return { made, whole: joined(bytes) };
  }

  /** FILES whose whole-object reads of segments fail: the final's digest read cannot happen. */
  const noWholeSegmentReads = new Proxy(env.FILES, {
    get(bucket, property) {
      const value = Reflect.get(bucket, property, bucket);
      if (property !== 'get') return typeof value === 'function' ? value.bind(bucket) : value;
      return (key: string, options?: R2GetOptions) => {
        if (key.startsWith('segments/') && !options?.range) throw new Error('injected: segment read');
        return bucket.get(key, options);
      };
    },
  });

  it('combines its partials’ CRC-32s in order; its SHA-256 is read through them before it exists', async () => {
    const { auth } = await newKey('crc-final');
    const { made, whole } = await partials(auth, 21);
    const response = await createFinal(
      auth,
      made.map((partial) => partial.path),
    );
    expect(response.status).toBe(201);
    const id = response.headers.get('x-file-id') ?? '';
    const row = await env.DB.prepare('SELECT sha256, crc32 FROM files WHERE id = ?1')
      .bind(id)
      .first<{ sha256: string | null; crc32: number | null }>();
    expect(row?.sha256).toBe(await sha256Hex(whole));
    expect(row?.crc32).toBe(zlib(whole));
    expect(zlib(await downloaded(auth, id))).toBe(zlib(whole));
  });

  it('is not created when its partials cannot be read to hash them: 503, and the same final succeeds after', async () => {
    const { auth } = await newKey('crc-final-unread');
    const { made, whole } = await partials(auth, 23, 2 * MIB + 3);
    const paths = made.map((partial) => partial.path);
    const refused = await call(
      '/api/v2/uploads',
      { method: 'POST', headers: { ...TUS, ...auth, 'Upload-Concat': `final;${paths.join(' ')}` } },
      { FILES: noWholeSegmentReads },
    );
    await expectError(refused, 503, 'SERVICE_UNAVAILABLE');
    const listed = await json<Success<{ files: unknown[] }>>(await call('/api/v2/files', { headers: auth }));
    expect(listed.data.files).toEqual([]);
    const response = await createFinal(auth, paths);
    expect(response.status).toBe(201);
    await expectCrc32(auth, response.headers.get('x-file-id') ?? '', whole);
  });

  it('gets it from its digest read when a partial was completed before CRCs were kept', async () => {
    const { auth } = await newKey('crc-final-old');
    const { made, whole } = await partials(auth, 31, 2 * MIB + 3);
    await runInDurableObject(uploadStub(made[1]?.id ?? ''), (_instance, state) => {
      const saved = state.storage.kv.get<UploadState>('upload');
      if (!saved) throw new Error('no state');
      delete saved.crc32;
      state.storage.kv.put('upload', saved);
    });
    const response = await createFinal(
      auth,
      made.map((partial) => partial.path),
    );
    expect(response.status).toBe(201);
    // The final's one digest read, before it was recorded, computed both.
    await expectCrc32(auth, response.headers.get('x-file-id') ?? '', whole);
  });
});
