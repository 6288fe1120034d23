// RFC 9530 digest fields (`Repr-Digest`, `Content-Digest`) for SHA-256, and a streaming
// SHA-256 for one request. No HTTP framework here: callers pass header values.
import { fromHex, toBase64, toHex } from './sha256';

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
    const bytes = Uint8Array.from(atob(match[1]), (char) => char.charCodeAt(0));
    if (bytes.length !== 32) throw new DigestFieldError('a sha-256 digest is 32 bytes');
    const hex = toHex(bytes);
    if (found !== undefined && found !== hex) throw new DigestFieldError('sha-256 given twice, differently');
    found = hex;
  }
  return found;
}

/**
 * SHA-256 of bytes as they pass, with the runtime's native hash (crypto.DigestStream). Each
 * write is awaited by the caller's loop, so nothing queues up: memory stays at one write. Callers
 * hash in large writes (the ~1 MiB put writes, whole 8 MiB parts): every awaited write costs a turn.
 */
export class StreamingSha256 {
  readonly #stream = new crypto.DigestStream('SHA-256');
  readonly #writer = this.#stream.getWriter();

  update(chunk: Uint8Array): Promise<void> {
    return this.#writer.write(chunk);
  }

  /** The hex digest of everything written. */
  async hex(): Promise<string> {
    await this.#writer.close();
    return toHex(new Uint8Array(await this.#stream.digest));
  }

  /** Stops hashing (the upload failed). */
  abort(): void {
    this.#stream.digest.catch(() => undefined);
    this.#writer.abort().catch(() => undefined);
  }
}
