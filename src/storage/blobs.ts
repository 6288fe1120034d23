// R2 helpers: server-made object keys and a streaming writer with bounded memory.

import { concat } from '../lib/bytes';
import { StreamingChecksums } from '../lib/streaming-checksums';

/** R2 parts must be at least 5 MiB and equal in size except the last. */
export const PART_SIZE = 8 * 1024 * 1024;

export const blobKey = (keyId: string, fileId: string) => `files/${keyId}/${fileId}`;

export type StoredBlob = { key: string; size: number; etag: string };

export class SizeLimitError extends Error {
  override name = 'SizeLimitError';
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    super(`file is larger than ${maxBytes} bytes`);
    this.maxBytes = maxBytes;
  }
}

/** The body ended before (or ran past) the length it declared. */
export class BodyLengthError extends Error {
  override name = 'BodyLengthError';
}

type Pull = () => Promise<Uint8Array | null>;

export type BlobOptions = {
  maxBytes: number;
  contentType: string;
  customMetadata?: Record<string, string>;
  /** Called with the bytes read so far before they are kept; throws to stop (e.g. quota). */
  onBytes?: (total: number) => Promise<void>;
  /** The request that owns the blob until its row exists (see files/upload-session.ts). */
  owner?: BlobOwner;
  /**
   * The body's exact length, when the request states it (a raw upload's Content-Length): the
   * bytes then stream into one R2 put as they arrive, without parts or buffering a part.
   */
  knownLength?: number;
  /** The source reuses its buffer: a chunk is valid only until the next pull (see ChunkSource). */
  transientChunks?: boolean;
};

export type BlobOwner = {
  own(key: string, abort?: () => Promise<void>): void;
  disown(key: string): void;
  /** Throws when the owner may no longer store anything. */
  check(): void;
};

/**
 * The source read to its end: its size, its SHA-256 (hex) and CRC-32 (unsigned), both computed
 * from the same writes as the bytes passed, and the write's completion (the put, or the last part).
 */
export type ConsumedBlob = { size: number; sha256: string; crc32: number; finish: () => Promise<StoredBlob> };

/**
 * Streams chunks into R2. A body that fits in one part is kept and stored with a single put
 * (measured locally: faster than streaming the chunks into a put as they arrive, and far faster
 * to read back than a multipart object; see docs/benchmarks.md); a larger one goes through R2's
 * multipart upload, one PART_SIZE buffer at a time (each byte copied once), so memory stays at
 * about one part whatever the file's size. Reads the source to its end, uploading every full
 * part on the way, and returns the size with the call that finishes the write: callers that
 * read several files from one body start the next while the previous one finishes, and commit
 * the size to the quota meanwhile. Any failure aborts the upload and removes what was written.
 */
export async function consumeIntoBlob(
  bucket: R2Bucket,
  key: string,
  pull: Pull,
  options: BlobOptions,
): Promise<ConsumedBlob> {
  if (options.knownLength !== undefined) return streamIntoPut(bucket, key, pull, options, options.knownLength);
  const httpMetadata = { contentType: options.contentType };
  const owner = options.owner;
  const chunks: Uint8Array[] = [];
  let buffered = 0;
  let total = 0;
  let upload: R2MultipartUpload | undefined;
  const parts: R2UploadedPart[] = [];
  let sums = { sha256: '', crc32: 0 };
  // Full parts are hashed as they are cut (one DigestStream write and one CRC-32 call per part
  // instead of one per request chunk); the tail is hashed once after the loop, so the last part is
  // not hashed again.
  const flushPart = async (hashed = false) => {
    const part = concat(chunks, buffered);
    chunks.length = 0;
    buffered = 0;
    if (!hashed) await hash.update(part);
    if (!upload) {
      const created = await bucket.createMultipartUpload(key, { httpMetadata, customMetadata: options.customMetadata });
      upload = created;
      owner?.own(key, () => created.abort());
    }
    parts.push(await upload.uploadPart(parts.length + 1, part));
  };
  const hash = new StreamingChecksums();
  const cleanUp = async (error: unknown): Promise<never> => {
    hash.abort();
    if (upload) await upload.abort().catch(() => undefined);
    // A failed put may still leave a truncated object behind locally.
    await bucket.delete(key).catch(() => undefined);
    owner?.disown(key);
    throw error;
  };

  try {
    owner?.own(key);
    for (let chunk = await pull(); chunk; chunk = await pull()) {
      owner?.check();
      total += chunk.length;
      if (total > options.maxBytes) throw new SizeLimitError(options.maxBytes);
      await options.onBytes?.(total);
      // Whole parts only: a part is copied once, from the chunks that make it up.
      let rest = chunk;
      while (buffered + rest.length >= PART_SIZE) {
        const take = PART_SIZE - buffered;
        // flushPart copies (or uploads) the part before the next pull.
        chunks.push(rest.subarray(0, take));
        buffered += take;
        await flushPart();
        rest = rest.subarray(take);
      }
      if (rest.length > 0) {
        chunks.push(options.transientChunks ? rest.slice() : rest);
        buffered += rest.length;
      }
    }
    // The bytes past the last full part, hashed once and kept as one buffer for the put or last part.
    if (buffered > 0) {
      const tail = concat(chunks, buffered);
      await hash.update(tail);
      chunks.length = 0;
      chunks.push(tail);
    }
    sums = await hash.finish();
  } catch (error) {
    return cleanUp(error);
  }

  return {
    size: total,
    ...sums,
    finish: async () => {
      try {
        owner?.check();
        if (!upload) {
          const object = await bucket.put(key, concat(chunks, buffered), {
            httpMetadata,
            customMetadata: options.customMetadata,
          });
          return { key, size: total, etag: object.httpEtag };
        }
        if (buffered > 0) await flushPart(true);
        const object = await upload.complete(parts);
        return { key, size: total, etag: object.httpEtag };
      } catch (error) {
        return cleanUp(error);
      }
    },
  };
}

