// A streaming SHA-256 for one request, with the Workers runtime's native hash (apart from
// digest.ts, which the typed client loads outside Workers).
import { toHex } from './encoding';

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
