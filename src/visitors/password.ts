// The one password module of everything a visitor unlocks (share links, file requests):
// PBKDF2-SHA-256 with a random 16-byte salt, compared in constant time. Only the hash, its salt
// and its iteration count are kept; the password itself is never stored or logged.
//
// Two stored shapes are in use, and both are read: share links keep three columns (hash, salt,
// iterations); file requests keep one string, `pbkdf2-sha256$<iterations>$<salt>$<hash>`. Both
// hold the same three values in base64url, so hashPassword makes one PasswordHash and each
// feature stores it its own way (passwordText for the string).
import { fromBase64Url, toBase64Url } from '../lib/encoding';
import { log } from '../log';

/**
 * Cloudflare's runtime refuses PBKDF2 above 100,000 iterations (workerd's checkPbkdfLimits),
 * whatever local workerd accepts: the most the deployed Worker can do. The count is stored
 * with each hash, so raising it later leaves older hashes verifiable.
 */
export const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;
const PREFIX = 'pbkdf2-sha256';

/** A stored password: its PBKDF2 hash, salt (both base64url) and iteration count. */
export type PasswordHash = { hash: string; salt: string; iterations: number };
/** Either stored shape: a link's columns, or a request's `pbkdf2-sha256$…` string. */
export type StoredPassword = PasswordHash | string;

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const material = await crypto.subtle.importKey('raw', new TextEncoder().encode(password), 'PBKDF2', false, [
    'deriveBits',
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    material,
    HASH_BITS,
  );
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return { hash: toBase64Url(hash), salt: toBase64Url(salt), iterations: PBKDF2_ITERATIONS };
}

/** The one-string shape file requests store. */
export const passwordText = (stored: PasswordHash) => `${PREFIX}$${stored.iterations}$${stored.salt}$${stored.hash}`;

/** The three values of either stored shape; null when they cannot be read (nothing then matches). */
export function readPassword(stored: StoredPassword): PasswordHash | null {
  if (typeof stored !== 'string') return stored;
  const [prefix, iterations, salt, hash, ...rest] = stored.split('$');
  if (prefix !== PREFIX || !iterations || !salt || !hash || rest.length > 0) return null;
  return { hash, salt, iterations: Number(iterations) };
}

/** Constant-time equality of two byte strings (a different length is simply unequal). */
export const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.byteLength === b.byteLength && crypto.subtle.timingSafeEqual(a, b);

/** Whether `password` is the stored one. A damaged stored value never matches (and never throws). */
export async function verifyPassword(password: string, stored: StoredPassword): Promise<boolean> {
  const read = readPassword(stored);
  if (!read || !Number.isSafeInteger(read.iterations) || read.iterations < 1) return false;
  const salt = fromBase64Url(read.salt);
  const expected = fromBase64Url(read.hash);
  if (!salt || !expected || salt.byteLength === 0 || expected.byteLength === 0) return false;
  try {
    return sameBytes(await derive(password, salt, read.iterations), expected);
  } catch (error) {
    // An iteration count the runtime refuses (above its PBKDF2 limit): a stored value it cannot check.
    log('error', 'stored password cannot be checked', { iterations: read.iterations, error: String(error) });
    return false;
  }
}
