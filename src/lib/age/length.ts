// The age payload's layout (C2SP age, "Payload"), as lengths only: a 16-byte nonce, then the
// plaintext in 64 KiB chunks, each followed by its 16-byte ChaCha20-Poly1305 tag; the last chunk
// is shorter or full, and empty only when the whole plaintext is. Keyless: the Worker checks an
// upload's payload length with it; clients size uploads and find where to resume.

/**
 * The longest `meta` (edgeshare's sealed name, type, size and SHA-256: meta.ts) the API stores, in
 * characters: here, keyless, so the Worker checks uploads against the bound its clients seal to.
 */
export const META_MAX_LENGTH = 4096;

export const NONCE_SIZE = 16;
export const CHUNK_SIZE = 64 * 1024;
export const TAG_SIZE = 16;
export const ENCRYPTED_CHUNK_SIZE = CHUNK_SIZE + TAG_SIZE;

const checkLength = (n: number, what: string): void => {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a whole number ≥ 0, not ${n}`);
};

/** How many STREAM chunks carry `plaintextLength` bytes: at least one (an empty file has one empty chunk). */
export function chunkCount(plaintextLength: number): number {
  checkLength(plaintextLength, 'a plaintext length');
  return Math.max(1, Math.ceil(plaintextLength / CHUNK_SIZE));
}

/** The payload's length for `n` plaintext bytes: 16 + n + 16 × max(1, ⌈n / 65,536⌉). */
export function payloadLength(n: number): number {
  return NONCE_SIZE + n + TAG_SIZE * chunkCount(n);
}

/**
 * The plaintext length of a payload of `length` bytes, or undefined when no plaintext encrypts to
 * that length (shorter than a nonce and one tag, or a last chunk of 1 to 16 bytes: a tag with
 * nothing or less in front of it, where only an empty file may have an empty chunk).
 */
export function plaintextLength(length: number): number | undefined {
  checkLength(length, 'a payload length');
  const chunks = length - NONCE_SIZE;
  if (chunks < TAG_SIZE) return undefined;
  if (chunks === TAG_SIZE) return 0;
  const full = Math.floor(chunks / ENCRYPTED_CHUNK_SIZE);
  const last = chunks % ENCRYPTED_CHUNK_SIZE;
  if (last === 0) return full * CHUNK_SIZE;
  if (last <= TAG_SIZE) return undefined;
  return full * CHUNK_SIZE + last - TAG_SIZE;
}

/** Whether a payload of `length` bytes has a valid STREAM layout (the Worker's check of an upload). */
export const isValidPayloadLength = (length: number): boolean =>
  Number.isSafeInteger(length) && length >= 0 && plaintextLength(length) !== undefined;

/** The payload offset at which chunk `index` starts. */
export function chunkOffset(index: number): number {
  checkLength(index, 'a chunk index');
  return NONCE_SIZE + index * ENCRYPTED_CHUNK_SIZE;
}

/**
 * Where to take up encrypting a payload whose first `payloadOffset` bytes are stored (a resumed
 * upload): the chunk holding that offset, the plaintext offset it starts from, and how many bytes
 * of that chunk's ciphertext are already stored. An offset inside the nonce gives chunk 0 and
 * `nonceStored` < 16 (the rest of the nonce goes first).
 */
export function resumePoint(payloadOffset: number): {
  chunkIndex: number;
  plaintextOffset: number;
  skip: number;
  nonceStored: number;
} {
  checkLength(payloadOffset, 'a payload offset');
  if (payloadOffset < NONCE_SIZE) return { chunkIndex: 0, plaintextOffset: 0, skip: 0, nonceStored: payloadOffset };
  const chunkIndex = Math.floor((payloadOffset - NONCE_SIZE) / ENCRYPTED_CHUNK_SIZE);
  return {
    chunkIndex,
    plaintextOffset: chunkIndex * CHUNK_SIZE,
    skip: payloadOffset - chunkOffset(chunkIndex),
    nonceStored: NONCE_SIZE,
  };
}
