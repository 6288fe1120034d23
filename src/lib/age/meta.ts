// edgeshare's `meta`: what the server must not see of an encrypted file (its real name, type, size
// and SHA-256), sealed under a key derived from the age file key, so that whoever opens the file
// (any header: the owner's, a link's) reads it and no one else does (docs/e2e.md, "Format"):
//
//   key  = HKDF-SHA-256(ikm = file key, salt = empty, info = "edgeshare/v1/meta")
//   meta = base64url(nonce (12 random bytes) ‖ ChaCha20-Poly1305(key, nonce, UTF-8 JSON {name, type, size, sha256}))
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64urlnopad } from '@scure/base';
import { concat } from '../bytes.ts';
import { AgeError } from './errors.ts';
import { META_MAX_LENGTH } from './length.ts';

/** The longest `meta` the API stores, in characters (length.ts: the Worker checks it too). */
export { META_MAX_LENGTH };

const META_LABEL = new TextEncoder().encode('edgeshare/v1/meta');
const NONCE_SIZE = 12;
const TAG_SIZE = 16;

/** The plaintext's own name, media type, size in bytes and SHA-256 (lowercase hex). */
export interface FileMeta {
  name: string;
  type: string;
  size: number;
  sha256: string;
}

const metaKey = (fileKey: Uint8Array): Uint8Array => hkdf(sha256, fileKey, new Uint8Array(0), META_LABEL, 32);

/** The `meta` string for a file: opens only with its file key. Throws RangeError past 4 KiB (a very long name). */
export function sealMeta(fileKey: Uint8Array, meta: FileMeta): string {
  const problem = metaProblem(meta);
  if (problem) throw new RangeError(problem);
  const { name, type, size, sha256: digest } = meta;
  const json = new TextEncoder().encode(JSON.stringify({ name, type, size, sha256: digest }));
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_SIZE));
  const sealed = base64urlnopad.encode(concat([nonce, chacha20poly1305(metaKey(fileKey), nonce).encrypt(json)]));
  if (sealed.length > META_MAX_LENGTH) {
    throw new RangeError(`meta of ${sealed.length} characters; at most ${META_MAX_LENGTH} (a shorter name fits)`);
  }
  return sealed;
}

/** The file's meta; throws AgeError `meta` when it does not open with this file key or is malformed. */
export function openMeta(fileKey: Uint8Array, sealed: string): FileMeta {
  let bytes: Uint8Array;
  try {
    if (sealed.length > META_MAX_LENGTH) throw new Error('too long');
    bytes = base64urlnopad.decode(sealed);
  } catch {
    throw new AgeError('meta', `meta is not unpadded base64url of at most ${META_MAX_LENGTH} characters`);
  }
  if (bytes.length < NONCE_SIZE + TAG_SIZE) throw new AgeError('meta', 'meta is shorter than a nonce and a tag');
  let json: Uint8Array;
  try {
    json = chacha20poly1305(metaKey(fileKey), bytes.subarray(0, NONCE_SIZE)).decrypt(bytes.subarray(NONCE_SIZE));
  } catch {
    throw new AgeError('meta', 'meta does not open with this file key (another file’s, or altered)');
  }
  let meta: unknown;
  try {
    meta = JSON.parse(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(json));
  } catch {
    throw new AgeError('meta', 'meta opens, but is not UTF-8 JSON');
  }
  const problem = metaProblem(meta);
  if (problem) throw new AgeError('meta', `meta opens, but ${problem}`);
  const { name, type, size, sha256: digest } = meta as FileMeta;
  return { name, type, size, sha256: digest };
}

function metaProblem(meta: unknown): string | undefined {
  if (typeof meta !== 'object' || meta === null) return 'meta is a JSON object';
  const { name, type, size, sha256: digest } = meta as Record<string, unknown>;
  if (typeof name !== 'string' || typeof type !== 'string') return 'name and type are strings';
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return 'size is a whole number ≥ 0';
  if (typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest)) return 'sha256 is 64 lowercase hex digits';
  return undefined;
}
