// edgeshare's age module (C2SP age v1, https://age-encryption.org/v1): end-to-end encryption for
// every side that holds keys (the web app, its Web Worker and Service Worker, the typed client,
// the CLI). Built on age-encryption where it offers what we need (identities, opening a header,
// armor) and on its own dependencies (@noble/*, @scure/base) for what it does not: a header for a
// file key that already exists, the payload's chunks at any offset, edgeshare's `meta`.
// docs/e2e.md describes the format.
//
// THE WORKER (src/ outside web/ and client/) NEVER IMPORTS THIS FILE. It may import only the
// keyless parts: errors.ts, format.ts (checkHeader), length.ts (isValidPayloadLength,
// plaintextLength), io.ts (splitHeader). recipients.ts, stream.ts, meta.ts and identity.ts work
// with keys and stay out of it; `npm run check` (.dependency-cruiser.cjs) fails otherwise.
import { concat } from '../bytes.ts';
import { AgeError } from './errors.ts';
import { dearmor, enarmor, identitiesFromFile, identityFile } from './identity.ts';
import { prepend, readAll, skip, splitHeader, streamOf } from './io.ts';
import { NONCE_SIZE, payloadLength, resumePoint } from './length.ts';
import { makeHeader, newFileKey, recoverFileKey, SCRYPT_LOG_N, type To, type Unlock } from './recipients.ts';
import { decryptReader, encryptStream, payloadKey } from './stream.ts';

export { AgeError, type AgeFailure, type HeaderProblem } from './errors.ts';
export {
  checkHeader,
  encodeHeader,
  HEADER_MAX_BYTES,
  type HeaderCheck,
  type ParsedHeader,
  type Stanza,
  usesPassphrase,
} from './format.ts';
export {
  dearmor,
  enarmor,
  generateIdentity,
  identitiesFromFile,
  identityFile,
  identityToRecipient,
  isIdentity,
  isRecipient,
} from './identity.ts';
export { ExactReader, readAll, splitHeader, streamOf } from './io.ts';
export {
  CHUNK_SIZE,
  chunkCount,
  chunkOffset,
  ENCRYPTED_CHUNK_SIZE,
  isValidPayloadLength,
  NONCE_SIZE,
  payloadLength,
  plaintextLength,
  resumePoint,
  TAG_SIZE,
} from './length.ts';
export { type FileMeta, META_MAX_LENGTH, openMeta, sealMeta } from './meta.ts';
export {
  FILE_KEY_SIZE,
  headerMac,
  makeHeader,
  NOBLE_SCRYPT,
  newFileKey,
  parseRecipient,
  recoverFileKey,
  SCRYPT_LOG_N,
  SCRYPT_MAX_LOG_N,
  SCRYPT_MIN_LOG_N,
  SCRYPT_OPEN_MAX_LOG_N,
  type Scrypt,
  scryptStanza,
  type To,
  type Unlock,
  useScrypt,
  x25519Stanza,
} from './recipients.ts';
export {
  type ChunkCipher,
  decryptChunk,
  decryptReader,
  decryptStream,
  encryptChunk,
  encryptChunkParts,
  encryptStream,
  NOBLE_CIPHER,
  payloadKey,
  useChunkCipher,
} from './stream.ts';

/** A new encrypted file: its header, its payload (nonce first) as it is encrypted, and its keys. */
export type EncryptedFile = {
  header: Uint8Array;
  /** The payload, `payloadLength(size)` bytes for `size` plaintext bytes, encrypted as it is read. */
  payload: ReadableStream<Uint8Array>;
  /** Keep it to make links' headers and the `meta`; never send it. */
  fileKey: Uint8Array;
  /** The payload's first 16 bytes; with the file key, what a resumed upload needs (resumePayload). */
  nonce: Uint8Array;
};

