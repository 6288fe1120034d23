// meteredStream: the bytes pass through unchanged, whether read chunk by chunk or in pieces (a
// byte stream's BYOB reads), and its end is told once with the bytes the reader took.
import { describe, expect, it } from 'vitest';
import { meteredStream, onMeteredEnd } from '../../src/lib/metered-stream';

const bytes = (length: number) => Uint8Array.from({ length }, (_, i) => (i * 31) % 251);
const noWork = { waitUntil: () => undefined };

describe('meteredStream', () => {
  for (const readBytes of [undefined, 64 * 1024]) {
    it(`passes every byte and tells the end with its length (${readBytes ? 'pieces' : 'chunks'})`, async () => {
      const source = bytes(300_007);
      const ends: number[] = [];
      const body = new Response(source).body as ReadableStream<Uint8Array>;
      const metered = meteredStream(body, source.length, { ...noWork, readBytes, onEnd: (taken) => ends.push(taken) });
      const later: number[] = [];
      expect(onMeteredEnd(metered, (taken) => later.push(taken))).toBe(true);
      const read = new Uint8Array(await new Response(metered).arrayBuffer());
      expect(read.length).toBe(source.length);
      expect(read.every((byte, i) => byte === source[i])).toBe(true);
      expect(ends).toEqual([source.length]);
      expect(later).toEqual([source.length]);
    });
  }

  it('reads a stream made in JavaScript chunk by chunk, of a length nobody stated', async () => {
    const chunks = [bytes(10), bytes(20), bytes(5)];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    const ends: number[] = [];
    const metered = meteredStream(body, null, { ...noWork, readBytes: 1024, onEnd: (taken) => ends.push(taken) });
    expect((await new Response(metered).arrayBuffer()).byteLength).toBe(35);
    expect(ends).toEqual([35]);
  });

  it('knows no other body', () => {
    expect(onMeteredEnd(new Response('x').body as ReadableStream, () => undefined)).toBe(false);
  });
});
