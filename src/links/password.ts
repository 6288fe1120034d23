// Link passwords: PBKDF2-SHA-256 with a random salt, compared in constant time. Only the hash,
// its salt and its iteration count are stored; the password itself is never kept or logged.

/**
 * Cloudflare's runtime refuses PBKDF2 above 100,000 iterations (workerd's checkPbkdfLimits),
 * whatever local workerd accepts: the most the deployed Worker can do. The count is stored
 * with each hash, so raising it later leaves older hashes verifiable.
 */
export const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;

export type PasswordHash = { hash: string; salt: string; iterations: number };

const toBase64Url = (bytes: Uint8Array) => {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
};

export const fromBase64Url = (text: string) =>
  Uint8Array.from(atob(text.replaceAll('-', '+').replaceAll('_', '/')), (char) => char.charCodeAt(0));

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

export async function verifyPassword(password: string, stored: PasswordHash): Promise<boolean> {
  const expected = fromBase64Url(stored.hash);
  const actual = await derive(password, fromBase64Url(stored.salt), stored.iterations);
  return actual.byteLength === expected.byteLength && crypto.subtle.timingSafeEqual(actual, expected);
}

export { toBase64Url };
