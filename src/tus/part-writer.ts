// One PATCH's bytes into the upload's R2 multipart upload, in parts of exactly the upload's
// part size (R2 wants every part but the last to be the same size, clients send any chunk size).
// The upload's first PATCH chooses that size from its own length (see chunkPartSize), so a client
// sending fixed chunks of 5 MiB or more has each chunk stored as whole parts. The bytes past the
// last full part (the tail) go to a temporary R2 object, so they survive a dropped connection; the
// next PATCH puts them in front of its own bytes. Each part is recorded in the upload's object as
// it lands (unless a checksum must vouch for the PATCH first), so a Worker that dies mid-PATCH
// loses at most the part being filled. Memory: one part.
import { MIB } from '../config';
import { type AgeHeader, ageHeaderOf } from '../e2e/age-stream';
import { ApiError, validationError } from '../errors';
import { decideFileType, SNIFF_BYTES } from '../files/file-type';
import { type ByteSource, byteReader } from '../lib/byte-reader';
import { crc32 } from '../lib/crc32';
import { toHex } from '../lib/encoding';
import { Sha256 } from '../lib/sha256';
import type { StoredBlob } from '../storage/blobs';
import { type Checksum, MAX_PART_SIZE, MAX_PARTS, partSizeOpen, sameBytes, tailPrefix } from './protocol';
import type { UploadSnapshot } from './tus-upload-contract';
import type { TusUpload } from './tus-upload-object';

export type UploadStub = DurableObjectStub<TusUpload>;

export type AppendRequest = {
  bucket: R2Bucket;
  stub: UploadStub;
  lease: string;
  upload: UploadSnapshot;
  body: ReadableStream<Uint8Array> | null;
  contentLength: number | undefined;
  checksum: Checksum | undefined;
  allowedTypes: readonly string[];
  /** How long after this PATCH the upload expires unless resumed (TUS_EXPIRY_SECONDS). */
  expiryMs: number;
  /** Fires when the client goes away: what arrived is kept (unless a checksum was sent). */
  signal?: AbortSignal;
  waitUntil: (promise: Promise<unknown>) => void;
};

/** Either the upload's new offset, or (the last byte arrived) the finished object, not yet recorded. */
export type AppendResult =
  | { complete: false; offset: number; expiresAt: number }
  | {
      complete: true;
      blob: StoredBlob;
      mimeType: string;
      sha256: string | null;
      crc32: number | null;
      /** An age upload's header (its payload is `blob`). */
      e2eHeader?: string;
    };

// A lease lasts LEASE_TTL_MS (15 s) past its last renewal: renewing every 5 s while bytes flow
// (and before every write, and with every part recorded) keeps it well inside that.
const RENEW_EVERY_MS = 5_000;

const leaseLost = () =>
  new ApiError('UPLOAD_CONFLICT', 'Another request took over this upload, or it ended; ask its offset again');

export function appendToUpload(request: AppendRequest): Promise<AppendResult> {
  return new PartWriter(request).run();
}

/** R2's smallest part (all but the last part of a multipart upload). */
export const MIN_PART_SIZE = 5 * MIB;

/**
 * The largest part a chunk is cut into (unless the upload needs larger ones to fit in 10,000): a
 * PATCH holds one part in memory while the runtime sends it to R2. 50 MiB chunks in parts of
 * 12.5 MiB instead of 25 took the peak memory growth of a 300 MiB upload from 244 to 188 MiB, the
 * single request's, at the same throughput (bench: tus-300mib).
 */
export const CHUNK_PART_MAX = 16 * MIB;

/**
 * The part size the upload's first PATCH chooses, from its Content-Length: a chunk of at least
 * 5 MiB (R2's minimum part) becomes one part, or a few equal ones when it is over CHUNK_PART_MAX
 * (one part is what a PATCH holds in memory), so clients sending chunks of one size (tus-js-client's
 * chunkSize) have each chunk stored as whole parts, with no tail to rewrite between PATCHes. The
 * upload's own size stays (`current`, 8 MiB or what 10,000 parts need) when the first PATCH is
 * smaller, carries the whole upload, has no Content-Length, or would need more than 10,000 parts.
 */
