// A single-request upload's two checksums in one pass over its bytes: every write goes to the
// SHA-256 (the runtime's DigestStream) and to the CRC-32 (node:zlib's native crc32), so no byte
// is read twice and the loops that feed them make no extra write (bench: crc-*, digest-*).
import { crc32 } from './crc32';
import { StreamingSha256 } from './streaming-sha256';

/** A file's checksums: its SHA-256 (lowercase hex) and its CRC-32 (unsigned). */
export type Checksums = { sha256: string; crc32: number };

export class StreamingChecksums {
  readonly #sha256 = new StreamingSha256();
  #crc32 = 0;

  /**
   * Takes the next bytes. The CRC-32 is done when this returns (it is synchronous); the SHA-256
   * is done with them when the promise resolves, so a reused buffer may be refilled only then.
   */
  update(bytes: Uint8Array): Promise<void> {
    this.#crc32 = crc32(bytes, this.#crc32);
    return this.#sha256.update(bytes);
  }

  /** The checksums of everything written. */
  async finish(): Promise<Checksums> {
    return { sha256: await this.#sha256.hex(), crc32: this.#crc32 };
  }

  /** Stops hashing (the upload failed). */
  abort(): void {
    this.#sha256.abort();
  }
}
