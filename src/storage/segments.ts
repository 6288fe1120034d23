// A file's bytes, wherever they are: one R2 object (every file but a tus final upload), or the
// ordered segments a final upload left in several objects (migration 0011, src/tus/concat.ts).
// Every path that reads or deletes a file's bytes goes through here. Reading segments streams
// them one after another (memory: one chunk); R2 cannot join objects, and nothing is copied.
import { crc32 } from '../lib/crc32';
import { toHex } from '../lib/encoding';
import { log } from '../log';
import { forgetBlobDeletions } from './blob-deletions-repo';
import { listSegments, queuedSegmentKeys, type Segment } from './segments-repo';

/** Where a final upload's row points: no object lives there, its bytes are its segments. */
export const concatKey = (accountId: string, fileId: string) => `concat/${accountId}/${fileId}`;
/** Where a partial upload writes its object (outside files/, which the sweep compares with D1). */
export const segmentKey = (accountId: string, uploadId: string) => `segments/${accountId}/${uploadId}`;
/** Whether a row's r2_key names a file stored in segments. */
export const isSegmented = (r2Key: string) => r2Key.startsWith('concat/');

export type BlobStore = { bucket: R2Bucket; db: D1Database };
export type ByteRange = { offset: number; length: number };
/** What a reader needs of a file's row. */
export type BlobRef = { r2_key: string; size: number };

const fileIdOf = (r2Key: string) => r2Key.slice(r2Key.lastIndexOf('/') + 1);

/** The segments of a file stored in segments (empty when its row is gone). */
export const segmentsOf = (store: BlobStore, file: BlobRef) => listSegments(store.db, fileIdOf(file.r2_key));

/**
 * The file's bytes (or a range of them) as one stream; null when they are missing (the row
 * outlived its blob). A range may cross any number of segment boundaries.
 */
export async function openBlob(
  store: BlobStore,
  file: BlobRef,
  range?: ByteRange,
): Promise<ReadableStream<Uint8Array> | null> {
  if (!isSegmented(file.r2_key)) {
    const object = await store.bucket.get(file.r2_key, range ? { range } : undefined);
    return object?.body ?? null;
  }
  const segments = await segmentsOf(store, file);
  if (segments.length === 0) return null;
  return readSegments(store.bucket, segments, range ?? { offset: 0, length: file.size });
}

class MissingSegment extends Error {
  override name = 'MissingSegment';
}

/**
 * The pieces of `segments` that `range` covers, in order, each with its own range in its object
 * (a segment's bytes begin at its `start`). `whole`: the piece is its entire object.
 */
export function piecesOf(segments: Segment[], range: ByteRange): { key: string; whole: boolean; range: ByteRange }[] {
  const pieces = [];
  const end = range.offset + range.length;
  let start = 0;
  for (const segment of segments) {
    const from = Math.max(range.offset, start);
    const to = Math.min(end, start + segment.size);
    const skip = segment.start ?? 0;
    if (to > from) {
      const whole = skip === 0 && from === start && to - from === segment.size;
      pieces.push({ key: segment.r2_key, whole, range: { offset: skip + from - start, length: to - from } });
    }
    start += segment.size;
  }
  return pieces;
}

/**
 * Streams the pieces one after another into one stream of exactly `range.length` bytes. The
 * first object is opened before answering (a missing one is null: nothing was sent yet); a
 * later one that is missing breaks the stream off (and is logged).
 */
export async function readSegments(
  bucket: R2Bucket,
  segments: Segment[],
  range: ByteRange,
): Promise<ReadableStream<Uint8Array> | null> {
  const pieces = piecesOf(segments, range);
  const open = async (piece: (typeof pieces)[number]) => {
    const object = await bucket.get(piece.key, piece.whole ? undefined : { range: piece.range });
    return object?.body ?? null;
  };
  const [head, ...rest] = pieces;
  const first = head ? await open(head) : null;
  if (head && !first) return null;
  const { readable, writable } = new FixedLengthStream(range.length);
  const pump = async () => {
    if (first) await first.pipeTo(writable, { preventClose: true });
    for (const piece of rest) {
      const body = await open(piece);
      if (!body) throw new MissingSegment(`segment ${piece.key} is missing`);
      await body.pipeTo(writable, { preventClose: true });
    }
    await writable.close();
  };
  // The stream is the answer: its reader pulls, and this pushes as fast as it is read.
  pump().catch(async (error: unknown) => {
    // A reader that went away (a cancelled download) is no fault; a missing segment is.
    log(error instanceof MissingSegment ? 'error' : 'info', 'segmented read broken off', { error: String(error) });
    await writable.abort(error).catch(() => undefined);
  });
  return readable;
}