export function chunkPartSize(current: number, length: number, chunk: number | undefined): number {
  if (chunk === undefined || chunk >= length) return current;
  // Parts of at most CHUNK_PART_MAX, unless 10,000 of them are too few for the upload.
  for (const largest of [CHUNK_PART_MAX, MAX_PART_SIZE]) {
    const size = Math.floor(chunk / partsPerChunk(chunk, largest));
    if (size >= MIN_PART_SIZE && size * MAX_PARTS >= length) return size;
  }
  return current;
}

/**
 * How many parts a chunk is cut into: the fewest that keep a part within `largest`, or a few more
 * where that lets the parts tile the chunk exactly (100 MiB: 8 parts of 12.5 MiB, not 7 unequal
 * ones), while a part stays at least 5 MiB.
 */
function partsPerChunk(chunk: number, largest: number): number {
  const fewest = Math.ceil(chunk / largest);
  for (let parts = fewest; chunk / parts >= MIN_PART_SIZE && parts < fewest * 2; parts++) {
    if (chunk % parts === 0) return parts;
  }
  return fewest;
}

class PartWriter {
  readonly #r: AppendRequest;
  readonly #upload: UploadSnapshot;
  /** Every part but the last has this size: the upload's, or the one its first PATCH chooses. */
  readonly #partSize: number;
  #buffer: Uint8Array | undefined;
  #filled = 0;
  #received = 0;
  #cutOff = false;
  #mimeType: string | null;
  #multipart: R2MultipartUpload | undefined;
  /** Every part this PATCH stored; the first #recorded of them are recorded in the upload's object. */
  readonly #parts: R2UploadedPart[] = [];
  #recorded = 0;
  /** The upload's offset at the end of the last part stored (the bytes before the part being filled). */
  #stored: number;
  /** Whether the stored tail went into a recorded part (then its object goes). */
  #tailTaken = false;
  #lastRenewal = Date.now();
  #writtenTail: string | undefined;
  /** The whole upload's SHA-256 so far, continued from the state its object kept. */
  readonly #hash: Sha256 | null;
  /** The whole upload's CRC-32 so far (the same bytes as the hash), continued from its object's. */
  #crc32: number | null;
  readonly #digest: { stream: DigestStream; writer: WritableStreamDefaultWriter<ArrayBufferView> } | undefined;
  /** An age upload's header as it arrives (none for another upload): its bytes never reach a part. */
  readonly #age: AgeHeader | undefined;

  constructor(request: AppendRequest) {
    this.#r = request;
    this.#upload = request.upload;
    this.#mimeType = request.upload.mimeType;
    const { offset, partSize, length, tail } = request.upload;
    this.#stored = offset - (tail?.size ?? 0);
    // Only before any byte of a part is stored (no part, no tail): afterwards the parts' size is
    // fixed. An age upload's header is in neither, so a client that sends the header alone first
    // has its chunks of payload, not the chunks shifted by the header, tile the parts.
    this.#partSize = partSizeOpen(request.upload)
      ? chunkPartSize(partSize, length - offset, request.contentLength)
      : partSize;
    this.#hash = request.upload.hash ? Sha256.restore(request.upload.hash) : null;
    this.#crc32 = request.upload.crc32 ?? null;
    this.#age = ageHeaderOf(request.upload);
    if (request.checksum) {
      const stream = new crypto.DigestStream(request.checksum.digest);
      this.#digest = { stream, writer: stream.getWriter() };
    }
  }

