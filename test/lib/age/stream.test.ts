// The payload's STREAM encryption: any chunk made alone at its index equals the same bytes of a
// sequential encryption (so uploads resume anywhere), age-encryption opens what we make, and our
// decryption refuses every altered, cut or extended payload, never giving a byte it has not
// authenticated. The streams hold one chunk at a time.
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { Decrypter } from 'age-encryption';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AgeError,
  CHUNK_SIZE,
  chunkCount,
  chunkOffset,
  decrypt,
  decryptStream,
  ENCRYPTED_CHUNK_SIZE,
  ExactReader,
  encryptChunk,
  encryptStream,
  generateIdentity,
  identityToRecipient,
  makeHeader,
  payloadKey,
  payloadLength,
  readAll,
  resumePayload,
  streamOf,
} from '../../../src/lib/age/index';
import { concat } from '../../../src/lib/bytes';
import { piecewise, seededBytes, settle } from '../../helpers/age';
import { sameBytes } from '../../helpers/zip-fixtures';

const identity = await generateIdentity();
const recipient = await identityToRecipient(identity);

/** Sizes around every edge (0, a chunk, a chunk and one) and anything up to a few hundred KiB. */
const size = fc.oneof(
  fc.constantFrom(0, 1, CHUNK_SIZE - 1, CHUNK_SIZE, CHUNK_SIZE + 1, 2 * CHUNK_SIZE, 3 * CHUNK_SIZE, 3 * CHUNK_SIZE + 7),
  fc.integer({ min: 0, max: 400 * 1024 }),
);
const key16 = fc.uint8Array({ minLength: 16, maxLength: 16 });

/** The sequential encryption, fed in pieces of random sizes. */
async function sequential(key: Uint8Array, plaintext: Uint8Array, seed: number): Promise<Uint8Array> {
  let x = seed;
  const pieces = () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return 1 + (x % 100_000);
  };
  return readAll(piecewise(plaintext, pieces).pipeThrough(encryptStream(key)));
}

const chunkOf = (plaintext: Uint8Array, i: number) => plaintext.subarray(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE);

