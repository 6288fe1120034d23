// Bytes and streams for the age module's tests: deterministic plaintexts of any size (Web Crypto
// gives at most 64 KiB at a time), streams cut in pieces of chosen sizes, and a reader that keeps
// what a stream gave before it failed (the C2SP vectors judge that too).
import { concat } from '../../src/lib/bytes.ts';

/** `length` pseudo-random bytes from `seed` (xorshift32): the same every run. */
export function seededBytes(seed: number, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  let x = seed | 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

/** The bytes as a stream of pieces of `size` bytes (or sizes a function picks), read on demand. */
export function piecewise(bytes: Uint8Array, size: number | (() => number)): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        const n = Math.max(1, typeof size === 'number' ? size : size());
        controller.enqueue(bytes.slice(offset, offset + n));
        offset += n;
      },
    },
    { highWaterMark: 0 },
  );
}

/** Reads a stream to its end or its error: the bytes it gave before either, and the error. */
export async function settle(stream: ReadableStream<Uint8Array>): Promise<{ bytes: Uint8Array; error: unknown }> {
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let error: unknown;
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
  } catch (caught) {
    error = caught;
  }
  return { bytes: concat(parts), error };
}
