// A response body that knows how much of itself was taken: what a capped share link gives back
// to its budget when the client breaks off.

export type MeterOptions = {
  /** Called once, if the body does not reach its end, with the bytes the reader never took. */
  onShort: (unsent: number) => Promise<void>;
  waitUntil: (promise: Promise<unknown>) => void;
  /** The request's signal (enable_request_signal): aborted when the client goes away. */
  signal?: AbortSignal;
};

/**
 * Streams `body` (exactly `length` bytes) through a stream of known length. A write to an
 * identity stream completes only when the reader has taken it, so "taken" is what the runtime
 * read for the client, never less. The pump is the response's own work while it streams; when
 * the client goes away, the abort hands it to waitUntil, so giving back outlives the request.
 */
export function meteredStream(body: ReadableStream<Uint8Array>, length: number, options: MeterOptions) {
  const { readable, writable } = new FixedLengthStream(length);
  const writer = writable.getWriter();
  const reader = body.getReader();
  let taken = 0;
  const pump = async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await writer.write(value);
        taken += value.byteLength;
      }
      // Not awaited: a reader that took every byte of a known length may never read the end.
      writer.close().catch(() => undefined);
      if (taken !== length) throw new Error(`the body had ${taken} of ${length} bytes`);
    } catch (error) {
      await Promise.all([reader.cancel(error).catch(() => undefined), writer.abort(error).catch(() => undefined)]);
      const giveBack = options.onShort(Math.max(0, length - taken));
      options.waitUntil(giveBack);
      await giveBack;
    }
  };
  const pumped = pump();
  options.signal?.addEventListener('abort', () => options.waitUntil(pumped), { once: true });
  return readable;
}
