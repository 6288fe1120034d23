// Age files in through every upload path with a key (multipart, bulk, raw PUT with and without a
// length, tus in one or many PATCHes, the header cut anywhere, tus concatenation): the server keeps
// the header apart, stores only the payload (size, SHA-256 and CRC-32 are the payload's), records
// `encryption` and `meta`, and the owner's download is the age file again, byte for byte.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { crc32 } from '../../src/lib/crc32';
import { type AgeFile, ageFile, type Identity, newIdentity, openWith, sha256Hex } from '../helpers/age-files';
import { readJson } from '../helpers/responses';
import { createUpload, metadata, patch, TUS, uploadAll } from '../helpers/tus';
import { filesForm, form } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

type Key = Awaited<ReturnType<typeof createKey>>;
let key: Key;
let owner: Identity;
let file: AgeFile;

beforeAll(async () => {
  key = await createKey('e2e uploads', { rateLimitRequests: 100_000 });
  owner = await newIdentity();
  // Three chunks and a bit: the payload crosses chunk and multipart-part boundaries nowhere near its header.
  file = await ageFile(owner, 3 * 65536 + 1234, 11);
});

// biome-ignore lint/suspicious/noExplicitAny: the records are read field by field
type Json = any;

async function ownerDownload(id: string, headers: Record<string, string> = {}) {
  return call(`/api/v2/files/${id}/download`, { headers: { ...key.auth, ...headers } });
}

/** The file as recorded and stored: the payload alone, and the owner's download the whole age file. */
async function expectStoredAsAge(id: string, expected: AgeFile) {
  const record: Json = await readJson('v2', await call(`/api/v2/files/${id}`, { headers: key.auth }));
  expect(record.data).toMatchObject({
    encryption: 'age',
    meta: expected.meta,
    e2eHeader: expected.header,
    size: expected.payload.length,
    mimeType: 'application/octet-stream',
    sha256: await sha256Hex(expected.payload),
  });
  const row = await env.DB.prepare('SELECT r2_key, crc32 FROM files WHERE id = ?1')
    .bind(id)
    .first<{ r2_key: string; crc32: number }>();
  expect(row?.crc32).toBe(crc32(expected.payload));
  const response = await ownerDownload(id);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-length')).toBe(String(expected.bytes.length));
  expect(response.headers.get('repr-digest')).toBeNull();
  const bytes = new Uint8Array(await response.arrayBuffer());
  expect(bytes).toEqual(expected.bytes);
  expect(await openWith(bytes, owner.identity)).toEqual(expected.plaintext);
  return row;
}

