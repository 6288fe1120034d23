// Bytes as text: hex, base64 (RFC 4648 §4), base64url (§5, unpadded) and Latin-1, written once
// for the Worker, the Node tools, the typed client and the browser pages (standard APIs only).

const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Lowercase hex, by a table of the 256 bytes' pairs (a key's hash is made on every request). */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += HEX_BYTES[byte];
  return hex;
}

/** The bytes of a hex string (either case); the caller passes whole pairs. */
export function fromHex(hex: string): Uint8Array {
  return Uint8Array.from({ length: hex.length / 2 }, (_, i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16));
}

// Spreading a whole large array into fromCharCode would overflow the stack; 8 KiB at a time does not.
const CHARS_PER_CALL = 8192;

/** The bytes read as Latin-1: one character (U+0000…U+00FF) per byte, as atob's output is. */
export function latin1Text(bytes: Uint8Array): string {
  let text = '';
  for (let start = 0; start < bytes.length; start += CHARS_PER_CALL) {
    text += String.fromCharCode(...bytes.subarray(start, start + CHARS_PER_CALL));
  }
  return text;
}

/** Padded base64. */
export const toBase64 = (bytes: Uint8Array): string => btoa(latin1Text(bytes));

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * The bytes of base64 (padding optional); undefined for anything else, so text from a client
 * needs no try/catch.
 */
export function fromBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    // A length no base64 has, or padding where none belongs.
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Unpadded base64url: tokens and ids that go into URLs. */
export const toBase64Url = (bytes: Uint8Array): string =>
  toBase64(bytes).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');

/** The bytes of base64url (padding optional); undefined for anything else. */
export const fromBase64Url = (text: string): Uint8Array | undefined =>
  BASE64URL.test(text) ? fromBase64(text.replaceAll('-', '+').replaceAll('_', '/')) : undefined;
