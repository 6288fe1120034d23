// Node's own ChaCha20-Poly1305 and scrypt (OpenSSL, through node:crypto) for the age module's STREAM
// chunks and passphrase stanzas: several times faster than @noble's portable ones, which the
// browser and the Worker keep. Only the primitives: the chunks' layout, nonces and checks stay in
// src/lib/age/stream.ts, the stanzas' in recipients.ts, and the C2SP vectors and the property tests
// run with both (test/lib/age/native-cipher.node.test.ts).
import { createCipheriv, createDecipheriv, scrypt } from 'node:crypto';
import type { ChunkCipher, Scrypt } from '../src/lib/age/index.ts';

const TAG = 16;

export const NODE_CIPHER: ChunkCipher = {
  seal(key, nonce, plaintext) {
    const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG });
    const out = new Uint8Array(plaintext.length + TAG);
    const body = cipher.update(plaintext);
    out.set(body);
    out.set(cipher.final(), body.length);
    out.set(cipher.getAuthTag(), plaintext.length);
    return out;
  },
  open(key, nonce, ciphertext) {
    if (ciphertext.length < TAG) return undefined;
    const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG });
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG));
    const out = new Uint8Array(ciphertext.length - TAG);
    const body = decipher.update(ciphertext.subarray(0, ciphertext.length - TAG));
    out.set(body);
    try {
      // The tag is checked here: nothing is returned before it authenticates.
      out.set(decipher.final(), body.length);
    } catch {
      return undefined;
    }
    return out;
  },
};

/** scrypt in OpenSSL: a work factor of 2^18 in a fraction of noble's time (memory: 128 × r × N bytes). */
export const NODE_SCRYPT: Scrypt = (passphrase, salt, logN) =>
  new Promise((resolve, reject) => {
    const N = 2 ** logN;
    scrypt(passphrase, salt, 32, { N, r: 8, p: 1, maxmem: 2 * 128 * 8 * N }, (error, key) => {
      if (error) reject(error);
      else resolve(new Uint8Array(key.buffer, key.byteOffset, key.length));
    });
  });
