// A request body read in large pieces: workerd's BYOB reader with its `readAtLeast` extension.

/**
 * A BYOB reader of `body` when it is a byte stream (a request body) and has `readAtLeast`;
 * undefined otherwise (a body made in JavaScript), and the body is then left unlocked, to be read
 * chunk by chunk with its own reader.
 */
export function byteReader(body: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined {
  let reader: ReadableStreamBYOBReader;
  try {
    reader = body.getReader({ mode: 'byob' });
  } catch {
    return undefined;
  }
  if (typeof reader.readAtLeast === 'function') return reader;
  reader.releaseLock();
  return undefined;
}

/** A body read in pieces of our choosing: what the multipart reader and a tus PATCH read from. */
export type ByteSource = { read(): Promise<ReadableStreamReadResult<Uint8Array>>; cancel(): Promise<void> };