  async run(): Promise<AppendResult> {
    const upload = this.#upload;
    const remaining = upload.length - upload.offset;
    try {
      if (this.#r.contentLength !== undefined && this.#r.contentLength > remaining) throw tooLong(remaining);
      await this.#read(remaining);
      if (this.#cutOff) {
        // The client went away: keep what arrived, unless a checksum was to vouch for it. Its
        // body broke off (the client's doing, 400), which no checksum mismatch (460) says.
        if (this.#digest) throw bodyCutOff();
      } else if (this.#digest && this.#r.checksum) {
        await this.#digest.writer.close();
        if (!sameBytes(new Uint8Array(await this.#digest.stream.digest), this.#r.checksum.expected)) {
          throw new ApiError('CHECKSUM_MISMATCH', `Upload-Checksum (${this.#r.checksum.algorithm}) does not match`);
        }
      }
      if (upload.offset + this.#received === upload.length) return await this.#finish();
      return await this.#keep();
    } catch (error) {
      await this.#discard();
      throw error;
    }
  }

  /** Reads the body to its end (or until it breaks off), uploading every full part on the way. */
  async #read(remaining: number): Promise<void> {
    const { body, signal, contentLength } = this.#r;
    if (!body) return;
    const reader = chunkReader(body);
    // A client that goes away may leave a read pending for ever: cancelling ends it.
    const onAbort = () => {
      this.#cutOff = true;
      reader.cancel().catch(() => undefined);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let done = false;
    try {
      for (;;) {
        let chunk: Uint8Array;
        try {
          const next = await reader.read();
          if (next.done) break;
          chunk = next.value;
        } catch {
          this.#cutOff = true;
          break;
        }
        this.#received += chunk.length;
        if (this.#received > remaining) throw tooLong(remaining);
        await this.#digest?.writer.write(chunk);
        const payload = this.#age ? this.#afterHeader(chunk) : chunk;
        if (payload.length > 0) await this.#take(payload);
        if (Date.now() - this.#lastRenewal > RENEW_EVERY_MS) await this.#renew();
      }
      done = true;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (!done) await reader.cancel().catch(() => undefined);
    }
    if (signal?.aborted || (contentLength !== undefined && this.#received < contentLength)) this.#cutOff = true;
  }

  /**
   * The bytes of `chunk` past an age upload's header: those before it extend the header (checked
   * as it grows, 422 E2E_INVALID), and count as stored with it (its object keeps them).
   */
  #afterHeader(chunk: Uint8Array): Uint8Array {
    const age = this.#age as AgeHeader;
    if (age.complete) return chunk;
    const rest = age.take(chunk, this.#upload.length);
    this.#stored += chunk.length - rest.length;
    return rest;
  }

  async #take(chunk: Uint8Array): Promise<void> {
    const partSize = this.#partSize;
    let position = 0;
    while (position < chunk.length) {
      const buffer = await this.#part();
      const count = Math.min(chunk.length - position, buffer.length - this.#filled);
      const piece = chunk.subarray(position, position + count);
      buffer.set(piece, this.#filled);
      // Hashed as it goes into the part: at a part's end the hash is exactly the part boundary's.
      this.#hash?.update(piece);
      if (this.#crc32 !== null) this.#crc32 = crc32(piece, this.#crc32);
      this.#filled += count;
      position += count;
      if (this.#mimeType === null) this.#sniff(false);
      if (this.#filled === partSize) await this.#flush(buffer);
    }
  }

  /** The part being filled: on first use, the stored tail goes in front. Never larger than needed. */
  async #part(): Promise<Uint8Array> {
    if (this.#buffer) return this.#buffer;
    const { tail, length, offset } = this.#upload;
    const tailSize = tail?.size ?? 0;
    const buffer = new Uint8Array(Math.min(this.#partSize, tailSize + (length - offset)));
    if (tail && tail.size > 0) {
      const object = await this.#r.bucket.get(tail.key);
      if (!object || object.size !== tail.size) throw new Error(`tail object ${tail.key} is missing`);
      for await (const chunk of object.body as unknown as AsyncIterable<Uint8Array>) {
        buffer.set(chunk, this.#filled);
        this.#filled += chunk.length;
      }
    }
    this.#buffer = buffer;
    return buffer;
  }

  /** Decides the type once the first bytes are in (the whole file when it is shorter). */
  #sniff(final: boolean): void {
    const { meta, partCount, length } = this.#upload;
    // Only while the file's first bytes are in the buffer: once a part is stored, it is decided.
    if (partCount > 0 || this.#parts.length > 0) return;
    const head = (this.#buffer ?? new Uint8Array(0)).subarray(0, Math.min(this.#filled, SNIFF_BYTES));
    if (!final && head.length < Math.min(SNIFF_BYTES, length)) return;
    const decision = decideFileType(head, meta.declaredType, meta.originalName, this.#r.allowedTypes);
    if (!decision.ok) throw new ApiError('INVALID_FILE_TYPE', `File type not allowed: ${decision.reason}`);
    this.#mimeType = decision.mimeType;
  }

  /**
   * A full part goes to R2, with the lease checked right before (a PATCH that lost it writes
   * nothing), and is recorded as soon as it is there: the offset moves to its end.
   */
  async #flush(bytes: Uint8Array): Promise<void> {
    if (this.#mimeType === null) this.#sniff(true);
    // Making the multipart upload renews the lease already (recording its id).
    const made = !this.#multipart && !this.#upload.multipartId;
    const upload = await this.#openMultipart();
    if (!made) await this.#renew();
    const part = await upload.uploadPart(this.#upload.partCount + this.#parts.length + 1, bytes);
    this.#parts.push(part);
    this.#stored += bytes.length;
    this.#filled = 0;
    // With a checksum nothing of the PATCH counts before the digest is checked at its end.
    if (!this.#digest) await this.#record(part);
  }

  /** Records a part that just landed (the last of #parts) in the upload's object, with the offset at its end. */
  async #record(part: R2UploadedPart): Promise<void> {
    const { stub, lease, expiryMs, waitUntil, bucket } = this.#r;
    const recorded = await stub.recordPart({
      lease,
      part,
      offset: this.#stored,
      partSize: this.#partSize,
      mimeType: this.#mimeType,
      hash: this.#hash?.save() ?? null,
      crc32: this.#crc32,
      ...(this.#age ? { e2eHeader: this.#age.text } : {}),
      expiresAt: Date.now() + expiryMs,
    });
    if (!recorded) throw leaseLost();
    this.#recorded = this.#parts.length;
    this.#lastRenewal = Date.now();
    const tail = this.#upload.tail;
    if (tail && !this.#tailTaken) {
      this.#tailTaken = true;
      waitUntil(bucket.delete(tail.key).catch(() => undefined));
    }
  }

  async #openMultipart(): Promise<R2MultipartUpload> {
    if (this.#multipart) return this.#multipart;
    const { bucket, stub, lease } = this.#r;
    const { r2Key, multipartId, id, accountId } = this.#upload;
    if (multipartId) {
      this.#multipart = bucket.resumeMultipartUpload(r2Key, multipartId);
      return this.#multipart;
    }
    // Created at the first full part, once the type is known (R2 takes it only here).
    const created = await bucket.createMultipartUpload(r2Key, {
      httpMetadata: { contentType: this.#mimeType ?? 'application/octet-stream' },
      // The upload's object knows its account, not the key that sent it (a file request's: none).
      customMetadata: { accountId, fileId: id },
    });
    if (!(await stub.renew({ lease, multipartId: created.uploadId }))) {
      await created.abort().catch(() => undefined);
      throw leaseLost();
    }
    this.#lastRenewal = Date.now();
    this.#multipart = created;
    return created;
  }

  async #renew(): Promise<void> {
    if (!(await this.#r.stub.renew({ lease: this.#r.lease }))) throw leaseLost();
    this.#lastRenewal = Date.now();
  }

  /** Not the last byte: the bytes past the last full part become the new tail; the offset moves. */
  async #keep(): Promise<AppendResult> {
    const { bucket, stub, lease, expiryMs, waitUntil } = this.#r;
    const upload = this.#upload;
    const offset = upload.offset + this.#received;
    let tail = upload.tail;
    if (this.#received > 0) {
      tail = null;
      if (this.#filled > 0) {
        const key = `${tailPrefix(upload.id)}tail-${offset}-${lease.slice(0, 8)}`;
        this.#writtenTail = key;
        await bucket.put(key, (this.#buffer ?? new Uint8Array(0)).subarray(0, this.#filled));
        tail = { key, size: this.#filled };
      }
    }
    const ended = await stub.end({
      lease,
      offset,
      parts: this.#parts.slice(this.#recorded),
      tail,
      partSize: this.#partSize,
      mimeType: this.#mimeType,
      hash: this.#hash?.save() ?? null,
      crc32: this.#crc32,
      ...(this.#age ? { e2eHeader: this.#age.text } : {}),
      expiresAt: Date.now() + expiryMs,
    });
    if (!ended.ok) throw leaseLost();
    this.#writtenTail = undefined;
    if (upload.tail && !this.#tailTaken && upload.tail.key !== tail?.key) {
      waitUntil(bucket.delete(upload.tail.key).catch(() => undefined));
    }
    return { complete: false, offset, expiresAt: ended.expiresAt };
  }

  /** The last byte is in: the rest goes up as the last part (or the whole file as one put). */
  async #finish(): Promise<AppendResult> {
    const { bucket, stub, lease } = this.#r;
    const upload = this.#upload;
    if (this.#mimeType === null) this.#sniff(true);
    const mimeType = this.#mimeType ?? 'application/octet-stream';
    const sha256 = this.#hash ? toHex(this.#hash.digest()) : null;
    // An age upload whose bytes ended inside its header: no age file (nothing is kept).
    const e2e = this.#age ? { e2eHeader: this.#age.finished() } : {};
    const size = upload.length - (this.#age?.length ?? 0);
    // From here on the lease lasts COMMIT_LEASE_MS: the object is being made the file.
    const recorded = await stub.assemble({ lease });
    if (!recorded) throw leaseLost();
    this.#lastRenewal = Date.now();
    const rest = (this.#buffer ?? (await this.#part())).subarray(0, this.#filled);
    if (!upload.multipartId && !this.#multipart) {
      const object = await bucket
        .put(upload.r2Key, rest, {
          httpMetadata: { contentType: mimeType },
          customMetadata: { accountId: upload.accountId, fileId: upload.id },
        })
        .catch(async (error: unknown) => {
          // A put may fail after writing: the object is no file's, so it goes (the PATCH may be sent again).
          await bucket.delete(upload.r2Key).catch(() => undefined);
          throw error;
        });
      return {
        complete: true,
        mimeType,
        sha256,
        crc32: this.#crc32,
        blob: { key: upload.r2Key, size, etag: object.httpEtag },
        ...e2e,
      };
    }
    const multipart = await this.#openMultipart();
    if (rest.length > 0) this.#parts.push(await multipart.uploadPart(upload.partCount + this.#parts.length + 1, rest));
    const object = await multipart
      .complete([...recorded, ...this.#parts.slice(this.#recorded)])
      .catch(async (error) => {
        // R2 may have made the object all the same (its answer lost on the way): it is no file's, so
        // it goes; and the multipart upload may be gone with it, so this upload cannot go on.
        await bucket.delete(upload.r2Key).catch(() => undefined);
        throw new UploadEnded(error);
      });
    return {
      complete: true,
      mimeType,
      sha256,
      crc32: this.#crc32,
      blob: { key: upload.r2Key, size, etag: object.httpEtag },
      ...e2e,
    };
  }

  /**
   * Nothing more of this PATCH counts (the parts it recorded stay): the lease is given back and
   * its tail object removed.
   */
  async #discard(): Promise<void> {
    const { bucket, stub, lease } = this.#r;
    if (this.#digest) {
      // An aborted digest stream rejects its digest too: nobody waits for it any more.
      this.#digest.stream.digest.catch(() => undefined);
      await this.#digest.writer.abort().catch(() => undefined);
    }
    await stub.release({ lease }).catch(() => undefined);
    if (this.#writtenTail) await bucket.delete(this.#writtenTail).catch(() => undefined);
  }
}

/**
 * The last part could not be made the upload's object: the upload ends (the caller terminates it,
 * giving its reservation back) and its client starts again. A clean 500 UPLOAD_FAILED.
 */
export class UploadEnded extends ApiError {
  constructor(cause: unknown) {
    super(
      'UPLOAD_FAILED',
      'The file could not be stored: the upload ended and nothing of it was kept; create it again',
      {
        cause,
      },
    );
  }
}

const bodyCutOff = () =>
  validationError(
    'body',
    'the body ended before its last byte, so Upload-Checksum could not vouch for it; nothing of it was kept',
  );

const tooLong = (remaining: number) =>
  new ApiError('FILE_TOO_LARGE', `The request carries more than the ${remaining} bytes the upload has left`);

// A PATCH body is read into one reused buffer of this size (a BYOB reader): each read takes all
// the bytes that have arrived, up to this, in one JavaScript turn, and a body that breaks off
// still keeps every byte that arrived (a read never waits for more than one byte).
const READ_BUFFER_BYTES = 1024 * 1024;

/** The body's chunks, read into one reused buffer (each valid until the next read) where the stream allows it. */
function chunkReader(body: ReadableStream<Uint8Array>): ByteSource {
  const reader = byteReader(body);
  // Not a byte stream (a body made in JavaScript): its own chunks.
  if (!reader) return body.getReader();
  let buffer = new ArrayBuffer(READ_BUFFER_BYTES);
  return {
    async read() {
      const next = await reader.read(new Uint8Array(buffer));
      if (next.value) buffer = next.value.buffer as ArrayBuffer;
      if (!next.done && next.value?.length === 0) return this.read();
      return next;
    },
    cancel: () => reader.cancel(),
  };
}
