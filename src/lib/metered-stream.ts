// A response body that knows how much of itself was taken: what a capped share link gives back
// to its budget when the client breaks off, and the bytes an access-log event says were sent.

export type MeterOptions = {
  /** Called once, if the body does not reach its end, with the bytes the reader never took. */
  onShort?: (unsent: number) => Promise<void>;
  /**
   * Called once when the body ends, whole or cut short, with the bytes the reader took. On a
   * whole body it runs before the end is passed on, so the response is still open (and its
   * waitUntil usable) when it does.
   */
  onEnd?: (taken: number) => void;
  waitUntil: (promise: Promise<unknown>) => void;
  /** The request's signal (enable_request_signal): aborted when the client goes away. */
  signal?: AbortSignal;
  /**
   * Read the source this many bytes at a time (a byte stream's BYOB reads) instead of chunk by
   * chunk: far less work per byte (the runtime's streams hand out 4 KiB chunks), but "taken"
   * then grows a piece at a time, so a body cut short is counted up to a piece low.
   */
  readBytes?: number;
};

// The bodies made here, with who waits for their end: a later reader of the same answer (the
// access log) listens to the meter already there instead of stacking a second one, which would
// read ahead of the client and make the first count bytes the client never took.
const listeners = new WeakMap<ReadableStream, ((taken: number) => void)[]>();

/** Listens for the end of a body made by meteredStream; false when `body` is not one. */
export function onMeteredEnd(body: ReadableStream, listener: (taken: number) => void): boolean {
  const list = listeners.get(body);
  if (!list) return false;
  list.push(listener);
  return true;
}

/**
 * Reads a stream in pieces of `bytes` where it is a byte stream (every body the runtime makes:
 * a BYOB reader's readAtLeast), chunk by chunk otherwise or when no size is asked for.
 */
function chunkReader(body: ReadableStream<Uint8Array>, bytes: number | undefined) {
  if (bytes !== undefined) {
    try {
      const reader = body.getReader({ mode: 'byob' });
      return {
        read: () => reader.readAtLeast(bytes, new Uint8Array(bytes)),
        cancel: (reason: unknown) => reader.cancel(reason),
      };
    } catch {
      // A stream made in JavaScript: no BYOB reads.
    }
  }
  const reader = body.getReader();
  return { read: () => reader.read(), cancel: (reason: unknown) => reader.cancel(reason) };
}

/**
 * Streams `body` (exactly `length` bytes; null: a length nobody stated) through an identity
 * stream, of known length when there is one. A write completes only when the reader has taken
 * it, so "taken" is what the runtime read for the client, never more. The source is read one
 * piece ahead of the write in flight, as the runtime's own pipe would. The pump is
 * the response's own work while it streams; when the client goes away, the abort hands it to
 * waitUntil, so what follows a short body outlives the request.
 */
export function meteredStream(body: ReadableStream<Uint8Array>, length: number | null, options: MeterOptions) {
  const { readable, writable } = length === null ? new IdentityTransformStream() : new FixedLengthStream(length);
  const writer = writable.getWriter();
  const reader = chunkReader(body, options.readBytes);
  let taken = 0;
  const ended = options.onEnd ? [options.onEnd] : [];
  const end = () => {
    for (const listener of ended.splice(0)) listener(taken);
  };
  const pump = async () => {
    let writing: Promise<void> = Promise.resolve();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        await writing;
        if (value && value.byteLength > 0) {
          writing = writer.write(value).then(() => {
            taken += value.byteLength;
          });
          // Awaited at the next turn; until then a client gone away must not be an unhandled rejection.
          writing.catch(() => undefined);
        }
        if (done) break;
      }
      await writing;
      if (length !== null && taken !== length) throw new Error(`the body had ${taken} of ${length} bytes`);
      end();
      // Not awaited: a reader that took every byte of a known length may never read the end.
      writer.close().catch(() => undefined);
    } catch (error) {
      await Promise.all([reader.cancel(error).catch(() => undefined), writer.abort(error).catch(() => undefined)]);
      end();
      if (!options.onShort) return;
      const giveBack = options.onShort(Math.max(0, (length ?? taken) - taken));
      options.waitUntil(giveBack);
      await giveBack;
    }
  };
  const pumped = pump();
  options.signal?.addEventListener('abort', () => options.waitUntil(pumped), { once: true });
  listeners.set(readable, ended);
  return readable;
}
