// RFC 9530 digest fields (`Repr-Digest`, `Content-Digest`) for SHA-256. No HTTP framework
// here (callers pass header values) and no Worker API: the typed client reads them too.
import { fromBase64, fromHex, toBase64, toHex } from './encoding.ts';

export const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/** `sha-256=:<base64>:` for a hex digest. */
export const reprDigest = (hex: string) => `sha-256=:${toBase64(fromHex(hex))}:`;

export class DigestFieldError extends Error {
  override name = 'DigestFieldError';
}

/**
 * The SHA-256 (hex) a `Repr-Digest`/`Content-Digest` value states: a structured-field
 * dictionary whose `sha-256` member is a byte sequence (`:base64:`). Other algorithms are
 * ignored; undefined when the field names no sha-256. A malformed field throws.
 */
export function parseDigestField(value: string): string | undefined {
  let found: string | undefined;
  for (const member of value.split(',')) {
    const trimmed = member.trim();
    if (trimmed === '') throw new DigestFieldError('an empty member');
    const eq = trimmed.indexOf('=');
    if (eq <= 0) throw new DigestFieldError('expected algorithm=:base64:');
    const algorithm = trimmed.slice(0, eq).trim().toLowerCase();
    const raw =
      trimmed
        .slice(eq + 1)
        .trim()
        .split(';')[0]
        ?.trim() ?? '';
    if (algorithm !== 'sha-256') continue;
    const match = /^:([A-Za-z0-9+/]*={0,2}):$/.exec(raw);
    if (!match?.[1] || match[1].length % 4 !== 0) throw new DigestFieldError('sha-256 is not :base64:');
    const bytes = fromBase64(match[1]);
    if (bytes?.length !== 32) throw new DigestFieldError('a sha-256 digest is 32 bytes');
    const hex = toHex(bytes);
    if (found !== undefined && found !== hex) throw new DigestFieldError('sha-256 given twice, differently');
    found = hex;
  }
  return found;
}
