// The age module with Node's native ChaCha20-Poly1305 and scrypt (scripts/age-native.ts, what the
// CLI uses): the same C2SP vectors and property tests as with @noble (vectors.test.ts and
// stream.test.ts, run here in Node with the native primitives), and the two agree byte for byte.
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE_CIPHER, NODE_SCRYPT } from '../../../scripts/age-native.ts';
import {
  type ChunkCipher,
  NOBLE_CIPHER,
  NOBLE_SCRYPT,
  type Scrypt,
  useChunkCipher,
  useScrypt,
} from '../../../src/lib/age/index.ts';
import { concat } from '../../../src/lib/bytes.ts';

const calls = { seal: 0, open: 0 };
const counted: ChunkCipher = {
  seal(key, nonce, plaintext) {
    calls.seal++;
    return NODE_CIPHER.seal(key, nonce, plaintext);
  },
  open(key, nonce, ciphertext) {
    calls.open++;
    return NODE_CIPHER.open(key, nonce, ciphertext);
  },
};
useChunkCipher(counted);
let scrypts = 0;
const countedScrypt: Scrypt = (passphrase, salt, logN) => {
  scrypts++;
  return NODE_SCRYPT(passphrase, salt, logN);
};
useScrypt(countedScrypt);

describe("Node's ChaCha20-Poly1305 for STREAM chunks", () => {
  it('seals and opens as @noble/ciphers does, and opens nothing altered', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ minLength: 12, maxLength: 12 }),
        fc.uint8Array({ maxLength: 70_000 }),
        fc.nat(),
        (key, nonce, plaintext, flip) => {
          const pieces = NODE_CIPHER.seal(key, nonce, plaintext);
          // Its pieces (the ciphertext, the tag: never an empty one) join into exactly noble's bytes.
          expect(pieces.every((piece) => piece.length > 0)).toBe(true);
          const sealed = concat(pieces);
          expect(sealed).toEqual(chacha20poly1305(key, nonce).encrypt(plaintext));
          expect(NODE_CIPHER.open(key, nonce, sealed)).toEqual(plaintext);
          const altered = sealed.slice();
          const at = flip % altered.length;
          altered[at] = (altered[at] ?? 0) ^ (1 << (flip % 8));
          expect(NODE_CIPHER.open(key, nonce, altered)).toBeUndefined();
          expect(NOBLE_CIPHER.open(key, nonce, altered)).toBeUndefined();
        },
      ),
      { numRuns: 60 },
    );
    expect(NODE_CIPHER.open(new Uint8Array(32), new Uint8Array(12), new Uint8Array(15))).toBeUndefined();
  });
});

describe("Node's scrypt for passphrase stanzas", () => {
  it('derives what @noble/hashes derives', async () => {
    const salt = new TextEncoder().encode('age-encryption.org/v1/scrypt0123456789abcdef');
    for (const [passphrase, logN] of [
      ['correct horse', 10],
      ['ünïcödé passphrase', 12],
      ['', 10],
    ] as const) {
      expect(await NODE_SCRYPT(passphrase, salt, logN)).toEqual(await NOBLE_SCRYPT(passphrase, salt, logN));
    }
  });
});

// Every test of these files now makes and opens its chunks with the native cipher (named through a
// variable: they are workerd's files, typechecked there, not with the scripts' Node settings).
for (const file of ['./vectors.test.ts', './stream.test.ts']) await import(file);

afterAll(() => {
  // The imported tests really went through it.
  expect(calls.seal).toBeGreaterThan(100);
  expect(calls.open).toBeGreaterThan(100);
  // The C2SP vectors' scrypt stanzas were opened with it.
  expect(scrypts).toBeGreaterThan(3);
  useChunkCipher();
  useScrypt();
});
