// One stream stored as one file for its owner: the raw-body upload (PUT /upload/{filename}), the
// same PUT on a file request's uploadUrl, and any other source of one file's bytes (a body fetched
// from a URL). The bytes go to R2 as they arrive, with MAX_FILE_SIZE and the owner's quota
// enforced while they stream; nothing past a limit is kept.
import { validationError } from '../errors';
import { byteReader } from '../lib/byte-reader';
import type { FileRow } from '../storage/files-repo';
import { type ChunkSource, checkDigest, type IncomingFile, type PendingFile, readFilePart, recordFile } from './upload';
import { uploadError } from './upload-errors';
import type { RecordOptions } from './upload-fields';
import type { UploadDeps } from './upload-session';

/** A file's bytes that can be given up: cancelling releases the body (a refused file is not read on). */
export type StreamSource = ChunkSource & { cancel(): Promise<void> };

/** One file arriving as a stream: its bytes, what is known before them, and the SHA-256 its sender asserts. */
export type FileStream = IncomingFile & {
  source: StreamSource;
  /** Checked once the bytes are read, before anything counts: 400 DIGEST_MISMATCH naming `field`. */
  asserted?: { sha256: string; field: string };
};

/**
 * Stores one stream as one file of the session's owner: the type decided from its first bytes,
 * the bytes streamed into R2 (one put when the length is known, the multipart writer otherwise)
 * and hashed on the way, the asserted digest compared, then the quota commit and the row. A
 * refused file leaves nothing behind.
 */
export async function storeStream(deps: UploadDeps, stream: FileStream, options: RecordOptions): Promise<FileRow> {
  const { source, asserted } = stream;
  let file: PendingFile | undefined;
  try {
    deps.session.check();
    file = await readFilePart(deps, source, stream);
    checkDigest(file, asserted?.sha256, asserted?.field ?? 'sha256');
    return await recordFile(deps, file, options);
  } catch (error) {
    await source.cancel();
    // A write still finishing ends before the session deletes what this request owns.
    await file?.stored.catch(() => undefined);
    throw uploadError(error);
  }
}

/**
 * A body's bytes as a StreamSource: of known `length` (a Content-Length), read in large pieces
 * into one reused buffer; else chunk by chunk as they come.
 */
export function streamSource(body: ReadableStream<Uint8Array> | null, length: number | undefined): StreamSource {
  return length !== undefined && length > 0 ? byobSource(body, length) : bodySource(body);
}

/**
 * The bytes of a body of known length read in large pieces (`readAtLeast`, a workerd extension of
 * the BYOB reader) into ONE reused buffer: one JavaScript turn per RAW_READ_BYTES instead of per
 * network chunk, and no garbage per chunk, so the put runs at the bare put's speed and memory
 * (bench: digest-* cases). Each chunk is valid only until the next read (`transient`).
 */
function byobSource(body: ReadableStream<Uint8Array> | null, length: number): StreamSource {
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

/** The request body as chunks; a body that breaks off is the client's fault (400), not ours. */
function bodySource(body: ReadableStream<Uint8Array> | null): StreamSource {
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
