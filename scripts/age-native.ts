// Node's own ChaCha20-Poly1305 and scrypt (OpenSSL, through node:crypto) for the age module's STREAM
// chunks and passphrase stanzas: several times faster than @noble's portable ones, which the
// browser and the Worker keep. Only the primitives: the chunks' layout, nonces and checks stay in
// src/lib/age/stream.ts, the stanzas' in recipients.ts, and the C2SP vectors and the property tests
// run with both (test/lib/age/native-cipher.node.test.ts).
import { createCipheriv, createDecipheriv, scrypt } from 'node:crypto';
import type { ChunkCipher, Scrypt } from '../src/lib/age/index.ts';
import { concat } from '../src/lib/bytes.ts';

const TAG = 16;

export const NODE_CIPHER: ChunkCipher = {
  // The pieces as OpenSSL gives them, never copied into one more array: each is a new allocation,
  // and every byte copied is garbage that Node's heap collects only after tens of MiB of it.
  seal(key, nonce, plaintext) {
    const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG });
    const pieces = [cipher.update(plaintext), cipher.final(), cipher.getAuthTag()];
    return pieces.filter((piece) => piece.length > 0).map(view);
  },
  open(key, nonce, ciphertext) {
    if (ciphertext.length < TAG) return undefined;
    const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG });
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG));
    const body = decipher.update(ciphertext.subarray(0, ciphertext.length - TAG));
    let rest: Uint8Array;
    try {
      // The tag is checked here: nothing is returned before it authenticates.
      rest = decipher.final();
    } catch {
      return undefined;
    }
    // A stream cipher: final() gives nothing more, and `body` is the plaintext as it is.
    return rest.length === 0 ? view(body) : concat([body, rest]);
  },
};

/** A Buffer's bytes as a plain Uint8Array (what the age module gives everywhere), not copied. */
const view = (buffer: Buffer): Uint8Array => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.length);

/** scrypt in OpenSSL: a work factor of 2^18 in a fraction of noble's time (memory: 128 × r × N bytes). */
export const NODE_SCRYPT: Scrypt = (passphrase, salt, logN) =>
  new Promise((resolve, reject) => {
    const N = 2 ** logN;
    scrypt(passphrase, salt, 32, { N, r: 8, p: 1, maxmem: 2 * 128 * 8 * N }, (error, key) => {
      if (error) reject(error);
      else resolve(view(key));
    });
  });