describe('encryptChunk and encryptStream', () => {
  it('make any chunk range at its offset equal to the same slice of a sequential encryption', async () => {
    await fc.assert(
      fc.asyncProperty(size, key16, key16, fc.nat(), fc.nat(), fc.nat(), async (n, fileKey, nonce, seed, a, b) => {
        const plaintext = seededBytes(seed, n);
        const key = payloadKey(fileKey, nonce);
        const whole = await sequential(key, plaintext, seed);
        expect(whole.length + 16).toBe(payloadLength(n));
        const chunks = chunkCount(n);
        const first = a % chunks;
        const last = first + (b % (chunks - first));
        const parts = [];
        for (let i = first; i <= last; i++) parts.push(encryptChunk(key, i, chunkOf(plaintext, i), i === chunks - 1));
        const slice = whole.subarray(chunkOffset(first) - 16, Math.min(chunkOffset(last + 1) - 16, whole.length));
        expect(sameBytes(concat(parts), slice)).toBe(true);
        // The stream started at a chunk (a resumed upload) gives the rest of the same payload.
        const resumed = await readAll(
          streamOf(plaintext.subarray(first * CHUNK_SIZE)).pipeThrough(encryptStream(key, { fromChunk: first })),
        );
        expect(sameBytes(resumed, whole.subarray(chunkOffset(first) - 16))).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('makes a payload that age-encryption opens, with a header we made for its file key', async () => {
    await fc.assert(
      fc.asyncProperty(size, key16, key16, fc.nat(), async (n, fileKey, nonce, seed) => {
        const plaintext = seededBytes(seed, n);
        const payload = concat([nonce, await sequential(payloadKey(fileKey, nonce), plaintext, seed)]);
        const header = await makeHeader(fileKey, { recipients: [recipient] });
        const decrypter = new Decrypter();
        decrypter.addIdentity(identity);
        expect(sameBytes(await decrypter.decrypt(concat([header, payload])), plaintext)).toBe(true);
      }),
      { numRuns: 15 },
    );
  });

  it('refuses chunks that break the layout', () => {
    const key = new Uint8Array(32);
    expect(() => encryptChunk(key, 0, new Uint8Array(100), false)).toThrow(/exactly 64 KiB/);
    expect(() => encryptChunk(key, 0, new Uint8Array(CHUNK_SIZE + 1), true)).toThrow(RangeError);
    expect(() => encryptChunk(key, 2, new Uint8Array(0), true)).toThrow(/empty/);
    expect(() => encryptChunk(key, -1, new Uint8Array(1), true)).toThrow(RangeError);
    expect(encryptChunk(key, 0, new Uint8Array(0), true)).toHaveLength(16);
  });
});

describe('resumePayload', () => {
  it('gives the payload from any offset, equal to the same slice of the whole', async () => {
    await fc.assert(
      fc.asyncProperty(size, key16, key16, fc.nat(), fc.nat(), async (n, fileKey, nonce, seed, at) => {
        const plaintext = seededBytes(seed, n);
        const whole = concat([nonce, await sequential(payloadKey(fileKey, nonce), plaintext, seed)]);
        const offset = at % (whole.length + 1);
        const rest = await readAll(
          resumePayload({ fileKey, nonce }, n, offset, (from) => piecewise(plaintext.subarray(from), 10_000)),
        );
        expect(sameBytes(rest, whole.subarray(offset))).toBe(true);
      }),
      { numRuns: 25 },
    );
  });
});

describe('decryptStream', () => {
  const fileKey = seededBytes(5, 16);
  const nonce = seededBytes(6, 16);
  const key = payloadKey(fileKey, nonce);
  const plaintext = seededBytes(7, 2 * CHUNK_SIZE + 1000);
  const chunks = async () => sequential(key, plaintext, 1);

  async function open(ciphertext: Uint8Array, fromChunk = 0) {
    return settle(piecewise(ciphertext, 5000).pipeThrough(decryptStream(key, { fromChunk })));
  }

  it('opens the payload read in any piece sizes, and from any chunk on', async () => {
    const ciphertext = await chunks();
    for (const piece of [13, 999, ENCRYPTED_CHUNK_SIZE, 1 << 20]) {
      const { bytes, error } = await settle(piecewise(ciphertext, piece).pipeThrough(decryptStream(key)));
      expect(error).toBeUndefined();
      expect(sameBytes(bytes, plaintext), `pieces of ${piece}`).toBe(true);
    }
    for (const from of [1, 2]) {
      const { bytes, error } = await open(ciphertext.subarray(chunkOffset(from) - 16), from);
      expect(error).toBeUndefined();
      expect(sameBytes(bytes, plaintext.subarray(from * CHUNK_SIZE))).toBe(true);
    }
  });

  it('refuses a payload cut at a chunk boundary (no final chunk), giving only what authenticated', async () => {
    const ciphertext = await chunks();
    const { bytes, error } = await open(ciphertext.subarray(0, 2 * ENCRYPTED_CHUNK_SIZE));
    expect(error).toMatchObject({ kind: 'payload', message: expect.stringMatching(/ends after chunk 1/) });
    expect(sameBytes(bytes, plaintext.subarray(0, 2 * CHUNK_SIZE))).toBe(true);
    expect((await open(new Uint8Array(0))).error).toMatchObject({ kind: 'payload' });
  });

  it('refuses a payload cut inside a chunk', async () => {
    const ciphertext = await chunks();
    for (const end of [ciphertext.length - 1, ENCRYPTED_CHUNK_SIZE + 10, 5]) {
      const { error } = await open(ciphertext.subarray(0, end));
      expect(error, `cut at ${end}`).toBeInstanceOf(AgeError);
    }
  });

  it('refuses bytes after the final chunk, having given only the chunks that authenticated', async () => {
    const ciphertext = await chunks();
    for (const extra of [1, 16, 17, ENCRYPTED_CHUNK_SIZE]) {
      const { bytes, error } = await open(concat([ciphertext, new Uint8Array(extra)]));
      expect(error, `${extra} more bytes`).toBeInstanceOf(AgeError);
      // Read as age reads: the short final chunk and the extra bytes are one chunk that does not open.
      expect(sameBytes(bytes, plaintext.subarray(0, 2 * CHUNK_SIZE))).toBe(true);
    }
    // A full final chunk opens, so all the plaintext is given before the extra bytes are refused.
    const exact = plaintext.subarray(0, 2 * CHUNK_SIZE);
    const full = await sequential(key, exact, 3);
    const { bytes, error } = await open(concat([full, new Uint8Array(5)]));
    expect(error).toMatchObject({ kind: 'payload', message: expect.stringMatching(/bytes after the final chunk/) });
    expect(sameBytes(bytes, exact)).toBe(true);
  });

  it('refuses an empty final chunk after full ones', async () => {
    const full = plaintext.subarray(0, CHUNK_SIZE);
    const lastNonce = new Uint8Array(12);
    lastNonce[10] = 1;
    lastNonce[11] = 1;
    const emptyFinal = chacha20poly1305(key, lastNonce).encrypt(new Uint8Array(0));
    const { bytes, error } = await open(concat([encryptChunk(key, 0, full, false), emptyFinal]));
    expect(error).toMatchObject({ kind: 'payload', message: expect.stringMatching(/last chunk \(1\) is empty/) });
    expect(sameBytes(bytes, full)).toBe(true);
  });

  it('refuses a full chunk flagged final before another chunk', async () => {
    const first = encryptChunk(key, 0, plaintext.subarray(0, CHUNK_SIZE), true);
    const second = encryptChunk(key, 1, plaintext.subarray(CHUNK_SIZE, CHUNK_SIZE + 10), true);
    expect((await open(concat([first, second]))).error).toMatchObject({ kind: 'payload' });
  });

  it('refuses any single flipped bit anywhere in a file, header or payload', async () => {
    const small = seededBytes(8, CHUNK_SIZE + 300);
    const header = await makeHeader(fileKey, { recipients: [recipient] });
    const file = concat([header, nonce, await sequential(key, small, 2)]);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: file.length - 1 }),
        fc.integer({ min: 0, max: 7 }),
        async (at, bit) => {
          const altered = file.slice();
          altered[at] = (altered[at] ?? 0) ^ (1 << bit);
          let failed = false;
          try {
            const { plaintext: out } = await decrypt(streamOf(altered), { identity });
            failed = (await settle(out)).error instanceof AgeError;
          } catch (error) {
            failed = error instanceof AgeError;
          }
          expect(failed, `bit ${bit} of byte ${at} (the header is ${header.length} bytes)`).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('gives nothing of a payload under another file key', async () => {
    const ciphertext = await chunks();
    const other = payloadKey(seededBytes(9, 16), nonce);
    const { bytes, error } = await settle(streamOf(ciphertext).pipeThrough(decryptStream(other)));
    expect(error).toMatchObject({ kind: 'payload' });
    expect(bytes).toHaveLength(0);
  });
});

describe('memory', () => {
  /** A lazy source of `total` bytes in 16 KiB pieces, counting what was pulled from it. */
  function counted(total: number) {
    const state = { pulled: 0 };
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (state.pulled >= total) return controller.close();
          const piece = new Uint8Array(Math.min(16 * 1024, total - state.pulled));
          state.pulled += piece.length;
          controller.enqueue(piece);
        },
      },
      { highWaterMark: 0 },
    );
    return { stream, state };
  }

  it('encrypts and decrypts reading a few chunks ahead of the reader, whatever the file’s size', async () => {
    const key = payloadKey(seededBytes(10, 16), seededBytes(11, 16));
    const source = counted(64 * 1024 * 1024);
    const reader = source.stream.pipeThrough(encryptStream(key)).getReader();
    for (let i = 0; i < 3; i++) await reader.read();
    expect(source.state.pulled).toBeLessThanOrEqual(6 * CHUNK_SIZE);
    await reader.cancel();

    const encrypted = counted(64 * 1024 * 1024);
    const plain = encrypted.stream.pipeThrough(decryptStream(key)).getReader();
    // Zero bytes do not authenticate: the first read fails, having read one chunk and a little.
    await expect(plain.read()).rejects.toBeInstanceOf(AgeError);
    expect(encrypted.state.pulled).toBeLessThanOrEqual(4 * ENCRYPTED_CHUNK_SIZE);
  });
});

describe('ExactReader', () => {
  it('gathers a read spanning the stream’s pieces into the array given, and gives one within a piece as a view of it', async () => {
    const bytes = seededBytes(21, 100);
    const pieces = [30, 70];
    const reader = new ExactReader(piecewise(bytes, () => pieces.shift() ?? 100));
    const into = new Uint8Array(50);
    const within = await reader.read(20, into);
    expect(within.buffer).not.toBe(into.buffer);
    expect(within).toEqual(bytes.subarray(0, 20));
    const spanning = await reader.read(50, into);
    expect(spanning.buffer).toBe(into.buffer);
    expect(spanning).toEqual(bytes.subarray(20, 70));
    // Without an array, a spanning read is a new one; the end gives fewer bytes.
    expect(await reader.read(50)).toEqual(bytes.subarray(70));
    expect(await reader.atEnd()).toBe(true);
  });
});
