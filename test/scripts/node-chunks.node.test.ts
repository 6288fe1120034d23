// scripts/node-chunks.ts: how the CLI keeps its memory flat while it encrypts and decrypts (freeing
// the chunks it has written, a young-generation collection every few MiB). The CLI's transfers
// themselves are in cli-encryption.e2e.test.ts; the memory they take is measured by the bench.
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { collectingEvery, freeChunk, writeAndFree } from '../../scripts/node-chunks.ts';

const dir = mkdtempSync(join(tmpdir(), 'node-chunks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A 64 KiB chunk as node:crypto's ChaCha20-Poly1305 gives it: an ArrayBuffer of its own. */
function cipherOutput(): Uint8Array {
  const cipher = createCipheriv('chacha20-poly1305', randomBytes(32), randomBytes(12), { authTagLength: 16 });
  return cipher.update(randomBytes(64 * 1024));
}

/** The chunks one per read, then the end, or `fail` (after every chunk was read). */
function streamOf(chunks: Uint8Array[], fail?: Error): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[next++];
        if (chunk) controller.enqueue(chunk);
        else if (fail) controller.error(fail);
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

describe('freeChunk', () => {
  it('frees a cipher’s output at once: its buffer is detached', () => {
    const chunk = cipherOutput();
    freeChunk(chunk);
    expect(chunk.buffer.byteLength).toBe(0);
    expect(chunk.length).toBe(0);
  });

  it('leaves a view into a larger buffer, a small buffer and a pooled Buffer as they are', () => {
    const whole = new Uint8Array(256 * 1024).fill(7);
    const view = whole.subarray(0, 64 * 1024);
    const small = new Uint8Array(1024).fill(8);
    const pooled = Buffer.from('pooled bytes');
    for (const chunk of [view, small, pooled]) freeChunk(chunk);
    expect(whole.length).toBe(256 * 1024);
    expect(view.length).toBe(64 * 1024);
    expect(small[0]).toBe(8);
    expect(pooled.toString()).toBe('pooled bytes');
  });
});

describe('writeAndFree', () => {
  it('writes every chunk in order and frees each once written', async () => {
    const chunks = Array.from({ length: 40 }, () => cipherOutput());
    chunks.push(new Uint8Array(1000).fill(3));
    const expected = createHash('sha256');
    for (const chunk of chunks) expected.update(chunk);
    const path = join(dir, 'written.bin');
    const handle = await open(path, 'w');
    try {
      await writeAndFree(streamOf(chunks), handle);
    } finally {
      await handle.close();
    }
    expect(createHash('sha256').update(readFileSync(path)).digest('hex')).toBe(expected.digest('hex'));
    expect(chunks.slice(0, 40).every((chunk) => chunk.buffer.byteLength === 0)).toBe(true);
    // Too small to own its buffer for sure: left to the collector.
    expect(chunks[40]?.length).toBe(1000);
  });

  it('fails as the stream fails, after writing what came before', async () => {
    const path = join(dir, 'failed.bin');
    const handle = await open(path, 'w');
    try {
      await expect(writeAndFree(streamOf([cipherOutput(), cipherOutput()], new Error('cut')), handle)).rejects.toThrow(
        'cut',
      );
    } finally {
      await handle.close();
    }
    expect(readFileSync(path).length).toBe(2 * 64 * 1024);
  });

  it('cancels the stream when a write fails', async () => {
    let cancelled: unknown;
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(cipherOutput()),
      cancel: (reason) => {
        cancelled = reason;
      },
    });
    const handle = await open(join(dir, 'closed.bin'), 'w');
    await handle.close();
    await expect(writeAndFree(endless, handle)).rejects.toThrow();
    expect(cancelled).toBeInstanceOf(Error);
  });
});

describe('collectingEvery', () => {
  it('runs a young-generation collection once the bytes moved reach its step, not before', async () => {
    const minor: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const { detail } = entry as { detail?: { kind?: number } };
        if (detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) {
          minor.push(entry.startTime);
        }
      }
    });
    observer.observe({ entryTypes: ['gc'] });
    try {
      const moved = collectingEvery(1024 * 1024);
      const before = minor.length;
      moved(512 * 1024);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const afterHalf = minor.length;
      moved(512 * 1024);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(minor.length).toBeGreaterThan(afterHalf);
      // Half the step alone started none (an allocation-driven one may still run in between).
      expect(afterHalf - before).toBeLessThanOrEqual(1);
    } finally {
      observer.disconnect();
    }
  });
});