describe('an age file through each upload path with a key', () => {
  it('multipart: encryption=age before the file part, meta anywhere', async () => {
    const body = form([{ filename: 'f.age', content: file.bytes }], { encryption: 'age', meta: file.meta });
    const response = await call('/api/v2/upload', { method: 'POST', headers: key.auth, body });
    const upload: Json = await readJson('v2', response);
    expect(response.status).toBe(201);
    expect(upload.data).toMatchObject({ encryption: 'age', meta: file.meta, size: file.payload.length });
    const row = await expectStoredAsAge(upload.data.id, file);
    // R2 holds the payload, nothing else.
    const object = await env.FILES.get(row?.r2_key ?? '');
    expect(new Uint8Array(await (object as R2ObjectBody).arrayBuffer())).toEqual(file.payload);
  });

  it('raw PUT with a Content-Length, ?encryption=age and Edgeshare-Meta', async () => {
    const response = await call('/api/v2/upload/f.age?encryption=age', {
      method: 'PUT',
      headers: { ...key.auth, 'Edgeshare-Meta': file.meta },
      body: file.bytes,
    });
    const upload: Json = await readJson('v2', response);
    expect(response.status).toBe(201);
    await expectStoredAsAge(upload.data.id, file);
  });

  it('raw PUT chunked (no length), the header cut across small chunks', async () => {
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= file.bytes.length) return controller.close();
        const size = at < 400 ? 7 : 50_000;
        controller.enqueue(file.bytes.slice(at, at + size));
        at += size;
      },
    });
    const response = await call('/api/v2/upload/f.age?encryption=age', {
      method: 'PUT',
      headers: { ...key.auth, 'Edgeshare-Meta': file.meta },
      body,
      // @ts-expect-error workerd's fetch takes a streamed body
      duplex: 'half',
    });
    const upload: Json = await readJson('v2', response);
    expect(response.status).toBe(201);
    await expectStoredAsAge(upload.data.id, file);
  });

  it('bulk: encryption=age for every file, one meta per file in order', async () => {
    const second = await ageFile(owner, 100, 12);
    const body = filesForm(
      [
        { filename: 'a.age', content: file.bytes },
        { filename: 'b.age', content: second.bytes },
      ],
      { encryption: 'age' },
    );
    body.append('meta', file.meta);
    body.append('meta', second.meta);
    const response = await call('/api/v2/upload/bulk', { method: 'POST', headers: key.auth, body });
    const result: Json = await readJson('v2', response);
    expect(response.status).toBe(201);
    const ids = result.data.results.map((entry: Json) => entry.data?.id);
    expect(result.data.results.every((entry: Json) => entry.success)).toBe(true);
    await expectStoredAsAge(ids[0], file);
    await expectStoredAsAge(ids[1], second);
  });

  it('tus: the header cut across PATCHes is kept by the upload until complete', async () => {
    const meta = { filename: 'f.age', encryption: 'age', meta: file.meta };
    const { path, id } = await createUpload(key.auth, file.bytes.length, meta);
    // 5 bytes, then 100 (the header still open), then the rest in 64 KiB PATCHes.
    let offset = 0;
    for (const size of [5, 100]) {
      const response = await patch(key.auth, path, offset, file.bytes.slice(offset, offset + size));
      expect(response.status).toBe(204);
      offset += size;
    }
    for (let at = offset; at < file.bytes.length; at += 65536) {
      const response = await patch(key.auth, path, at, file.bytes.slice(at, at + 65536));
      expect(response.status).toBe(204);
    }
    await expectStoredAsAge(id, file);
    const head = await call(path, { method: 'HEAD', headers: { ...TUS, ...key.auth } });
    expect(head.headers.get('upload-length')).toBe(String(file.bytes.length));
  });

  it('tus concatenation: the header is the first partial’s first bytes, the file its payload', async () => {
    const cuts = [0, 60, 120_000, file.bytes.length];
    const urls: string[] = [];
    for (let i = 0; i + 1 < cuts.length; i++) {
      const part = file.bytes.slice(cuts[i], cuts[i + 1]);
      const { path } = await createUpload(key.auth, part.length, {}, { headers: { 'Upload-Concat': 'partial' } });
      await uploadAll(key.auth, path, part, 1 << 20);
      urls.push(path);
    }
    const response = await call('/api/v2/uploads', {
      method: 'POST',
      headers: {
        ...TUS,
        ...key.auth,
        'Upload-Concat': `final;${urls.join(' ')}`,
        'Upload-Metadata': metadata({ filename: 'f.age', encryption: 'age', meta: file.meta }),
      },
    });
    expect(response.status).toBe(201);
    const id = response.headers.get('x-file-id') ?? '';
    await expectStoredAsAge(id, file);
    // Ranges across the partials' boundaries and the header's.
    for (const [from, to] of [
      [0, 10],
      [50, 70],
      [file.header.length - 3, file.header.length + 3],
      [119_990, 120_010],
      [file.bytes.length - 5, file.bytes.length - 1],
    ] as const) {
      const ranged = await ownerDownload(id, { Range: `bytes=${from}-${to}` });
      expect(ranged.status).toBe(206);
      expect(new Uint8Array(await ranged.arrayBuffer())).toEqual(file.bytes.slice(from, to + 1));
    }
  });
});
