// The age payload's encryption (C2SP age, "Payload"): STREAM over ChaCha20-Poly1305, 64 KiB a
// chunk, under a key derived from the file key and the payload's nonce. Each chunk's nonce is its
// index (11 bytes, big-endian) and a last-chunk flag, so any chunk can be made or opened alone:
// an upload resumes at any chunk, a download decrypts from any chunk. The streams hold one chunk
// at a time, whatever the file's size, and run alike in workerd, Node and browsers.
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concat } from '../bytes.ts';
import { AgeError } from './errors.ts';
import { ExactReader } from './io.ts';
import { CHUNK_SIZE, ENCRYPTED_CHUNK_SIZE, NONCE_SIZE, TAG_SIZE } from './length.ts';

const FILE_KEY_SIZE = 16;
const PAYLOAD_LABEL = new TextEncoder().encode('payload');

/**
 * ChaCha20-Poly1305 (RFC 8439) for one STREAM chunk: `seal` gives ciphertext ‖ 16-byte tag, in
 * pieces whose concatenation that is (one for @noble/ciphers; Node's cipher gives the ciphertext
 * and the tag apart, and joining them would copy every chunk once more), `open` gives the
 * plaintext, or undefined when the tag does not authenticate (never a byte before it is checked).
 * The chunks' layout, nonces and checks stay here; only the AEAD itself can be swapped.
 */
export type ChunkCipher = {
  seal(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array): Uint8Array[];
  open(key: Uint8Array, nonce: Uint8Array, ciphertext: Uint8Array): Uint8Array | undefined;
};

/** @noble/ciphers' ChaCha20-Poly1305: runs everywhere (workerd, Node, browsers). */
export const NOBLE_CIPHER: ChunkCipher = {
  seal: (key, nonce, plaintext) => [chacha20poly1305(key, nonce).encrypt(plaintext)],
  open: (key, nonce, ciphertext) => {
    try {
      return chacha20poly1305(key, nonce).decrypt(ciphertext);
    } catch {
      return undefined;
    }
  },
};

let cipher: ChunkCipher = NOBLE_CIPHER;

/**
 * Makes every chunk with `next` from now on (the CLI gives Node's native ChaCha20-Poly1305, several
 * times faster than the portable one); without an argument, back to @noble/ciphers'.
 */
export function useChunkCipher(next: ChunkCipher = NOBLE_CIPHER): void {
  cipher = next;
}

/** payload key = HKDF-SHA-256(ikm = file key, salt = the payload's 16-byte nonce, info = "payload"). */
export function payloadKey(fileKey: Uint8Array, nonce: Uint8Array): Uint8Array {
  if (fileKey.length !== FILE_KEY_SIZE) throw new RangeError('an age file key is 16 bytes');
  if (nonce.length !== NONCE_SIZE) throw new RangeError('an age payload nonce is 16 bytes');
  return hkdf(sha256, fileKey, nonce, PAYLOAD_LABEL, 32);
}

/** Chunk `index`'s nonce: the index as 11 big-endian bytes, then 0x01 on the last chunk, else 0x00. */
function chunkNonce(index: number, last: boolean): Uint8Array {
  if (!Number.isSafeInteger(index) || index < 0)
    throw new RangeError(`a chunk index is a whole number ≥ 0, not ${index}`);
  const nonce = new Uint8Array(12);
  // A safe integer fits in the counter's low 7 bytes: the high 4 stay zero.
  for (let i = 10, rest = index; rest > 0; i--, rest = Math.floor(rest / 256)) nonce[i] = rest % 256;
  nonce[11] = last ? 1 : 0;
  return nonce;
}

/**
 * Chunk `index` of the payload, encrypted: equal to the same bytes of a sequential encryption. A
 * chunk before the last holds exactly 64 KiB; the last holds 1 to 64 KiB, or 0 when it is chunk 0
 * (an empty file).
 */
export function encryptChunk(key: Uint8Array, index: number, plaintext: Uint8Array, last: boolean): Uint8Array {
  return concat(encryptChunkParts(key, index, plaintext, last));
}

/**
 * encryptChunk's bytes in the pieces the cipher made them in (their concatenation is the chunk):
 * for streams that pass the pieces on as they are, without joining them into one array first.
 */
export function encryptChunkParts(key: Uint8Array, index: number, plaintext: Uint8Array, last: boolean): Uint8Array[] {
  if (last ? plaintext.length > CHUNK_SIZE : plaintext.length !== CHUNK_SIZE) {
    throw new RangeError(
      `chunk ${index} holds ${plaintext.length} bytes; a chunk before the last holds exactly 64 KiB`,
    );
  }
  if (last && plaintext.length === 0 && index > 0) {
    throw new RangeError(`the last chunk (${index}) is empty; only an empty file's one chunk may be`);
  }
  return cipher.seal(key, chunkNonce(index, last), plaintext);
}

/** Chunk `index` decrypted; throws AgeError `payload` when it does not authenticate or breaks the layout. */
export function decryptChunk(key: Uint8Array, index: number, ciphertext: Uint8Array, last: boolean): Uint8Array {
  const plaintext = openChunk(key, index, ciphertext, last);
  if (plaintext === undefined) {
    throw new AgeError('payload', `chunk ${index} does not authenticate: the payload was altered or cut`);
  }
  return plaintext;
}

