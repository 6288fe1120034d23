// R2 helpers: server-made object keys and a streaming writer with bounded memory.

import { concat } from '../upload/multipart';

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

type Pull = () => Promise<Uint8Array | null>;

/**
 * Streams chunks into R2. A body that fits in one part is sent with a single put; a larger one
 * goes through R2's multipart upload, one PART_SIZE buffer at a time, so memory stays at about
 * one part whatever the file's size. Any failure aborts the upload and removes what was written.
 */
export async function writeBlob(bucket: R2Bucket, key: string, pull: Pull, options: BlobOptions): Promise<StoredBlob> {
  const finish = await consumeIntoBlob(bucket, key, pull, options);
  return finish();
}

export type BlobOptions = {
  maxBytes: number;
  contentType: string;
  customMetadata?: Record<string, string>;
  /** Called with the bytes read so far before they are kept; throws to stop (e.g. quota). */
  onBytes?: (total: number) => Promise<void>;
  /** The request that owns the blob until its row exists (see files/upload-session.ts). */
  owner?: BlobOwner;
};

export type BlobOwner = {
  own(key: string, abort?: () => Promise<void>): void;
  disown(key: string): void;
  /** Throws when the owner may no longer store anything. */
  check(): void;
};

/**
 * The first half of writeBlob: reads the source to its end, uploading every full part on the
 * way, and returns the call that writes the rest (the single put, or the last part and the
 * completion). Callers that read several files from one body start the next file while the
 * previous one finishes.
 */
export async function consumeIntoBlob(
  bucket: R2Bucket,
  key: string,
  pull: Pull,
  options: BlobOptions,
): Promise<() => Promise<StoredBlob>> {
  const httpMetadata = { contentType: options.contentType };
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let total = 0;
  let upload: R2MultipartUpload | undefined;
  const parts: R2UploadedPart[] = [];

  const owner = options.owner;
  const flushPart = async (bytes: Uint8Array) => {
    if (!upload) {
      const created = await bucket.createMultipartUpload(key, { httpMetadata, customMetadata: options.customMetadata });
      upload = created;
      owner?.own(key, () => created.abort());
    }
    parts.push(await upload.uploadPart(parts.length + 1, bytes));
  };
  const cleanUp = async (error: unknown): Promise<never> => {
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
      pending.push(chunk);
      pendingBytes += chunk.length;
      while (pendingBytes >= PART_SIZE) {
        const joined = concat(pending, pendingBytes);
        // Copy the part out so the remainder does not pin the joined buffer.
        await flushPart(joined.slice(0, PART_SIZE));
        const rest = joined.subarray(PART_SIZE);
        pending = rest.length ? [rest.slice()] : [];
        pendingBytes = rest.length;
      }
    }
  } catch (error) {
    return cleanUp(error);
  }

  const rest = concat(pending, pendingBytes);
  return async () => {
    try {
      owner?.check();
      if (!upload) {
        const object = await bucket.put(key, rest, { httpMetadata, customMetadata: options.customMetadata });
        return { key, size: total, etag: object.httpEtag };
      }
      if (rest.length > 0) await flushPart(rest);
      const object = await upload.complete(parts);
      return { key, size: total, etag: object.httpEtag };
    } catch (error) {
      return cleanUp(error);
    }
  };
}
