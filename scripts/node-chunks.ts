// Keeping the CLI's memory flat while it encrypts or decrypts. Every 64 KiB STREAM chunk that
// node:crypto encrypts or decrypts is a new ArrayBuffer of its own (OpenSSL writes into no array of
// ours), and so is every piece the socket reads; V8 frees such buffers only at a collection, which
// its heuristics start after tens of MiB of them (the JS objects around them are small, so the
// young generation fills slowly), and by then glibc's malloc holds them all. An encrypting upload
// or a decrypting download grew Node's RSS by 70–80 MiB that way, against 40–50 MiB for the same
// transfer in plain (docs/benchmarks.md). Here: a young-generation collection every few MiB moved
// (a scavenge, a millisecond or so: the chunks are garbage by then, so it copies next to nothing),
// and the decrypted chunks freed as soon as they are written.
import type { FileHandle } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Bytes moved between two young-generation collections. */
const COLLECT_EVERY = 2 * 1024 * 1024;

type Gc = (options: { type: 'minor' | 'major'; execution?: 'sync' | 'async' }) => void;
let gc: Gc | undefined;

/**
 * V8's `gc()`, as `--expose-gc` gives it, without that flag on the command line (`npm run cli`
 * starts Node plainly): the flag set now applies to a context made after it. The same way Jest's
 * leak detector gets it.
 */
function exposedGc(): Gc {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as Gc;
  }
  return gc;
}

/**
 * Counts the bytes of a transfer (`moved(n)` after each piece) and runs a young-generation
 * collection every COLLECT_EVERY of them: the chunks of the last few MiB are freed then, not tens
 * of MiB later.
 */
export function collectingEvery(bytes = COLLECT_EVERY): (moved: number) => void {
  const collect = exposedGc();
  let since = 0;
  return (moved) => {
    since += moved;
    if (since < bytes) return;
    since = 0;
    collect({ type: 'minor' });
  };
}

/** Below this, a chunk may share its ArrayBuffer (Node's Buffer pool); it is never freed here. */
const OWN_BUFFER_MIN = 16 * 1024;

/**
 * Frees `chunk`'s memory now when it is the whole of an ArrayBuffer of its own (a cipher's output):
 * its bytes, and those of any other view of that buffer, are gone after. Anything else (a view
 * into a larger buffer, a small or pooled one) is left to the garbage collector.
 */
export function freeChunk(chunk: Uint8Array): void {
  const buffer = chunk.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer; detached?: boolean };
  if (!(buffer instanceof ArrayBuffer) || typeof buffer.transfer !== 'function' || buffer.detached) return;
  if (chunk.byteOffset !== 0 || chunk.byteLength !== buffer.byteLength || chunk.byteLength < OWN_BUFFER_MIN) return;
  try {
    buffer.transfer(0);
  } catch {
    // Not detachable (Node marks its pooled buffers so): the collector frees it.
  }
}

/**
 * Writes every chunk of `stream` to `handle`, in order, each freed (freeChunk) once written: for a
 * stream whose chunks no one else reads, such as a decrypted download. The next chunk is read
 * while one is being written.
 */
export async function writeAndFree(stream: ReadableStream<Uint8Array>, handle: FileHandle): Promise<void> {
  const reader = stream.getReader();
  const moved = collectingEvery();
  let writing: Promise<void> = Promise.resolve();
  try {
    for (;;) {
      // Both awaited together: a failure of either is handled, not left unhandled.
      const [, { done, value }] = await Promise.all([writing, reader.read()]);
      if (done) return;
      const length = value.length;
      writing = writeAll(handle, value).then(() => {
        freeChunk(value);
        moved(length);
      });
    }
  } catch (error) {
    await writing.catch(() => {});
    await reader.cancel(error).catch(() => {});
    throw error;
  }
}

async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  for (let at = 0; at < chunk.length; ) at += (await handle.write(chunk, at, chunk.length - at)).bytesWritten;
}
