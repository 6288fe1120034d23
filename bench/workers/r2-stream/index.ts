// Baseline for uploads and downloads: the least a Worker can do to move a body into R2 and back.
//   PUT    /single/:key     request.body straight into one put() (the length is known from Content-Length)
//   PUT    /multipart/:key  request.body cut into 8 MiB parts of an R2 multipart upload, one at a time (../shared)
//   PUT    /digest/:key     the single put with a SHA-256 of the bytes on the way (crypto.DigestStream):
//                           what hashing costs a Worker, and nothing else
//   PUT    /digest-reads/:key  the same, read in 2 MiB pieces into one reused buffer (readAtLeast), as
//                           edgeshare's raw upload reads: the nearest a hashed put gets to the plain one
//   PUT    /digest-buffered/:key  the whole body read into memory, hashed by one crypto.subtle.digest,
//                           then one put(): the cheapest SHA-256 for a small body (not for large ones)
//   PUT    /crc-native/:key the digest-reads put with a CRC-32 of each read too, by node:zlib's native
//                           crc32 (src/lib/crc32.ts), as edgeshare computes it (bench: crc-*)
//   PUT    /crc-js/:key     the same with a byte-at-a-time JavaScript table CRC-32 instead: what the
//                           native one saves
//   PUT    /recorded/:key  the floor of an authenticated, recorded, hashed upload: one call to a
//                           per-caller Durable Object (authorize), the digest-reads put, a second
//                           call (the account's commit) and one D1 insert; no parsing, no checks
//   POST   /recorded-bulk/:batch  the floor of a recorded bulk upload (multipart/form-data with `files`
//                           parts): formData(), one call to the caller's object, every file hashed
//                           (crypto.subtle.digest) and put at once, a second call and one D1 batch
//                           of inserts; no checks, and the whole form held in memory
//   PATCH  /resumable/:key?offset=O&length=L  the floor of a tus PATCH (bench: tus-300mib): a call to the
//                           caller's object, a call to the upload's object for its state (offset, parts,
//                           SHA-256 state), the body read into one part buffer and hashed by the
//                           resumable SHA-256 in JavaScript (what tus must use: crypto.DigestStream
//                           keeps no state between requests), one uploadPart, a call saving the state;
//                           the last PATCH completes the upload and inserts its row. Each PATCH is one
//                           part (every PATCH but the last at least 5 MiB); no checks, no tail
//   GET    /object/:key     the object's body streamed back
//   DELETE /object/:key     clean-up between runs (not timed)

import { DurableObject } from 'cloudflare:workers';
import { crc32 } from '../../../src/lib/crc32.ts';
import { toHex } from '../../../src/lib/encoding.ts';
import { Sha256, type Sha256State } from '../../../src/lib/sha256.ts';
import { putMultipart } from '../shared/multipart.ts';

type BaselineEnv = { BUCKET: R2Bucket; DB: D1Database; COUNTER: DurableObjectNamespace<Counter> };

/** A per-caller object that counts in its storage: the stand-in for a key's and an account's object. */
export class Counter extends DurableObject<BaselineEnv> {
  hit(): number {
    const count = (this.ctx.storage.kv.get<number>('count') ?? 0) + 1;
    this.ctx.storage.kv.put('count', count);
    return count;
  }

  /** A resumable upload's state (the stand-in for its tus object), kept between PATCHes. */
  load(): ResumableState | undefined {
    return this.ctx.storage.kv.get<ResumableState>('upload');
  }

  save(state: ResumableState | null): void {
    if (state) this.ctx.storage.kv.put('upload', state);
    else this.ctx.storage.kv.delete('upload');
  }
}

type ResumableState = { uploadId: string; offset: number; parts: R2UploadedPart[]; hash: Sha256State };

/** One put of a body of known length, hashed as it passes; the digest is returned as hex. */
async function putHashed(bucket: R2Bucket, key: string, body: ReadableStream<Uint8Array>, length: number) {
  const digest = new crypto.DigestStream('SHA-256');
  const hasher = digest.getWriter();
  const hashing = new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      await hasher.write(chunk);
      controller.enqueue(chunk);
    },
    async flush() {
      await hasher.close();
    },
  });
  const object = await bucket.put(key, body.pipeThrough(hashing).pipeThrough(new FixedLengthStream(length)));
  return { object, sha256: toHex(new Uint8Array(await digest.digest)) };
}