// Requests deliver small chunks; R2 takes a stream faster in larger writes (see
// docs/platform-notes: about 1 MiB), so chunks are gathered up to this before each write.
const PUT_WRITE_BYTES = 1024 * 1024;

/**
 * The fastest way in when the length is known: the bytes go through a FixedLengthStream into a
 * single R2 put that runs while they are read, hashed on the way. Memory: one write of about
 * 1 MiB. The put is complete once the last byte is written, so `finish` only awaits it.
 */
async function streamIntoPut(
  bucket: R2Bucket,
  key: string,
  pull: Pull,
  options: BlobOptions,
  length: number,
): Promise<ConsumedBlob> {
  const owner = options.owner;
  if (length > options.maxBytes) throw new SizeLimitError(options.maxBytes);
  // The whole length counts at once: a body the quota cannot take is refused before the put starts.
  await options.onBytes?.(length);
  const hash = new StreamingChecksums();
  const fixed = new FixedLengthStream(length);
  const writer = fixed.writable.getWriter();
  // A cleanup that starts meanwhile (the client left, the deadline passed) ends the put first.
  owner?.own(key, () => writer.abort(new Error('upload cancelled')).catch(() => undefined));
  const putting = bucket.put(key, fixed.readable, {
    httpMetadata: { contentType: options.contentType },
    customMetadata: options.customMetadata,
  });
  // Awaited below (or in finish); a failure meanwhile is seen there.
  putting.catch(() => undefined);
  const chunks: Uint8Array[] = [];
  let buffered = 0;
  let total = 0;
  // Hashed in the same ~1 MiB writes as the put: one DigestStream write (and one CRC-32 call) per
  // write instead of one per request chunk (each awaited write costs a turn; measured with the
  // bench's digest-* and crc-* cases).
  // Both writes are done with the bytes when they resolve, so a transient chunk may be reused.
  const write = async () => {
    const bytes = concat(chunks, buffered);
    chunks.length = 0;
    buffered = 0;
    await Promise.all([hash.update(bytes), writer.write(bytes)]);
  };
  try {
    for (let chunk = await pull(); chunk; chunk = await pull()) {
      owner?.check();
      total += chunk.length;
      if (total > options.maxBytes) throw new SizeLimitError(options.maxBytes);
      if (total > length) throw new BodyLengthError('the body is longer than its Content-Length');
      chunks.push(chunk);
      buffered += chunk.length;
      // A transient chunk (already a large read) is written before the source reuses its buffer.
      if (buffered >= PUT_WRITE_BYTES || options.transientChunks) await write();
    }
    if (total !== length) throw new BodyLengthError(`the body ended after ${total} of its ${length} bytes`);
    if (buffered > 0) await write();
    await writer.close();
    const sums = await hash.finish();
    return {
      size: total,
      ...sums,
      finish: async () => {
        try {
          owner?.check();
          const object = await putting;
          return { key, size: total, etag: object.httpEtag };
        } catch (error) {
          await bucket.delete(key).catch(() => undefined);
          owner?.disown(key);
          throw error;
        }
      },
    };
  } catch (error) {
    hash.abort();
    await writer.abort(error).catch(() => undefined);
    await putting.catch(() => undefined);
    // A failed put may still leave a truncated object behind locally.
    await bucket.delete(key).catch(() => undefined);
    owner?.disown(key);
    throw error;
  }
}
