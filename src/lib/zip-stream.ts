// Bytes of a ZIP archive, streamed: any range of it, or all of it. Headers and the central
// directory are made from the layout as they are reached; a member's own bytes are asked of the
// caller (a ranged storage read), only for the members the range touches, one after another, so
// memory holds one chunk of one member at a time whatever the archive's size. In the Worker,
// with every CRC-32 known, the runtime pipes each member's body itself (pipedRange).
// Ours, not a library's (issue 38): the ZIP writers that run in Workers (client-zip; fflate, which
// lacks Zip64) write an archive from its first byte to its last: neither can serve a range of it.
import { concat } from './bytes.ts';
import { crc32 } from './crc32.ts';
import { type PlacedMember, readSpan, touchedMembers, type ZipLayout } from './zip-layout.ts';
import { centralEntry, dataDescriptor, endRecords, localHeader } from './zip-records.ts';

/**
 * Reads `length` bytes of member `index`'s content from `offset` (a ranged get). The stream must
 * give exactly that many bytes; more or fewer fails the archive's stream.
 */
export type ReadMember = (index: number, offset: number, length: number) => Promise<ReadableStream<Uint8Array>>;

/** Central directory entries are sent in chunks of about this size rather than one by one. */
const CENTRAL_CHUNK = 64 * 1024;

/**
 * Bytes [start, end] (inclusive, as in a Range header) of the archive, exactly end - start + 1 of
 * them. Only a rangeable layout (every CRC-32 known) can serve a part; otherwise the range must
 * be the whole archive. Throws RangeError for a range outside the archive.
 */
export function zipRange(layout: ZipLayout, start: number, end: number, read: ReadMember): ReadableStream<Uint8Array> {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end >= layout.length) {
    throw new RangeError(`bytes ${start}-${end} are not within an archive of ${layout.length} bytes`);
  }
  if (!layout.rangeable && (start !== 0 || end !== layout.length - 1)) {
    throw new RangeError('an archive with CRC-32s still to compute is served whole only');
  }
  const Fixed = (globalThis as { FixedLengthStream?: FixedLengthStreamClass }).FixedLengthStream;
  // Every CRC-32 known: no byte of a member needs to be seen, so each is piped by the runtime.
  if (Fixed && layout.rangeable) return pipedRange(new ArchiveChunks(layout, start, end, read), end - start + 1, Fixed);
  const chunks = new ArchiveChunks(layout, start, end, read);
  const iterator = chunks.generate();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel(reason) {
        await chunks.cancel(reason);
        await iterator.return(undefined);
      },
    },
    // Pull only when the reader asks: nothing read ahead of the client.
    { highWaterMark: 0 },
  );
  return ofKnownLength(body, end - start + 1);
}

/** The whole archive (with data descriptors, the only way to serve one that is not rangeable). */
export function zipArchive(layout: ZipLayout, read: ReadMember): ReadableStream<Uint8Array> {
  return zipRange(layout, 0, layout.length - 1, read);
}

type FixedLengthStreamClass = new (length: number) => TransformStream<Uint8Array, Uint8Array>;

/**
 * The archive written into a FixedLengthStream: made bytes (headers, descriptors, the central
 * directory) by a writer, and each member's body piped in by the runtime (storage to response,
 * never through JavaScript: the bench's zip cases went from 0.19x to 0.95x a bare Worker's
 * throughput, memory flat). Members that give more or fewer bytes than their records say fail
 * the archive at its FixedLengthStream. Backpressure holds: a write or a pipe waits for the
 * client. A failure, or the client going away, aborts the rest: the member being piped is
 * cancelled and no other is opened.
 */
function pipedRange(chunks: ArchiveChunks, length: number, Fixed: FixedLengthStreamClass): ReadableStream<Uint8Array> {
  const { readable, writable } = new Fixed(length);
  void chunks.pipeInto(writable);
  return readable;
}

/** In the Worker, a body whose length the runtime knows (Content-Length, no chunked encoding). */
function ofKnownLength(body: ReadableStream<Uint8Array>, length: number): ReadableStream<Uint8Array> {
  const Fixed = (globalThis as { FixedLengthStream?: FixedLengthStreamClass }).FixedLengthStream;
  return Fixed ? body.pipeThrough(new Fixed(length)) : body;
}

class ArchiveChunks {
  readonly #layout: ZipLayout;
  readonly #start: number;
  readonly #end: number;
  readonly #read: ReadMember;
  /** CRC-32s computed while streaming, for members whose record had none. */
  readonly #computed = new Map<number, number>();
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #cancelled = false;

  constructor(layout: ZipLayout, start: number, end: number, read: ReadMember) {
    this.#layout = layout;
    this.#start = start;
    this.#end = end;
    this.#read = read;
  }

  async cancel(reason: unknown): Promise<void> {
    this.#cancelled = true;
    await this.#reader?.cancel(reason).catch(() => undefined);
  }