/** The textbook byte-at-a-time table CRC-32 (reflected 0xEDB88320): the JavaScript one to beat. */
const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function tableCrc32(bytes: Uint8Array, previous: number): number {
  let c = ~previous;
  for (let i = 0; i < bytes.length; i++) c = (CRC_TABLE[(c ^ (bytes[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return ~c >>> 0;
}

/** The CRC-32 a route computes of each read, continued from the last (none: no CRC). */
type Crc32 = (bytes: Uint8Array, previous: number) => number;
const CRC32S: Record<string, Crc32> = { 'crc-native': crc32, 'crc-js': tableCrc32 };

/**
 * The single put hashed the way edgeshare's raw upload reads: `readAtLeast` (a workerd extension
 * of the BYOB reader) fills one reused buffer of 2 MiB, written to the hash and the put
 * before the next read (and given to `crc`, if any, first). The nearest a hashed upload can get
 * to the plain put.
 */
async function putHashedReads(
  bucket: R2Bucket,
  key: string,
  body: ReadableStream<Uint8Array>,
  length: number,
  crc?: Crc32,
) {
  const size = Math.min(length, 2 * 1024 * 1024);
  const digest = new crypto.DigestStream('SHA-256');
  const hasher = digest.getWriter();
  const fixed = new FixedLengthStream(length);
  const writer = fixed.writable.getWriter();
  const putting = bucket.put(key, fixed.readable);
  const reader = body.getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(size);
  let crc32Value = 0;
  for (;;) {
    const { value, done } = await reader.readAtLeast(size, new Uint8Array(buffer));
    if (value && value.length > 0) {
      if (crc) crc32Value = crc(value, crc32Value);
      await Promise.all([hasher.write(value), writer.write(value)]);
      buffer = value.buffer as ArrayBuffer;
    }
    if (done || !value) break;
  }
  await writer.close();
  await hasher.close();
  const object = await putting;
  return { object, sha256: toHex(new Uint8Array(await digest.digest)), crc32: crc ? crc32Value : undefined };
}

/** One PATCH of a resumable upload at its floor (see /resumable above): the part is this PATCH's body. */
async function patchResumable(request: Request, env: BaselineEnv, key: string): Promise<Response> {
  const url = new URL(request.url);
  const offset = Number(url.searchParams.get('offset'));
  const length = Number(url.searchParams.get('length'));
  const size = Number(request.headers.get('content-length'));
  await env.COUNTER.getByName(request.headers.get('authorization') ?? 'anonymous').hit();
  const upload = env.COUNTER.getByName(`upload:${key}`);
  const state = (await upload.load()) ?? {
    uploadId: (await env.BUCKET.createMultipartUpload(key)).uploadId,
    offset: 0,
    parts: [],
    hash: new Sha256().save(),
  };
  if (state.offset !== offset || !request.body) return new Response('conflict', { status: 409 });
  const hash = Sha256.restore(state.hash);
  // Read straight into the part, 1 MiB at most per read, each piece hashed as it arrives.
  const reader = request.body.getReader({ mode: 'byob' });
  let buffer = new ArrayBuffer(size);
  let filled = 0;
  while (filled < size) {
    const { value, done } = await reader.read(new Uint8Array(buffer, filled, Math.min(size - filled, 1024 * 1024)));
    if (done || !value) break;
    buffer = value.buffer as ArrayBuffer;
    hash.update(value);
    filled += value.length;
  }
  const multipart = env.BUCKET.resumeMultipartUpload(key, state.uploadId);
  const parts = [...state.parts, await multipart.uploadPart(state.parts.length + 1, new Uint8Array(buffer, 0, filled))];
  if (offset + filled < length) {
    await upload.save({ ...state, offset: offset + filled, parts, hash: hash.save() });
    return new Response(null, { status: 204, headers: { 'upload-offset': String(offset + filled) } });
  }
  const object = await multipart.complete(parts);
  const sha256 = toHex(hash.digest());
  await upload.save(null);
  await env.DB.prepare('INSERT INTO uploads (key, size, sha256, created_at) VALUES (?1, ?2, ?3, ?4)')
    .bind(key, length, sha256, Date.now())
    .run();
  return Response.json({ key, size: object.size, sha256 }, { headers: { 'upload-offset': String(length) } });
}

export default {
  async fetch(request, env) {
    const [, route, key] = new URL(request.url).pathname.split('/');
    if (!key) return new Response('not found', { status: 404 });
    if (request.method === 'PATCH' && route === 'resumable') return patchResumable(request, env, key);
    if (request.method === 'PUT' && request.body && (route === 'single' || route === 'multipart')) {
      const object =
        route === 'single'
          ? await env.BUCKET.put(key, request.body)
          : await putMultipart(env.BUCKET, key, request.body);
      return Response.json({ key, size: object?.size, etag: object?.httpEtag });
    }
    if (request.method === 'PUT' && request.body && route === 'digest') {
      const length = Number(request.headers.get('content-length'));
      const { object, sha256 } = await putHashed(env.BUCKET, key, request.body, length);
      return Response.json({ key, size: object?.size, etag: object?.httpEtag, sha256 });
    }
    if (request.method === 'PUT' && request.body && (route === 'digest-reads' || (route && route in CRC32S))) {
      const length = Number(request.headers.get('content-length'));
      const crc = route ? CRC32S[route] : undefined;
      const { object, sha256, crc32 } = await putHashedReads(env.BUCKET, key, request.body, length, crc);
      return Response.json({ key, size: object?.size, etag: object?.httpEtag, sha256, crc32 });
    }
    if (request.method === 'PUT' && request.body && route === 'recorded') {
      const length = Number(request.headers.get('content-length'));
      const caller = env.COUNTER.getByName(request.headers.get('authorization') ?? 'anonymous');
      await caller.hit();
      const { object, sha256 } = await putHashedReads(env.BUCKET, key, request.body, length);
      await caller.hit();
      await env.DB.prepare('INSERT INTO uploads (key, size, sha256, created_at) VALUES (?1, ?2, ?3, ?4)')
        .bind(key, length, sha256, Date.now())
        .run();
      return Response.json({ key, size: object?.size, etag: object?.httpEtag, sha256 });
    }
    if (request.method === 'POST' && route === 'recorded-bulk') {
      const caller = env.COUNTER.getByName(request.headers.get('authorization') ?? 'anonymous');
      await caller.hit();
      const files = (await request.formData()).getAll('files').filter((entry) => typeof entry !== 'string');
      const stored = await Promise.all(
        files.map(async (file) => {
          const bytes = await file.arrayBuffer();
          const sha256 = toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
          const objectKey = `${key}-${crypto.randomUUID()}`;
          await env.BUCKET.put(objectKey, bytes, { httpMetadata: { contentType: file.type } });
          return { key: objectKey, size: bytes.byteLength, sha256 };
        }),
      );
      await caller.hit();
      const insert = env.DB.prepare('INSERT INTO uploads (key, size, sha256, created_at) VALUES (?1, ?2, ?3, ?4)');
      await env.DB.batch(stored.map((file) => insert.bind(file.key, file.size, file.sha256, Date.now())));
      return Response.json({ keys: stored.map((file) => file.key) }, { status: 201 });
    }
    if (request.method === 'PUT' && route === 'digest-buffered') {
      const bytes = await request.arrayBuffer();
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
      const sha256 = toHex(digest);
      const object = await env.BUCKET.put(key, bytes);
      return Response.json({ key, size: object?.size, etag: object?.httpEtag, sha256 });
    }
    if (route === 'object' && request.method === 'GET') {
      const object = await env.BUCKET.get(key);
      if (!object) return new Response('not found', { status: 404 });
      return new Response(object.body, {
        headers: {
          'content-type': 'application/octet-stream',
          'content-length': String(object.size),
          etag: object.httpEtag,
        },
      });
    }
    if (route === 'object' && request.method === 'DELETE') {
      await Promise.all([env.BUCKET.delete(key), env.DB.prepare('DELETE FROM uploads WHERE key = ?1').bind(key).run()]);
      return new Response(null, { status: 204 });
    }
    return new Response('not found', { status: 404 });
  },
} satisfies ExportedHandler<BaselineEnv>;
