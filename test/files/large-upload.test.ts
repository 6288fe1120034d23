import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Success, UploadRecord } from '../helpers/records';
import { api, readJson, VERSIONS } from '../helpers/responses';
import { filePartHeaders, postRaw, rawMultipart } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

const MIB = 1024 * 1024;
const TOTAL = 32 * MIB;
const CHUNK = 64 * 1024;
const PART_SIZE = 8 * MIB;
// gzip's magic bytes, so the type check accepts the otherwise random content as an archive.
const GZIP_MAGIC = [0x1f, 0x8b, 0x08, 0x00];

/** Chunk `index` of the test file: deterministic pseudo-random bytes (xorshift32 seeded by index). */
function chunkAt(index: number): Uint8Array {
  const words = new Uint32Array(CHUNK / 4);
  let state = (index + 1) * 0x9e3779b1;
  for (let i = 0; i < words.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    words[i] = state >>> 0;
  }
  const bytes = new Uint8Array(words.buffer);
  if (index === 0) bytes.set(GZIP_MAGIC);
  return bytes;
}

/** The bytes of the test file from offset, length bytes long, regenerated on demand. */
function slice(offset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let at = offset; at < offset + length; ) {
    const index = Math.floor(at / CHUNK);
    const within = at % CHUNK;
    const take = Math.min(CHUNK - within, offset + length - at);
    out.set(chunkAt(index).subarray(within, within + take), at - offset);
    at += take;
  }
  return out;
}

const hex = (buffer: ArrayBuffer) =>
  Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');

/** SHA-256 and length of a stream, read chunk by chunk without holding it whole. */
async function digestStream(stream: ReadableStream<Uint8Array>): Promise<{ sha256: string; size: number }> {
  const digest = new crypto.DigestStream('SHA-256');
  const writer = digest.getWriter();
  let size = 0;
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    size += next.value.length;
    await writer.write(next.value);
  }
  await writer.close();
  return { sha256: hex(await digest.digest), size };
}

/** A file of `total` bytes (the chunk sequence, the last chunk cut short), one chunk at a time. */
function fileStream(total: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= total) return controller.close();
      const chunk = chunkAt(at / CHUNK);
      controller.enqueue(chunk.subarray(0, Math.min(CHUNK, total - at)));
      at += CHUNK;
    },
  });
}

/** The test file as a multipart request body, produced one chunk at a time. */
function multipartStream(total: number): ReadableStream<Uint8Array> {
  const [head, tail] = (() => {
    const marker = new Uint8Array([0]);
    const framed = rawMultipart([{ headers: filePartHeaders('big.bin.gz', 'application/gzip'), content: marker }]);
    const at = framed.indexOf(0);
    return [framed.slice(0, at), framed.slice(at + 1)];
  })();
  const file = fileStream(total).getReader();
  let state: 'head' | 'file' | 'tail' | 'done' = 'head';
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (state === 'head') {
        controller.enqueue(head);
        state = 'file';
      } else if (state === 'file') {
        const next = await file.read();
        if (next.done) {
          controller.enqueue(tail);
          state = 'tail';
        } else {
          controller.enqueue(next.value);
        }
      } else {
        controller.close();
      }
    },
  });
}

describe.each(VERSIONS)('large uploads (%s)', (version) => {
  it('round-trips a 32 MiB streamed upload byte for byte through R2 multipart', async () => {
    const { id: keyId, auth } = await createKey();
    const expected = await digestStream(fileStream(TOTAL));
    expect(expected.size).toBe(TOTAL);

    const response = await postRaw(auth, multipartStream(TOTAL), {}, {}, api(version, '/upload'));
    expect(response.status).toBe(201);
    const { data } = await readJson<Success<UploadRecord>>(version, response);
    expect(data.size).toBe(TOTAL);
    expect(data.mimeType).toBe('application/gzip');

    const object = await env.FILES.head(`files/${keyId}/${data.id}`);
    expect(object?.size).toBe(TOTAL);
    expect(object?.httpMetadata?.contentType).toBe('application/gzip');

    const download = await call(api(version, `/files/${data.id}/download`), { headers: auth });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-length')).toBe(String(TOTAL));
    const actual = await digestStream(download.body ?? new ReadableStream());
    expect(actual).toEqual(expected);

    // Bytes on both sides of each 8 MiB part boundary come back in the right place.
    for (const boundary of [PART_SIZE, 2 * PART_SIZE, 3 * PART_SIZE]) {
      const ranged = await call(api(version, `/files/${data.id}/download`), {
        headers: { ...auth, Range: `bytes=${boundary - 8}-${boundary + 7}` },
      });
      expect(ranged.status).toBe(206);
      expect(new Uint8Array(await ranged.arrayBuffer())).toEqual(slice(boundary - 8, 16));
    }
  });

  it('stores a file just over one part, with a short last part, intact', async () => {
    const { id: keyId, auth } = await createKey();
    const total = PART_SIZE + 123;
    const expected = await digestStream(fileStream(total));
    const response = await postRaw(auth, multipartStream(total), {}, {}, api(version, '/upload'));
    expect(response.status).toBe(201);
    const { data } = await readJson<Success<UploadRecord>>(version, response);
    expect(data.size).toBe(total);
    expect((await env.FILES.head(`files/${keyId}/${data.id}`))?.size).toBe(total);
    const download = await call(api(version, `/files/${data.id}/download`), { headers: auth });
    expect(await digestStream(download.body ?? new ReadableStream())).toEqual(expected);
    const tail = await call(api(version, `/files/${data.id}/download`), { headers: { ...auth, Range: 'bytes=-130' } });
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(slice(total - 130, 130));
  });
});