  async *generate(): AsyncGenerator<Uint8Array> {
    for await (const piece of this.#pieces()) {
      if (piece instanceof Uint8Array) yield piece;
      else yield* this.#memberBytes(piece.index, piece.offset, piece.length);
    }
  }

  /** The range written into `writable` (see pipedRange); never rejects, it aborts `writable`. */
  async pipeInto(writable: WritableStream<Uint8Array>): Promise<void> {
    try {
      for await (const piece of this.#pieces()) {
        if (piece instanceof Uint8Array) {
          const writer = writable.getWriter();
          try {
            await writer.write(piece);
          } finally {
            writer.releaseLock();
          }
          continue;
        }
        const body = await this.#read(piece.index, piece.offset, piece.length);
        await body.pipeTo(writable, { preventClose: true });
      }
      await writable.close();
    } catch (error) {
      await writable.abort(error).catch(() => undefined);
    }
  }

  /** The range's made bytes, and the spans of members' content to read between them, in order. */
  async *#pieces(): AsyncGenerator<Uint8Array | { index: number; offset: number; length: number }> {
    const layout = this.#layout;
    const { first, last } = touchedMembers(layout, this.#start, this.#end);
    for (let index = Math.max(0, first); index <= last; index++) {
      const member = layout.members[index] as PlacedMember;
      yield* this.#made(member.headerOffset, member.headerLength, () => localHeader(member));
      const span = readSpan(member, this.#start, this.#end);
      if (span) yield { index, ...span };
      const descriptorAt = member.dataOffset + member.size;
      yield* this.#made(descriptorAt, member.descriptorLength, () => dataDescriptor(member, this.#crcOf(index)));
    }
    yield* this.#central();
    const endsAt = layout.zip64EndOffset ?? layout.endOffset;
    yield* this.#made(endsAt, layout.length - endsAt, () => endRecords(layout));
  }

  /** The part of made bytes at [at, at + length) that the range wants; `make` runs only if any. */
  *#made(at: number, length: number, make: () => Uint8Array): Generator<Uint8Array> {
    const from = Math.max(at, this.#start);
    const to = Math.min(at + length, this.#end + 1);
    if (to > from) yield make().subarray(from - at, to - at);
  }

  async *#memberBytes(index: number, offset: number, length: number): AsyncGenerator<Uint8Array> {
    const member = this.#layout.members[index] as PlacedMember;
    // Only a whole archive computes CRCs, so a member read for that is always read whole.
    const computing = member.crc32 === null;
    let crc = 0;
    let received = 0;
    const reader = (await this.#read(index, offset, length)).getReader();
    // The client may have gone while the read was being opened.
    if (this.#cancelled) {
      await reader.cancel().catch(() => undefined);
      throw new Error('the archive stream was cancelled');
    }
    this.#reader = reader;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.byteLength;
        if (received > length) throw new Error(`member ${index} gave more than the ${length} bytes asked`);
        if (computing) crc = crc32(value, crc);
        if (value.byteLength > 0) yield value;
      }
      if (received < length) throw new Error(`member ${index} ended after ${received} of ${length} bytes`);
      if (computing) this.#computed.set(index, crc);
    } finally {
      this.#reader = null;
      if (received !== length) await reader.cancel().catch(() => undefined);
    }
  }

  #crcOf(index: number): number {
    const member = this.#layout.members[index] as PlacedMember;
    if (member.crc32 !== null) return member.crc32;
    // A member of 0 bytes is never read: its CRC-32 is that of nothing.
    if (member.size === 0) return 0;
    const computed = this.#computed.get(index);
    if (computed === undefined) throw new Error(`member ${index}: CRC-32 not computed`);
    return computed;
  }

  /** The central directory entries the range touches, a few dozen kilobytes per chunk. */
  async *#central(): AsyncGenerator<Uint8Array> {
    const layout = this.#layout;
    const { members } = layout;
    if (this.#end < layout.centralOffset || this.#start >= layout.centralOffset + layout.centralSize) return;
    let index = firstEntryEndingAfter(members, this.#start);
    let parts: Uint8Array[] = [];
    let size = 0;
    for (; index < members.length; index++) {
      const member = members[index] as PlacedMember;
      if (member.centralOffset > this.#end) break;
      for (const part of this.#made(member.centralOffset, member.centralLength, () =>
        centralEntry(member, this.#crcOf(index)),
      )) {
        parts.push(part);
        size += part.byteLength;
      }
      if (size >= CENTRAL_CHUNK) {
        yield concat(parts, size);
        parts = [];
        size = 0;
      }
    }
    if (size > 0) yield concat(parts, size);
  }
}

/** The first member whose central entry ends after byte `at` (binary search: entries are in order). */
function firstEntryEndingAfter(members: readonly PlacedMember[], at: number): number {
  let low = 0;
  let high = members.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const member = members[middle] as PlacedMember;
    if (member.centralOffset + member.centralLength <= at) low = middle + 1;
    else high = middle;
  }
  return low;
}
