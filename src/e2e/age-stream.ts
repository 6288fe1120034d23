// An age upload's header as it arrives over several requests (a tus upload's PATCHes, which may
// end anywhere): the bytes so far are kept as text (a header is printable ASCII and LF, and every
// byte kept has passed the grammar's checks), grown chunk by chunk until its `--- <mac>` line,
// then the upload's payload length is checked. What follows is the payload. See src/tus/part-writer.ts.
import { checkHeader, HEADER_MAX_BYTES } from '../lib/age/format';
import { concat } from '../lib/bytes';
import { checkPayloadLength, invalid } from './age-checks';

const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class AgeHeader {
  #text: string;
  #complete: boolean;

  /** `sofar`: the header bytes an earlier request kept (all of the header once complete). */
  constructor(sofar: string) {
    this.#text = sofar;
    this.#complete = sofar.length > 0 && checkHeader(encoder.encode(sofar)).ok;
  }

  /** The header's bytes so far, as text (what the upload's object keeps). */
  get text(): string {
    return this.#text;
  }

  get complete(): boolean {
    return this.#complete;
  }

  /** Bytes of the upload that are header: all of it once complete. */
  get length(): number {
    return this.#text.length;
  }

  /**
   * Takes the header's bytes from the front of `chunk` (the next bytes of an upload of
   * `uploadLength` bytes in all) and returns the rest, the payload's first bytes (a view of
   * `chunk`). 422 E2E_INVALID as soon as the bytes break the grammar, pass 16 KiB, or the
   * header leaves a payload length no age file has.
   */
  take(chunk: Uint8Array, uploadLength: number): Uint8Array {
    if (this.#complete) return chunk;
    const before = encoder.encode(this.#text);
    const front = concat([before, chunk.subarray(0, Math.max(0, HEADER_MAX_BYTES + 1 - before.length))]);
    const check = checkHeader(front);
    if (check.ok) {
      this.#text = decoder.decode(front.subarray(0, check.headerLength));
      this.#complete = true;
      checkPayloadLength(uploadLength - check.headerLength);
      return chunk.subarray(check.headerLength - before.length);
    }
    if (check.reason !== 'no_mac_line') throw invalid('file', check.reason, check.detail);
    this.#text = decoder.decode(front);
    return EMPTY;
  }

  /** The whole header, at the upload's last byte: 422 E2E_INVALID when the bytes ended inside it. */
  finished(): string {
    if (!this.#complete) {
      throw invalid('file', 'no_mac_line', `the file's ${this.#text.length} bytes end before its "--- <mac>" line`);
    }
    return this.#text;
  }
}

/**
 * The header of an upload that is an age file (metadata `encryption age`, never a partial: a final
 * upload splits its own), from what its object kept; undefined for any other upload.
 */
export function ageHeaderOf(upload: {
  meta: { e2e?: unknown };
  concat?: string;
  e2eHeader: string | null;
}): AgeHeader | undefined {
  if (!upload.meta.e2e || upload.concat) return undefined;
  return new AgeHeader(upload.e2eHeader ?? '');
}
