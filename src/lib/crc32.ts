// CRC-32 (the ZIP and gzip one: reflected polynomial 0xEDB88320). Bytes go through the runtime's
// native zlib (node:zlib: Node.js compatibility is on by default from compatibility date
// 2026-08-04, and wrangler.toml's is later): 30 to 50 times a JavaScript table's speed in
// workerd (docs/zip.md). Its state is the 32-bit value itself, so an upload carries it between
// requests as one number, and two parts' CRCs join without reading either again (crc32Combine).
// The combination is ours (issue 38): node:zlib exposes crc32, not zlib's crc32_combine, and the npm
// packages with one are a native Node addon (crc-utils) or an unlicensed Emscripten build.
import { crc32 as zlibCrc32 } from 'node:zlib';

/** The CRC-32 of `bytes`, continued from `previous` (the CRC-32 of everything before them; 0 to start). */
export function crc32(bytes: Uint8Array, previous = 0): number {
  return zlibCrc32(bytes, previous >>> 0) >>> 0;
}

const POLY = 0xedb88320;

/**
 * a × b modulo the CRC polynomial, both in the reflected bit order CRCs use (x⁰ is the top bit).
 * Polynomial arithmetic over GF(2), as zlib's multmodp: the matrix-squaring crc32_combine of
 * older zlib computes the same product, one 32×32 bit matrix at a time.
 */
function multModP(a: number, b: number): number {
  let product = 0;
  let shifted = b;
  for (let bit = 0x80000000; bit !== 0; bit >>>= 1) {
    if ((a & bit) !== 0) {
      product ^= shifted;
      if ((a & (bit - 1)) === 0) break;
    }
    shifted = shifted & 1 ? (shifted >>> 1) ^ POLY : shifted >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) modulo the polynomial for k = 0…31 (zlib's x2n_table); the squares repeat from there. */
const X2N: number[] = [0x40000000];
for (let k = 1; k < 32; k++) X2N.push(multModP(X2N[k - 1] as number, X2N[k - 1] as number));

/** x^(n × 2^k) modulo the polynomial. Division instead of shifts: n may pass 2^32. */
function x2nModP(n: number, k: number): number {
  let power = 0x80000000;
  for (let rest = n, at = k; rest > 0; rest = Math.floor(rest / 2), at++) {
    if (rest % 2 === 1) power = multModP(X2N[at % 32] as number, power);
  }
  return power;
}

/**
 * The CRC-32 of A followed by B, from crc32(A), crc32(B) and B's length alone (zlib's
 * crc32_combine): a concatenated upload gets its CRC without reading its parts again.
 */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (!Number.isSafeInteger(lengthB) || lengthB < 0)
    throw new RangeError(`lengthB must be a byte count, not ${lengthB}`);
  // Appending n bytes multiplies A's CRC by x^(8n); B's CRC already accounts for its own bytes.
  return (multModP(x2nModP(lengthB, 3), crcA >>> 0) ^ crcB) >>> 0;
}