/** The first `bytes` of the file (fewer when it is shorter): enough to decide its type. */
export async function readHead(store: BlobStore, file: BlobRef, bytes: number): Promise<Uint8Array> {
  const length = Math.min(bytes, file.size);
  if (length === 0) return new Uint8Array(0);
  return readAll(await openBlob(store, file, { offset: 0, length }), length);
}

/** The first `bytes` of segments not recorded yet (a final upload deciding its type). */
export async function readSegmentsHead(bucket: R2Bucket, segments: Segment[], bytes: number): Promise<Uint8Array> {
  const length = Math.min(
    bytes,
    segments.reduce((sum, segment) => sum + segment.size, 0),
  );
  if (length === 0) return new Uint8Array(0);
  return readAll(await readSegments(bucket, segments, { offset: 0, length }), length);
}

/** A short stream (at most `length` bytes: a file's head) read whole. */
async function readAll(stream: ReadableStream<Uint8Array> | null, length: number): Promise<Uint8Array> {
  if (!stream) throw new Error('the bytes are missing');
  const out = new Uint8Array(length);
  let filled = 0;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    out.set(chunk.subarray(0, length - filled), filled);
    filled += Math.min(chunk.length, length - filled);
  }
  return out.subarray(0, filled);
}

/** What a digest read computes: each one asked for, or null when it was not. */
export type BlobDigests = { sha256: string | null; crc32: number | null };

/**
 * The digests `want` asks for, from one read of the file's bytes (the runtime's SHA-256 and the
 * native CRC-32 fed the same chunks); null when the bytes are missing.
 */
export async function digestBlob(
  store: BlobStore,
  file: BlobRef,
  want: { sha256: boolean; crc32: boolean },
): Promise<BlobDigests | null> {
  const stream = await openBlob(store, file);
  return stream ? digestStream(stream, want) : null;
}

/**
 * The SHA-256 (and the CRC-32 when `crc32`) of segments not recorded yet, in order: a final upload
 * hashed before its file exists. Throws when a segment is missing.
 */
export async function digestSegments(
  bucket: R2Bucket,
  segments: Segment[],
  want: { crc32: boolean },
): Promise<BlobDigests> {
  const size = segments.reduce((sum, segment) => sum + segment.size, 0);
  const stream = await readSegments(bucket, segments, { offset: 0, length: size });
  if (!stream) throw new MissingSegment('a segment is missing');
  return digestStream(stream, { sha256: true, crc32: want.crc32 });
}

async function digestStream(
  stream: ReadableStream<Uint8Array>,
  want: { sha256: boolean; crc32: boolean },
): Promise<BlobDigests> {
  const digest = want.sha256 ? new crypto.DigestStream('SHA-256') : undefined;
  const writer = digest?.getWriter();
  let crc = 0;
  try {
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
      if (want.crc32) crc = crc32(chunk, crc);
      await writer?.write(chunk);
    }
    await writer?.close();
  } catch (error) {
    digest?.digest.catch(() => undefined);
    await writer?.abort().catch(() => undefined);
    throw error;
  }
  return {
    sha256: digest ? toHex(new Uint8Array(await digest.digest)) : null,
    crc32: want.crc32 ? crc : null,
  };
}

/**
 * Deletes the blobs of removed rows: plain objects directly, and the segments their deletion
 * queued in blob_deletions (migration 0011's trigger), which are forgotten once gone. A failed
 * plain delete is handed to `onFailure` (recorded for the sweep); queued segments simply stay
 * queued for the sweep's retry.
 */
export async function deleteBlobs(
  store: BlobStore,
  rows: { account_id: string; r2_key: string }[],
  onFailure: (rows: { account_id: string; r2_key: string }[], error: unknown) => Promise<void>,
): Promise<void> {
  const plain = rows.filter((row) => !isSegmented(row.r2_key));
  const segmented = [...new Set(rows.filter((row) => isSegmented(row.r2_key)).map((row) => row.account_id))];
  await Promise.all([
    plain.length > 0
      ? store.bucket.delete(plain.map((row) => row.r2_key)).catch((error) => onFailure(plain, error))
      : null,
    segmented.length > 0 ? deleteQueuedSegments(store, segmented) : null,
  ]);
}

// D1 binds at most 100 parameters: two per account, one for the limit.
const ACCOUNTS_PER_QUERY = 49;

async function deleteQueuedSegments(store: BlobStore, accountIds: string[]): Promise<void> {
  for (let start = 0; start < accountIds.length; start += ACCOUNTS_PER_QUERY) {
    try {
      const keys = await queuedSegmentKeys(store.db, accountIds.slice(start, start + ACCOUNTS_PER_QUERY), 1000);
      if (keys.length === 0) continue;
      await store.bucket.delete(keys);
      for (let at = 0; at < keys.length; at += 100) await forgetBlobDeletions(store.db, keys.slice(at, at + 100));
    } catch (error) {
      log('error', 'segment delete failed, left for the sweep', { error: String(error) });
    }
  }
}
