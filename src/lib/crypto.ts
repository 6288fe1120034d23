// Web Crypto helpers: the Worker and Node tools (the key CLI) load them alike, so every import
// names its .ts file.
import { toBase64Url, toHex } from './encoding.ts';

export function randomBase64Url(bytes: number): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return toHex(new Uint8Array(digest));
}
