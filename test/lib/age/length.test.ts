// The payload's length rule, 16 + n + 16 × max(1, ⌈n / 65,536⌉), both ways: what the Worker
// checks an upload's payload against, and what clients size uploads and resume by.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHUNK_SIZE,
  chunkCount,
  chunkOffset,
  ENCRYPTED_CHUNK_SIZE,
  isValidPayloadLength,
  payloadLength,
  plaintextLength,
  resumePoint,
} from '../../../src/lib/age/length';

describe('payloadLength', () => {
  it.each([
    [0, 32, 1],
    [1, 33, 1],
    [65_535, 65_567, 1],
    [65_536, 65_568, 1],
    [65_537, 65_585, 2],
    [2 * 65_536, 131_120, 2],
    [2 * 65_536 + 1, 131_137, 3],
    [10 * 2 ** 30, 10 * 2 ** 30 + 16 + 16 * 163_840, 163_840],
  ])('%i plaintext bytes make a payload of %i bytes in %i chunks', (n, length, chunks) => {
    expect(chunkCount(n)).toBe(chunks);
    expect(payloadLength(n)).toBe(length);
    expect(plaintextLength(length)).toBe(n);
    expect(isValidPayloadLength(length)).toBe(true);
  });

  it('refuses lengths no plaintext has: short of a nonce and a tag, a last chunk of 1 to 16 bytes', () => {
    for (const length of [0, 1, 16, 31]) expect(isValidPayloadLength(length), `${length}`).toBe(false);
    // After one full chunk: 1 to 16 more bytes is a tag with nothing (or less) in front of it.
    for (let extra = 1; extra <= 16; extra++) {
      expect(isValidPayloadLength(16 + ENCRYPTED_CHUNK_SIZE + extra), `full chunk + ${extra}`).toBe(false);
    }
    expect(isValidPayloadLength(16 + ENCRYPTED_CHUNK_SIZE + 17)).toBe(true);
    for (const length of [-1, 1.5, Number.NaN, 2 ** 53]) expect(isValidPayloadLength(length), `${length}`).toBe(false);
    expect(() => payloadLength(-1)).toThrow(RangeError);
  });

  it('is a bijection between plaintext lengths and valid payload lengths', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (n) => {
        expect(plaintextLength(payloadLength(n))).toBe(n);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (length) => {
        const n = plaintextLength(length);
        if (n !== undefined) expect(payloadLength(n)).toBe(length);
      }),
    );
  });
});

describe('resumePoint', () => {
  it('names the chunk holding an offset, where its plaintext starts, and what of it is stored', () => {
    expect(resumePoint(0)).toEqual({ chunkIndex: 0, plaintextOffset: 0, skip: 0, nonceStored: 0 });
    expect(resumePoint(10)).toEqual({ chunkIndex: 0, plaintextOffset: 0, skip: 0, nonceStored: 10 });
    expect(resumePoint(16)).toEqual({ chunkIndex: 0, plaintextOffset: 0, skip: 0, nonceStored: 16 });
    expect(resumePoint(chunkOffset(3) + 5)).toEqual({
      chunkIndex: 3,
      plaintextOffset: 3 * CHUNK_SIZE,
      skip: 5,
      nonceStored: 16,
    });
    expect(resumePoint(chunkOffset(4) - 1)).toMatchObject({ chunkIndex: 3, skip: ENCRYPTED_CHUNK_SIZE - 1 });
  });
});
