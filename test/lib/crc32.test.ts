// CRC-32: the native zlib one (node:zlib) against a plain JavaScript table, incremental use (a
// tus upload's state between PATCHes), crc32Combine (a concatenated upload's CRC from its
// partials'), and both speeds in workerd, logged, never asserted.
import { describe, expect, it } from 'vitest';
import { crc32, crc32Combine } from '../../src/lib/crc32';

const encoder = new TextEncoder();

/** The textbook byte-at-a-time table CRC-32: the reference and the speed to beat. */
const TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function tableCrc32(bytes: Uint8Array, previous = 0): number {
  let c = ~previous;
  for (let i = 0; i < bytes.length; i++) c = (TABLE[(c ^ (bytes[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return ~c >>> 0;
}

/** Deterministic bytes (no two seeds alike, every byte value appears). */
function pattern(length: number, seed = 7): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

describe('crc32', () => {
  it('gives the known check values, unsigned', () => {
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(encoder.encode('hello'))).toBe(0x3610a686);
    expect(crc32(encoder.encode('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(32).fill(0xff))).toBe(0xff6cab0b);
    expect(crc32(encoder.encode('The quick brown fox jumps over the lazy dog'))).toBe(0x414fa339);
  });

  it('matches the JavaScript table at every length around word and block edges', () => {
    for (const length of [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 1000, 65_537]) {
      const bytes = pattern(length, length);
      expect(crc32(bytes), `length ${length}`).toBe(tableCrc32(bytes));
    }
  });

  it('continues from a previous value, so the state between requests is one number', () => {
    const bytes = pattern(100_003);
    const whole = crc32(bytes);
    for (const cut of [0, 1, 4096, 50_000, 99_999, 100_003]) {
      // The saved state goes through storage as a plain number, high bit set or not.
      const saved = Number(String(crc32(bytes.subarray(0, cut))));
      expect(crc32(bytes.subarray(cut), saved), `cut at ${cut}`).toBe(whole);
    }
    let state = 0;
    for (let at = 0; at < bytes.length; at += 777) state = crc32(bytes.subarray(at, at + 777), state);
    expect(state).toBe(whole);
  });
});

describe('crc32Combine', () => {
  it('equals the CRC of the concatenation for many splits, empty parts included', () => {
    const bytes = pattern(20_011, 3);
    const cuts = [0, 1, 2, 3, 4, 7, 8, 63, 64, 1000, 4096, 10_000, 19_999, 20_010, 20_011];
    for (let i = 0; i < 40; i++) cuts.push((i * 7919) % bytes.length);
    for (const cut of cuts) {
      const a = bytes.subarray(0, cut);
      const b = bytes.subarray(cut);
      expect(crc32Combine(crc32(a), crc32(b), b.length), `cut at ${cut}`).toBe(crc32(bytes));
    }
  });

  it('folds many partials, as a tus concatenation of partial uploads does', () => {
    const parts = [0, 5, 0, 1, 4096, 0, 333, 65_536, 7].map((length, i) => pattern(length, i + 1));
    const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    let combined = 0;
    for (const part of parts) {
      joined.set(part, at);
      at += part.length;
      combined = crc32Combine(combined, crc32(part), part.length);
    }
    expect(combined).toBe(crc32(joined));
  });

  it('handles lengths past 2^32: a 4.5 GiB concatenation checked against the CRC of its real bytes', () => {
    // 4.5 GiB as 1 MiB blocks fed to crc32 one after another (never held at once), against the
    // same CRC made by combining: [first MiB] + [the remaining 4607 MiB], whose CRC comes from
    // doubling one block's CRC with crc32Combine alone.
    const block = pattern(1 << 20, 11);
    const blocks = 4608;
    let streamed = 0;
    for (let i = 0; i < blocks; i++) streamed = crc32(block, streamed);
    const blockCrc = crc32(block);
    const repeated = (count: number): number => {
      if (count === 1) return blockCrc;
      const half = Math.floor(count / 2);
      const halves = crc32Combine(repeated(half), repeated(half), half * block.length);
      return count % 2 === 0 ? halves : crc32Combine(halves, blockCrc, block.length);
    };
    const restLength = (blocks - 1) * block.length;
    expect(restLength).toBeGreaterThan(2 ** 32);
    expect(crc32Combine(blockCrc, repeated(blocks - 1), restLength)).toBe(streamed);
    expect(repeated(blocks)).toBe(streamed);
  });

  it('is associative and treats an empty B as no change', () => {
    const [a, b, c] = [pattern(1234, 1), pattern(99, 2), pattern(70_000, 3)];
    const [ca, cb, cc] = [crc32(a), crc32(b), crc32(c)];
    const left = crc32Combine(crc32Combine(ca, cb, b.length), cc, c.length);
    const right = crc32Combine(ca, crc32Combine(cb, cc, c.length), b.length + c.length);
    expect(left).toBe(right);
    expect(crc32Combine(ca, 0, 0)).toBe(ca);
    expect(crc32Combine(0, cc, c.length)).toBe(cc);
  });

  it('refuses a length that is not a byte count', () => {
    expect(() => crc32Combine(1, 2, -1)).toThrow(RangeError);
    expect(() => crc32Combine(1, 2, 1.5)).toThrow(RangeError);
    expect(() => crc32Combine(1, 2, 2 ** 53)).toThrow(RangeError);
  });
});

describe('speed in workerd (logged, not asserted)', () => {
  it('measures the native crc32 against the JavaScript table', () => {
    const chunk = pattern(1 << 20, 5);
    const time = (mib: number, run: (bytes: Uint8Array, previous: number) => number) => {
      let state = 0;
      const started = performance.now();
      for (let i = 0; i < mib; i++) state = run(chunk, state);
      // Workers' clock advances only across I/O; the test runner's workerd allows it here, but a
      // zero reading would mean the figure is meaningless, so it is logged as such.
      return { state, ms: performance.now() - started };
    };
    const native = time(128, crc32);
    const table = time(16, tableCrc32);
    expect(table.state).toBe(time(16, crc32).state);
    const rate = (mib: number, ms: number) => (ms > 0 ? `${((mib * 1.048576) / (ms / 1000)).toFixed(0)} MB/s` : 'n/a');
    console.log(
      `crc32 in workerd: native ${rate(128, native.ms)} (128 MiB in ${native.ms.toFixed(0)} ms), ` +
        `JavaScript table ${rate(16, table.ms)} (16 MiB in ${table.ms.toFixed(0)} ms)`,
    );
  });
});
