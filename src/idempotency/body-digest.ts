// What makes two upload bodies "the same" for Idempotency-Key: a SHA-256 of their bytes, read as
// they arrive and never stored. A multipart body's boundary is chosen at random by each client
// send (curl, browsers), so its occurrences are left out of the hash: two sends of the same
// form with the same files are the same request.

import { concat } from '../lib/bytes';
import { toHex } from '../lib/encoding';
import { BytePattern, multipartBoundary } from '../lib/multipart';

/** A SHA-256 over a body's bytes less every occurrence of `skip` (a multipart boundary). */
class BodyHasher {
  readonly #digest = new crypto.DigestStream('SHA-256');
  readonly #writer = this.#digest.getWriter();
  readonly #skip: BytePattern | undefined;
  // The tail of what was seen that may be the start of `skip` cut by a chunk's end.
  #carry: Uint8Array = new Uint8Array(0);

  constructor(skip: string | null) {
    this.#skip = skip ? new BytePattern(new TextEncoder().encode(skip)) : undefined;
  }

  async update(chunk: Uint8Array): Promise<void> {
    const skip = this.#skip;
    if (!skip) return this.#writer.write(chunk);
    const bytes = this.#carry.length > 0 ? concat([this.#carry, chunk]) : chunk;
    let from = 0;
    for (let at = skip.indexOf(bytes, 0); at >= 0; at = skip.indexOf(bytes, from)) {
      if (at > from) await this.#writer.write(bytes.slice(from, at));
      from = at + skip.length;
    }
    const keep = Math.max(from, bytes.length - (skip.length - 1));
    if (keep > from) await this.#writer.write(bytes.slice(from, keep));
    this.#carry = bytes.slice(keep);
  }

  async finish(): Promise<string> {
    if (this.#carry.length > 0) await this.#writer.write(this.#carry);
    await this.#writer.close();
    return toHex(new Uint8Array(await this.#digest.digest));
  }

  abort(): void {
    // Nobody awaits the digest of an abandoned hash: it must not go unhandled.
    this.#digest.digest.catch(() => undefined);
    this.#writer.abort().catch(() => undefined);
  }
}

const hasherFor = (request: Request) =>
  new BodyHasher(multipartBoundary(request.headers.get('content-type') ?? undefined));

/** Reads a body to its end and hashes it (a retry, to compare with the first request's). */
export async function digestOfBody(request: Request): Promise<string> {
  const hasher = hasherFor(request);
  if (!request.body) return hasher.finish();
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return await hasher.finish();
      await hasher.update(value);
    }
  } catch (error) {
    hasher.abort();
    await reader.cancel().catch(() => undefined);
    throw error;
  }
}

/** The longest tail of a body read (and thrown away) after its answer, to finish its digest. */
const MAX_DRAIN_BYTES = 1024 * 1024;
const ignore = () => undefined;

/**
 * A request whose body is hashed while its handler streams it. The handler reads `request` (its
 * body keeps the original's length, so an R2 put of known length still works); `finish()` then
 * gives the digest of the whole body, or undefined when it was not read to its end.
 */
export class HashedBody {
  readonly request: Request;
  readonly #hasher: BodyHasher;
  readonly #source: ReadableStreamDefaultReader<Uint8Array>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #forwarded: Promise<void>;
  #ended = false;

  constructor(original: Request) {
    this.#hasher = hasherFor(original);
    const length = Number(original.headers.get('content-length') ?? Number.NaN);
    const { readable, writable } = Number.isSafeInteger(length)
      ? new FixedLengthStream(length)
      : new IdentityTransformStream();
    this.#writer = writable.getWriter();
    this.#source = (original.body as ReadableStream<Uint8Array>).getReader();
    this.request = new Request(original, { body: readable });
    this.#forwarded = this.#forward();
  }

  /** Each chunk into the digest, then to the handler; stops when the handler stops taking them. */
  async #forward(): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await this.#source.read();
        if (done) {
          this.#ended = true;
          this.#writer.close().catch(ignore);
          return;
        }
        await this.#hasher.update(value);
        await this.#writer.write(value);
      }
    } catch {
      // The handler cancelled its body, or finish() ended the forwarding, or the client left.
    }
  }

  /**
   * The digest, once the handler is done with the body. `drain`: read what it left unread (a
   * multipart epilogue), up to MAX_DRAIN_BYTES, into the digest only; otherwise a body not read
   * to its end has no digest.
   */
  async finish(drain: boolean): Promise<string | undefined> {
    if (!this.#ended) {
      // A write the handler will never take is given up, so the forwarding ends.
      this.#writer.abort().catch(ignore);
      await this.#forwarded;
    }
    if (!this.#ended && !(drain && (await this.#drain()))) {
      this.cancel();
      return undefined;
    }
    return this.#hasher.finish();
  }

  async #drain(): Promise<boolean> {
    let left = MAX_DRAIN_BYTES;
    try {
      for (;;) {
        const { done, value } = await this.#source.read();
        if (done) {
          this.#ended = true;
          return true;
        }
        left -= value.byteLength;
        if (left < 0) return false;
        await this.#hasher.update(value);
      }
    } catch {
      return false;
    }
  }

  /** The body will not be read (or not hashed) any further. */
  cancel(): void {
    this.#hasher.abort();
    this.#source.cancel().catch(ignore);
    this.#writer.abort().catch(ignore);
  }
}
