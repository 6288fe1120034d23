// End-to-end encryption for the typed client (docs/e2e.md): an upload's age file made while it is
// read (any slice of it, so tus resumes at any offset), links' headers and keys, and downloads
// decrypted while they stream. Every key stays here: the server gets headers, payloads and `meta`.
// Built on src/lib/age/, the one age module; no cipher of its own.
import {
  addRecipientHeader,
  CHUNK_SIZE,
  chunkCount,
  chunkOffset,
  type DecryptedFile,
  decrypt,
  ENCRYPTED_CHUNK_SIZE,
  encryptChunkParts,
  encryptStream,
  type FileMeta,
  generateIdentity,
  identityToRecipient,
  makeHeader,
  NONCE_SIZE,
  newFileKey,
  openMeta,
  payloadKey,
  payloadLength,
  readAll,
  recoverFileKey,
  type To,
  type Unlock,
} from '../lib/age/index.ts';
import { concat } from '../lib/bytes.ts';
import { toHex } from '../lib/encoding.ts';
import { newSha256 } from './hash.ts';

/**
 * What makes an upload's age file again, byte for byte: its header, the payload's nonce and the
 * file key. The header and the nonce are no secret (the server gets both); the file key is
 * recovered from the header with the owner's identity, so a resumed upload needs only those two.
 */
export type EncryptionState = { header: Uint8Array; nonce: Uint8Array; fileKey: Uint8Array };

/** A new file key, its header for `to` (the account's recipient, usually) and a payload nonce. */
export async function newEncryption(to: To): Promise<EncryptionState> {
  const fileKey = newFileKey();
  return {
    fileKey,
    header: await makeHeader(fileKey, to),
    nonce: crypto.getRandomValues(new Uint8Array(NONCE_SIZE)),
  };
}

/** The state of an upload begun earlier, its file key recovered from its header with the owner's identity. */
export async function resumedEncryption(
  saved: { header: Uint8Array; nonce: Uint8Array },
  unlock: Unlock,
): Promise<EncryptionState> {
  return { ...saved, fileKey: await recoverFileKey(saved.header, unlock) };
}

/** The 64 KiB chunks of plaintext read from the Blob at once by EncryptedBlob.sliceStream (1 MiB). */
const READ_CHUNKS = 16;

/**
 * Reads the plaintext's bytes from `position` into `into` and says how many it read (0 at the end):
 * Node's `FileHandle.read`. Given one, EncryptedBlob reads into one buffer again and again, where
 * `Blob.slice().arrayBuffer()` makes a new one per read: garbage that Node collects only after tens
 * of MiB of it, so the process's peak memory grows by that much.
 */
export type ReadAt = (into: Uint8Array, position: number) => Promise<number>;

/**
 * A plaintext Blob (a File, or `fs.openAsBlob` in Node: read from disk, never whole) seen as its
 * age file, `header ‖ nonce ‖ chunks`: `slice` and `sliceStream` make any byte range alone (each 64 KiB chunk is
 * encrypted at its own index), `stream` makes it all in order. Both equal the same bytes. With
 * `readAt` (the same bytes as the Blob), `sliceStream` reads the plaintext through it.
 */
export class EncryptedBlob {
  readonly plaintext: Blob;
  readonly state: EncryptionState;
  readonly size: number;
  readonly #key: Uint8Array;
  readonly #readAt: ReadAt | undefined;

  constructor(plaintext: Blob, state: EncryptionState, readAt?: ReadAt) {
    this.plaintext = plaintext;
    this.state = state;
    this.size = state.header.length + payloadLength(plaintext.size);
    this.#key = payloadKey(state.fileKey, state.nonce);
    this.#readAt = readAt;
  }

  /**
   * Plaintext bytes `from` to `to` (at most READ_CHUNKS chunks): through `readAt` into `scratch`
   * (overwritten by the next read; the chunks encrypted from it are new arrays), else a Blob slice.
   */
  async #plaintext(from: number, to: number, scratch: Uint8Array | undefined): Promise<Uint8Array> {
    if (!this.#readAt || !scratch) return new Uint8Array(await this.plaintext.slice(from, to).arrayBuffer());
    const into = scratch.subarray(0, to - from);
    for (let have = 0; have < into.length; ) {
      const read = await this.#readAt(into.subarray(have), from + have);
      if (read <= 0) throw new Error(`the file ended at byte ${from + have} of ${this.plaintext.size}: it changed`);
      have += read;
    }
    return into;
  }

