// PUT /upload/{filename} (v2): the file is the raw request body, as `curl -T` sends it.
import { validationError } from '../errors';
import { byteReader } from '../lib/byte-reader';
import { DigestFieldError, parseDigestField } from '../lib/digest';
import type { FileRow } from '../storage/files-repo';
import { type ChunkSource, checkDigest, type PendingFile, readFilePart, recordFile } from './upload';
import { fileTooLarge, uploadError } from './upload-errors';
import type { RecordOptions } from './upload-fields';
import type { UploadDeps } from './upload-session';

export type RawUpload = {
  /** The `filename` path segment, percent-decoded: the original name (cleaned like a form's). */
  name: string;
  /** isPublic and expiresIn from the query, validated by the form's schema. */
  options: RecordOptions;
};

/**
 * Stores a raw body. With a Content-Length the bytes stream into one R2 put as they arrive (the
 * fastest path); without one (chunked) they go through the multipart writer the form uses. The
 * type is decided from the first bytes against the declared Content-Type, the digest computed on
 * the way and compared with a Repr-Digest/Content-Digest the client sent, all before the quota
 * commit and the row: a refused file leaves nothing behind.
 */
export async function uploadRawFile(deps: UploadDeps, request: Request, upload: RawUpload): Promise<FileRow> {
  if (upload.name.trim() === '') throw validationError('filename', 'name the file in the path: PUT /upload/{filename}');
  const length = declaredLength(request);
  if (length !== undefined && length > deps.config.MAX_FILE_SIZE) throw fileTooLarge(deps.config.MAX_FILE_SIZE);
  const expected = assertedDigest(request.headers);
  const source = length !== undefined && length > 0 ? byobSource(request.body, length) : bodySource(request.body);
  const contentType = request.headers.get('content-type') ?? undefined;
  let file: PendingFile | undefined;
  try {
    deps.session.check();
    file = await readFilePart(deps, source, { filename: upload.name, contentType, length });
    checkDigest(file, expected?.sha256, expected?.header ?? 'Repr-Digest');
    return await recordFile(deps, file, upload.options);
  } catch (error) {
    await source.cancel();
    // A write still finishing ends before the session deletes what this request owns.
    await file?.stored.catch(() => undefined);
    throw uploadError(error);
  }
}

/** The body's Content-Length, if it states one (400 when it is not a length). */
export function declaredLength(request: Request): number | undefined {
  const header = request.headers.get('content-length');
  if (header === null) return undefined;
  const length = Number(header);
  if (!/^\d+$/.test(header.trim()) || !Number.isSafeInteger(length)) {
    throw validationError('Content-Length', 'must be a non-negative integer');
  }
  return length;
}

/** The SHA-256 a raw upload's Repr-Digest and/or Content-Digest state (they must agree). */
function assertedDigest(headers: Headers): { sha256: string; header: string } | undefined {
  let found: { sha256: string; header: string } | undefined;
  for (const header of ['Repr-Digest', 'Content-Digest']) {
    const value = headers.get(header);
    if (value === null) continue;
    let sha256: string | undefined;
    try {
      sha256 = parseDigestField(value);
    } catch (error) {
      if (error instanceof DigestFieldError)
        throw validationError(header, `${error.message} (expected sha-256=:<base64>:)`);
      throw error;
    }
    if (sha256 === undefined) continue;
    if (found && found.sha256 !== sha256) {
      throw validationError(header, 'Repr-Digest and Content-Digest name different SHA-256 digests');
    }
    found ??= { sha256, header };
  }
  return found;
}

/**
 * The bytes of a body of known length read in large pieces (`readAtLeast`, a workerd extension of
 * the BYOB reader) into ONE reused buffer: one JavaScript turn per RAW_READ_BYTES instead of per
 * network chunk, and no garbage per chunk, so the put runs at the bare put's speed and memory
 * (bench: digest-* cases). Each chunk is valid only until the next read (`transient`).
 */
function byobSource(body: ReadableStream<Uint8Array> | null, length: number): RawSource {
  const reader = body ? byteReader(body) : undefined;
  // Not a byte stream (a body made in JavaScript): read it chunk by chunk.
  if (!reader) return bodySource(body);
  const size = Math.min(length, RAW_READ_BYTES);
  let buffer: ArrayBuffer | undefined = new ArrayBuffer(size);
  return {
    transient: true,
    async read() {
      if (!buffer) return null;
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.readAtLeast(size, new Uint8Array(buffer));
      } catch {
        throw validationError('body', 'the request body could not be read to its end');
      }
      const value = next.value;
      // The view's buffer is the one passed in (moved, not copied): the next read fills it again.
      buffer = next.done ? undefined : (value?.buffer as ArrayBuffer | undefined);
      if (!value || value.length === 0) return next.done ? null : this.read();
      return value;
    },
    cancel: async () => {
      await reader.cancel().catch(() => undefined);
    },
  };
}

/** Raw bodies are read in pieces of this size (see byobSource). */
const RAW_READ_BYTES = 2 * 1024 * 1024;

type RawSource = ChunkSource & { cancel(): Promise<void> };

/** The request body as chunks; a body that breaks off is the client's fault (400), not ours. */
function bodySource(body: ReadableStream<Uint8Array> | null): RawSource {
  const reader = body?.getReader();
  return {
    async read() {
      if (!reader) return null;
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch {
        throw validationError('body', 'the request body could not be read to its end');
      }
      return next.done ? null : next.value;
    },
    cancel: async () => {
      await reader?.cancel().catch(() => undefined);
    },
  };
}