function openChunk(key: Uint8Array, index: number, ciphertext: Uint8Array, last: boolean): Uint8Array | undefined {
  if (ciphertext.length < TAG_SIZE) {
    throw new AgeError('payload', `chunk ${index} is ${ciphertext.length} bytes, shorter than its 16-byte tag`);
  }
  if (last ? ciphertext.length > ENCRYPTED_CHUNK_SIZE : ciphertext.length !== ENCRYPTED_CHUNK_SIZE) {
    throw new AgeError('payload', `chunk ${index} is ${ciphertext.length} bytes; a chunk before the last is 65,552`);
  }
  if (last && ciphertext.length === TAG_SIZE && index > 0) {
    throw new AgeError('payload', `the last chunk (${index}) is empty; only an empty file's one chunk may be`);
  }
  return cipher.open(key, chunkNonce(index, last), ciphertext);
}

export type StreamOptions = {
  /** The index of the stream's first chunk: 0 for a whole payload, k to resume at chunk k. */
  fromChunk?: number;
};

/**
 * Plaintext in, encrypted chunks out (the payload after its nonce), 64 KiB at a time. With
 * `fromChunk` k, the plaintext given starts at byte k × 65,536 of the file, and the output is the
 * payload from its offset `chunkOffset(k)` on.
 */
export function encryptStream(key: Uint8Array, options: StreamOptions = {}): TransformStream<Uint8Array, Uint8Array> {
  let index = options.fromChunk ?? 0;
  chunkNonce(index, false);
  const buffer = new Uint8Array(CHUNK_SIZE);
  let used = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let rest = chunk;
      while (rest.length > 0) {
        // A full chunk is encrypted once more plaintext arrives: only then is it known not to be the last.
        if (used === CHUNK_SIZE) {
          for (const part of encryptChunkParts(key, index++, buffer, false)) controller.enqueue(part);
          used = 0;
        }
        const taken = rest.subarray(0, CHUNK_SIZE - used);
        buffer.set(taken, used);
        used += taken.length;
        rest = rest.subarray(taken.length);
      }
    },
    flush(controller) {
      for (const part of encryptChunkParts(key, index, buffer.subarray(0, used), true)) controller.enqueue(part);
    },
  });
}

/**
 * Encrypted chunks in (the payload after its nonce, or from `chunkOffset(fromChunk)`), plaintext
 * out. Every chunk's plaintext is given as soon as it authenticates, and never one that does not;
 * the stream then fails with AgeError `payload` on any altered byte, a payload cut anywhere
 * (including at a chunk boundary: no final chunk), bytes after the final chunk, or an empty final
 * chunk after others. A pair for `pipeThrough`, whose readable side pulls one chunk per read.
 */
export function decryptStream(
  key: Uint8Array,
  options: StreamOptions = {},
): { writable: WritableStream<Uint8Array>; readable: ReadableStream<Uint8Array> } {
  const pass = new TransformStream<Uint8Array, Uint8Array>();
  return { writable: pass.writable, readable: decryptReader(new ExactReader(pass.readable), key, options) };
}

/** The plaintext of the chunks `input` holds; see decryptStream. */
export function decryptReader(
  input: ExactReader,
  key: Uint8Array,
  options: StreamOptions = {},
): ReadableStream<Uint8Array> {
  let index = options.fromChunk ?? 0;
  chunkNonce(index, false);
  let finished = false;
  // A chunk that spans the stream's pieces is gathered here, the same array each time: it is
  // opened into a new one before the next is read (a new array per chunk would be garbage that
  // Node, for one, collects only after tens of MiB of it).
  let gathered: Uint8Array | undefined;
  const next = async (): Promise<Uint8Array | undefined> => {
    if (finished) {
      if (!(await input.atEnd())) throw new AgeError('payload', `bytes after the final chunk (${index})`);
      return undefined;
    }
    gathered ??= new Uint8Array(ENCRYPTED_CHUNK_SIZE);
    const ciphertext = await input.read(ENCRYPTED_CHUNK_SIZE, gathered);
    if (ciphertext.length === 0) {
      const where = index === 0 ? 'has no chunk after its nonce' : `ends after chunk ${index - 1}, not a final one`;
      throw new AgeError('payload', `the payload ${where}: cut short`);
    }
    // A full chunk is the last one only if it does not open as a middle one (as age itself reads).
    const middle = ciphertext.length === ENCRYPTED_CHUNK_SIZE ? openChunk(key, index, ciphertext, false) : undefined;
    if (middle !== undefined) {
      index++;
      return middle;
    }
    const plaintext = decryptChunk(key, index, ciphertext, true);
    finished = true;
    return plaintext;
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const plaintext = await next();
          if (plaintext === undefined) controller.close();
          else controller.enqueue(plaintext);
        } catch (error) {
          await input.cancel(error).catch(() => {});
          throw error;
        }
      },
      cancel: (reason) => input.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