  /** Bytes `start` (inclusive) to `end` (exclusive) of the age file, in one array (see sliceStream). */
  async slice(start: number, end: number): Promise<Uint8Array> {
    return readAll(this.sliceStream(start, end));
  }

  /**
   * Bytes `start` (inclusive) to `end` (exclusive) of the age file as a stream, made as it is read:
   * only the chunks the range touches are read and encrypted, each at its own index, up to
   * READ_CHUNKS of them held at a time, so a 50 MiB PATCH body never sits in memory. A chunk is
   * given in the pieces its cipher made (see encryptChunkParts), not joined.
   */
  sliceStream(start: number, end: number): ReadableStream<Uint8Array> {
    const to = Math.min(end, this.size);
    const base = this.state.header.length;
    const front = concat([this.state.header, this.state.nonce]);
    const count = chunkCount(this.plaintext.size);
    let index = Math.max(0, Math.floor((start - base - NONCE_SIZE) / ENCRYPTED_CHUNK_SIZE));
    const last = Math.min(count - 1, Math.floor((to - 1 - base - NONCE_SIZE) / ENCRYPTED_CHUNK_SIZE));
    let frontGiven = start >= front.length;
    /** The part of `bytes` (at `at` in the age file) inside the range. */
    const within = (bytes: Uint8Array, at: number) =>
      bytes.subarray(Math.max(0, start - at), Math.max(0, Math.min(bytes.length, to - at)));
    // Made at the first read, as large as the range needs (READ_CHUNKS chunks at most).
    let scratch: Uint8Array | undefined;
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          if (!frontGiven) {
            frontGiven = true;
            const part = within(front, 0);
            if (part.length > 0) return controller.enqueue(part);
          }
          if (index > last || start >= to) return controller.close();
          // Several chunks' plaintext in one read of the Blob, then each encrypted at its index.
          const until = Math.min(last + 1, index + READ_CHUNKS);
          const from = index * CHUNK_SIZE;
          if (this.#readAt) scratch ??= new Uint8Array((until - index) * CHUNK_SIZE);
          const plain = await this.#plaintext(from, Math.min(until * CHUNK_SIZE, this.plaintext.size), scratch);
          for (; index < until; index++) {
            const bytes = plain.subarray(index * CHUNK_SIZE - from, (index + 1) * CHUNK_SIZE - from);
            let at = base + chunkOffset(index);
            for (const sealed of encryptChunkParts(this.#key, index, bytes, index === count - 1)) {
              const part = within(sealed, at);
              if (part.length > 0) controller.enqueue(part);
              at += sealed.length;
            }
          }
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** The whole age file, encrypted as it is read (one chunk held at a time; READ_CHUNKS through `readAt`). */
  stream(): ReadableStream<Uint8Array> {
    if (this.#readAt) return this.sliceStream(0, this.size);
    const front = concat([this.state.header, this.state.nonce]);
    const chunks = this.plaintext.stream().pipeThrough(encryptStream(this.#key));
    return chunks.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        start: (controller) => controller.enqueue(front),
      }),
    );
  }
}

/**
 * Where a tus PATCH of an age file from `start` should end, asked for up to `end`: at the header's
 * end while the header is not all sent. The header goes alone in the first PATCH, so the server
 * sizes its parts by the payload's chunks that follow (src/tus/part-writer.ts) and never rewrites
 * a tail between PATCHes; tus-js-client takes a shorter slice and goes on from the server's offset.
 */
export const patchEnd = (headerLength: number, start: number, end: number): number =>
  start < headerLength ? Math.min(end, headerLength) : end;

/** The SHA-256 (lowercase hex) of a Blob, read as a stream. */
export async function sha256OfBlob(blob: Blob): Promise<string> {
  const hash = newSha256();
  const reader = blob.stream().getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) hash.update(read.value);
  return toHex(hash.digest());
}

/** A name the server may see for an encrypted file: random, `.age` (the real one goes in `meta`). */
export const neutralName = (): string => `${toHex(crypto.getRandomValues(new Uint8Array(8)))}.age`;

/** A link's way in: its header, and the secret key for its URL's fragment (none for a passphrase). */
export type LinkKey = { header: string; secret?: string };

/**
 * A header wrapping these file keys for one new identity (one per link: a collection link's members
 * share it), or for a passphrase (one scrypt stanza each). Headers are ASCII text, as the API takes them.
 */
export async function linkHeaders(
  fileKeys: readonly Uint8Array[],
  to: { passphrase: string; logN?: number } | Record<string, never> = {},
): Promise<{ headers: string[]; secret?: string }> {
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  if ('passphrase' in to && typeof to.passphrase === 'string') {
    const { passphrase, logN } = to;
    const headers = await Promise.all(fileKeys.map((key) => addRecipientHeader(key, { passphrase, logN })));
    return { headers: headers.map(text) };
  }
  const secret = await generateIdentity();
  const recipient = await identityToRecipient(secret);
  const headers = await Promise.all(fileKeys.map((key) => addRecipientHeader(key, { recipient })));
  return { headers: headers.map(text), secret };
}

/** A link's URL with its key in the fragment (`#k=AGE-SECRET-KEY-1…`), which browsers and curl never send. */
export const keyedUrl = (url: string, secret: string | undefined): string => (secret ? `${url}#k=${secret}` : url);

/** A URL's fragment parameter (`k` of `…#k=AGE-SECRET-KEY-1…`, `r` of `…#r=age1…`), and the URL without it. */
export function fragmentParam(url: string, name: 'k' | 'r'): { url: string; value: string | undefined } {
  const at = url.indexOf('#');
  if (at === -1) return { url, value: undefined };
  const value = new URLSearchParams(url.slice(at + 1)).get(name) ?? undefined;
  return { url: url.slice(0, at), value };
}

/** The name a Content-Disposition gives (`filename*=UTF-8''…` first), without a trailing `.age`. */
export function dispositionName(value: string | null): string | undefined {
  if (!value) return undefined;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(value);
  let name: string | undefined;
  if (star?.[1]) {
    try {
      name = decodeURIComponent(star[1].trim());
    } catch {}
  }
  name ??= /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(value)?.[1]?.replace(/\\(.)/g, '$1');
  name ??= /filename\s*=\s*([^;]+)/i.exec(value)?.[1]?.trim();
  if (!name) return undefined;
  const bare = name.replace(/[\\/]/g, '_').replace(/\.age$/i, '');
  return bare === '' || bare === '.' || bare === '..' ? undefined : bare;
}

/** An opened age download: its plaintext (checked as it streams), and what `meta` said when there was one. */
export type Opened = DecryptedFile & { meta?: FileMeta };

/**
 * Opens an age file as it streams: the header is checked first (AgeError `no_match` for a wrong
 * key or passphrase, `hmac` for an altered header); the plaintext then errors on any altered or
 * cut byte. With `meta` (a file's own), its SHA-256 and size are checked too, at the end.
 */
export async function openAgeStream(
  file: ReadableStream<Uint8Array>,
  unlock: Unlock,
  meta?: string | null,
): Promise<Opened> {
  const opened = await decrypt(file, unlock);
  if (!meta) return opened;
  const stated = openMeta(opened.fileKey, meta);
  const hash = newSha256();
  let size = 0;
  const plaintext = opened.plaintext.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        hash.update(chunk);
        size += chunk.length;
        controller.enqueue(chunk);
      },
      flush(controller) {
        const digest = toHex(hash.digest());
        if (digest !== stated.sha256 || size !== stated.size) {
          controller.error(
            new Error(
              `the plaintext is ${size} bytes hashing to ${digest}; its meta says ${stated.size}, ${stated.sha256}`,
            ),
          );
        }
      },
    }),
  );
  return { ...opened, plaintext, meta: stated };
}
