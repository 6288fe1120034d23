// Synthetic members for the ZIP tests: every byte of member i at position p is a function of
// (i, p), so any ranged read can be answered without storing anything, and reads are logged.
import { concat } from '../../src/lib/bytes.ts';
import { crc32 } from '../../src/lib/crc32.ts';
import type { ReadMember } from '../../src/lib/zip-stream.ts';

export function byteOf(member: number, position: number): number {
  return (position * 31 + member * 17 + Math.floor(position / 251)) & 0xff;
}

export function memberBytes(member: number, offset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = byteOf(member, offset + i);
  return out;
}

export function memberCrc(member: number, size: number): number {
  return crc32(memberBytes(member, 0, size));
}

export type ReadLog = {
  reads: { index: number; offset: number; length: number }[];
  /** The most member streams open at the same time. */
  maxOpen: number;
  cancelled: number;
};

/**
 * A ReadMember answering from byteOf in chunks of `chunk` bytes. `extra` bytes more (or, when
 * negative, fewer) than asked stand in for a storage object that does not match its record.
 */
export function syntheticRead(options: { chunk?: number; extra?: number } = {}): { read: ReadMember; log: ReadLog } {
  const chunk = options.chunk ?? 4096;
  const log: ReadLog = { reads: [], maxOpen: 0, cancelled: 0 };
  let open = 0;
  const read: ReadMember = async (index, offset, length) => {
    log.reads.push({ index, offset, length });
    open++;
    log.maxOpen = Math.max(log.maxOpen, open);
    const total = Math.max(0, length + (options.extra ?? 0));
    let at = 0;
    return new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (at >= total) {
            open--;
            controller.close();
            return;
          }
          const size = Math.min(chunk, total - at);
          controller.enqueue(memberBytes(index, offset + at, size));
          at += size;
        },
        cancel() {
          open--;
          log.cancelled++;
        },
      },
      { highWaterMark: 0 },
    );
  };
  return { read, log };
}

export async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.byteLength;
  }
  return concat(parts, size);
}

/** A small deterministic pseudo-random sequence (tests must not differ between runs). */
export function seeded(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

/** Whether two byte arrays are equal (vitest's deep equality is slow on large typed arrays). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