/** Encrypts a file to recipients or a passphrase, streaming: nothing is read until `payload` is. */
export async function encryptFile(plaintext: ReadableStream<Uint8Array>, to: To): Promise<EncryptedFile> {
  const fileKey = newFileKey();
  const header = await makeHeader(fileKey, to);
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_SIZE));
  const payload = prepend(nonce, plaintext.pipeThrough(encryptStream(payloadKey(fileKey, nonce))));
  return { header, payload, fileKey, nonce };
}

/**
 * One more header for an existing file (a share link's): one X25519 stanza for `recipient`, or
 * one scrypt stanza for `passphrase`, wrapping the same file key, so it opens the same payload.
 */
export function addRecipientHeader(
  fileKey: Uint8Array,
  to: { recipient: string } | { passphrase: string; logN?: number },
): Promise<Uint8Array> {
  return makeHeader(fileKey, 'recipient' in to ? { recipients: [to.recipient] } : to);
}

/**
 * The payload of a file of `size` plaintext bytes from byte `payloadOffset` on (an upload resumed
 * where the server's copy ends). `plaintextFrom(offset)` gives the file's plaintext from `offset`
 * to its end; the bytes equal the same slice of the whole payload.
 */
export function resumePayload(
  file: { fileKey: Uint8Array; nonce: Uint8Array },
  size: number,
  payloadOffset: number,
  plaintextFrom: (offset: number) => ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const total = payloadLength(size);
  if (payloadOffset > total) throw new RangeError(`offset ${payloadOffset} is past the payload's ${total} bytes`);
  if (payloadOffset === total) return streamOf(new Uint8Array(0));
  const point = resumePoint(payloadOffset);
  const key = payloadKey(file.fileKey, file.nonce);
  const chunks = plaintextFrom(point.plaintextOffset).pipeThrough(encryptStream(key, { fromChunk: point.chunkIndex }));
  return prepend(file.nonce.subarray(point.nonceStored), skip(point.skip, chunks));
}

/** An opened file: its plaintext (checked as it is read: it fails rather than give a byte that is not), and keys. */
export type DecryptedFile = {
  plaintext: ReadableStream<Uint8Array>;
  /** The file key: for `openMeta`, and for links' headers (addRecipientHeader). */
  fileKey: Uint8Array;
  header: Uint8Array;
};

/**
 * Opens an age file (header ‖ payload, binary) with an identity or a passphrase. The header is
 * read and checked before this resolves (AgeError `header`, `stanza`, `no_match`, `hmac`); the
 * plaintext stream then fails with AgeError `payload` on any altered, cut or extended payload.
 */
export async function decrypt(file: ReadableStream<Uint8Array>, unlock: Unlock): Promise<DecryptedFile> {
  const { header, reader } = await splitHeader(file);
  try {
    const fileKey = await recoverFileKey(header, unlock);
    const nonce = await reader.read(NONCE_SIZE);
    if (nonce.length < NONCE_SIZE) {
      throw new AgeError('header', 'the file ends before its payload’s 16-byte nonce: cut short');
    }
    return { plaintext: decryptReader(reader, payloadKey(fileKey, nonce)), fileKey, header };
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  }
}

/**
 * The passphrase backup of an identity that the API keeps: an armored age file, encrypted with
 * scrypt, holding the identity file (`age -d backup.age > key.txt` restores it with age too).
 */
export async function sealIdentityBackup(identity: string, passphrase: string, logN = SCRYPT_LOG_N): Promise<string> {
  const text = new TextEncoder().encode(await identityFile(identity));
  const { header, payload } = await encryptFile(streamOf(text), { passphrase, logN });
  return enarmor(concat([header, await readAll(payload)]));
}

/** The identity in a passphrase backup (its first, if it holds several). Throws AgeError as `decrypt`. */
export async function openIdentityBackup(backup: string, passphrase: string): Promise<string> {
  const { plaintext } = await decrypt(streamOf(dearmor(backup)), { passphrase });
  const [identity] = identitiesFromFile(new TextDecoder().decode(await readAll(plaintext)));
  if (identity === undefined) throw new TypeError('the backup holds no identity');
  return identity;
}
