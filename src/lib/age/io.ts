// Reading an age file from a stream: the header split off the front (read up to 16 KiB, never
// more), and the bytes after it in pieces of exactly the size asked (the nonce, then whole STREAM
// chunks), whatever sizes the stream's chunks have. Keyless: the Worker may split an upload with it.
import { concat } from '../bytes.ts';
import { AgeError } from './errors.ts';
import { checkHeader, HEADER_MAX_BYTES, type ParsedHeader } from './format.ts';

const EMPTY: Uint8Array = new Uint8Array(0);

/** A stream read in pieces of the caller's size: `read(n)` gives n bytes, fewer only at the end. */
export class ExactReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private buffered: Uint8Array = EMPTY;
  private ended = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }

  /**
   * The next `n` bytes; fewer only when the stream ends first. Bytes that span several of the
   * stream's chunks are gathered into a new array, or into `into` (at least `n` long) when given:
   * then they are valid only until the next read, which may overwrite them.
   */
  async read(n: number, into?: Uint8Array): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let have = 0;
    while (have < n && (this.buffered.length > 0 || (await this.fill()))) {
      const part = this.buffered.subarray(0, n - have);
      this.buffered = this.buffered.subarray(part.length);
      parts.push(part);
      have += part.length;
    }
    if (!into || parts.length < 2) return concat(parts, have);
    let offset = 0;
    for (const part of parts) {
      into.set(part, offset);
      offset += part.length;
    }
    return into.subarray(0, have);
  }

  /** At least `n` bytes ahead, left unread (fewer only at the end). */
  async peek(n: number): Promise<Uint8Array> {
    while (this.buffered.length < n) {
      const before = this.buffered;
      if (!(await this.fill())) break;
      this.buffered = concat([before, this.buffered]);
    }
    return this.buffered;
  }

  /** True once every byte has been read. */
  async atEnd(): Promise<boolean> {
    return this.buffered.length === 0 && !(await this.fill());
  }

  /** Gives up the rest of the stream. */
  async cancel(reason?: unknown): Promise<void> {
    this.buffered = EMPTY;
    await this.reader.cancel(reason);
  }

  /** The bytes not read yet, as a stream read on demand. */
  rest(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          if (this.buffered.length === 0 && !(await this.fill())) return controller.close();
          controller.enqueue(this.buffered);
          this.buffered = EMPTY;
        },
        cancel: (reason) => this.cancel(reason),
      },
      { highWaterMark: 0 },
    );
  }

  /** Replaces the (empty) buffer with the stream's next non-empty chunk; false at the end. */
  private async fill(): Promise<boolean> {
    while (!this.ended) {
      const { done, value } = await this.reader.read();
      if (done) this.ended = true;
      else if (value.length > 0) {
        this.buffered = value;
        return true;
      }
    }
    return false;
  }
}

/**
 * The header at the front of an age file's stream, checked against the grammar (not its MAC), and
 * a reader of the bytes after it (`reader.rest()` for them as a stream). Throws AgeError `header`
 * with the rule broken (`reason`), and cancels the stream.
 */
export async function splitHeader(
  file: ReadableStream<Uint8Array>,
): Promise<{ header: Uint8Array; parsed: ParsedHeader; reader: ExactReader }> {
  const reader = new ExactReader(file);
  let want = 1;
  for (;;) {
    const ahead = await reader.peek(want);
    const check = checkHeader(ahead);
    if (check.ok) {
      const { ok: _, ...parsed } = check;
      const header = await reader.read(check.headerLength);
      return { header: header.slice(), parsed, reader };
    }
    // Read on only while the header may still end within its bound; twice as far each time, so
    // tiny chunks cost a few parses, not one per chunk.
    if (check.reason !== 'no_mac_line' || ahead.length < want) {
      await reader.cancel(check.detail).catch(() => {});
      throw new AgeError('header', check.detail, check.reason);
    }
    want = Math.min(Math.max(2 * ahead.length, 1024), HEADER_MAX_BYTES + 1);
  }
}

/** `bytes` as a stream of one chunk. */
export function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** Every byte of a stream, as one array (for small things: a backup, a test's file). Safari has no `for await` of streams. */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
  return concat(parts);
}

/** `prefix`, then the stream's bytes. */
export function prepend(prefix: Uint8Array, stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        if (prefix.length > 0) controller.enqueue(prefix);
      },
    }),
  );
}

/** The stream's bytes without its first `count`. */
export function skip(count: number, stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let left = count;
  return stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const kept = chunk.subarray(Math.min(left, chunk.length));
        left -= chunk.length - kept.length;
        if (kept.length > 0) controller.enqueue(kept);
      },
    }),
  );
}
