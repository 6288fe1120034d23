// Opening an end-to-end encrypted file in a visitor's browser (the share and collection pages):
// the key from the link's fragment (never sent anywhere: a fragment stays in the browser), or a
// passphrase, unwraps the file key from the link's header; the download (`header ‖ payload`) is
// then checked and decrypted as its bytes arrive, one 64 KiB chunk at a time, and its plaintext
// checked against the owner's `meta` (size, SHA-256) before the stream ends. Any altered, cut or
// extended byte makes the stream fail, never end: a saver never finishes a file it could not check.
import { sha256 } from '@noble/hashes/sha2.js';
import { AgeError } from '../lib/age/errors.ts';
import { checkHeader, usesPassphrase } from '../lib/age/format.ts';
import { isIdentity } from '../lib/age/identity.ts';
import { splitHeader } from '../lib/age/io.ts';
import { NONCE_SIZE } from '../lib/age/length.ts';
import { type FileMeta, openMeta } from '../lib/age/meta.ts';
import { recoverFileKey, SCRYPT_OPEN_MAX_LOG_N } from '../lib/age/recipients.ts';
import { decryptReader, payloadKey } from '../lib/age/stream.ts';
import { toHex } from '../lib/encoding.ts';
import { cryptoWorker } from './e2e-protocol.ts';

export { SCRYPT_OPEN_MAX_LOG_N };

/** The key of a keyed link: `#k=AGE-SECRET-KEY-1…` in the fragment; undefined without one (or a broken one). */
export function keyFromFragment(hash = location.hash): string | undefined {
  const key = new URLSearchParams(hash.replace(/^#/, '')).get('k')?.trim();
  return key && isIdentity(key.toUpperCase()) ? key.toUpperCase() : undefined;
}

/** Whether a header (its text) is opened by a passphrase (a single scrypt stanza). */
export function needsPassphrase(header: string): boolean {
  const check = checkHeader(new TextEncoder().encode(header));
  return check.ok && usesPassphrase(check.stanzas);
}

export type Unlock = { identity: string } | { passphrase: string };

/** The file key the header wraps for this key or passphrase (an scrypt work factor above 2^20 is refused). */
export const unlockHeader = (header: string, unlock: Unlock): Promise<Uint8Array> =>
  recoverFileKey(new TextEncoder().encode(header), unlock);

/** The file's real name, type, size and SHA-256, or undefined when it has no `meta` that opens. */
export function metaOf(fileKey: Uint8Array, sealed: string | undefined): FileMeta | undefined {
  if (!sealed) return undefined;
  try {
    return openMeta(fileKey, sealed);
  } catch {
    return undefined;
  }
}

/** What to tell a visitor of a failure, in a sentence. */
export function explain(error: unknown, unlock?: Unlock): string {
  if (error instanceof AgeError) {
    switch (error.kind) {
      case 'no_match':
        return unlock && 'passphrase' in unlock
          ? 'That passphrase does not open this file.'
          : 'The key in this link does not open this file: check that the whole link was copied, up to its end.';
      case 'stanza':
        return /work factor/.test(error.message)
          ? `This passphrase link asks more work than this page does (its scrypt work factor is above 2^${SCRYPT_OPEN_MAX_LOG_N}): open it with edgeshare’s command line or age.`
          : 'This link’s header is damaged for this key.';
      case 'hmac':
        return 'The file’s header was altered: it cannot be trusted.';
      case 'payload':
        return 'The download was cut short or altered, so it was not saved as a complete file. Try again.';
      default:
        return `The file could not be opened: ${error.message}`;
    }
  }
  return error instanceof Error ? error.message : String(error);
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/**
 * The plaintext of the download at `url` (same origin: a grant cookie goes with it), decrypted as
 * it arrives. Resolves once the header is read and is the link's own; the stream then fails with
 * an AgeError `payload` on any altered, cut or extended byte, and with an Error when the plaintext
 * is not the `meta`'s size or SHA-256 (checked before the stream ends).
 */
export async function openDownload(
  url: string,
  header: string,
  fileKey: Uint8Array,
  meta: FileMeta | undefined,
  signal?: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  const response = await fetch(url, { credentials: 'same-origin', cache: 'no-store', signal });
  if (!response.ok || !response.body) {
    throw new Error(`The download answered ${response.status}: reload the page and try again.`);
  }
  const split = await splitHeader(response.body);
  if (!equal(split.header, new TextEncoder().encode(header))) {
    await split.reader.cancel();
    throw new Error('The download does not start with this link’s header: reload the page and try again.');
  }
  const nonce = await split.reader.read(NONCE_SIZE);
  if (nonce.length < NONCE_SIZE) {
    await split.reader.cancel();
    throw new AgeError('payload', 'the download ends before its payload’s nonce');
  }
  const plaintext = decryptReader(split.reader, payloadKey(fileKey, nonce));
  return meta ? plaintext.pipeThrough(checkedAgainst(meta)) : plaintext;
}

/** Passes the plaintext on, failing (never ending) when it is not the size and SHA-256 its `meta` says. */
function checkedAgainst(meta: FileMeta): TransformStream<Uint8Array, Uint8Array> {
  const digest = newDigest();
  let seen = 0;
  const mismatch = () => new Error('The file is not what its owner sent (its size or SHA-256 differ): not saved.');
  return new TransformStream({
    async transform(chunk, controller) {
      seen += chunk.length;
      if (seen > meta.size) throw mismatch();
      await digest.update(chunk);
      controller.enqueue(chunk);
    },
    async flush() {
      if (seen !== meta.size || (await digest.hex()) !== meta.sha256) throw mismatch();
    },
  });
}

/** A running SHA-256 of a plaintext. */
type Digest = { update(chunk: Uint8Array): Promise<void>; hex(): Promise<string> };

/** Bytes handed to the Web Worker per message, and how many messages may wait there unhashed. */
const DIGEST_BATCH = 1024 * 1024;
const DIGEST_AHEAD = 4;

/** Names each download's running digest in the worker. */
let nextStream = 0;

/**
 * A running SHA-256, hashed in the Web Worker while this thread decrypts (the two took turns on
 * one thread: half the time of a decrypting download): the plaintext is copied into 1 MiB
 * batches, each handed over, at most DIGEST_AHEAD unhashed at a time. Here where no worker can be made.
 */
function newDigest(): Digest {
  const to = cryptoWorker();
  if (!to) {
    const here = sha256.create();
    return { update: async (chunk) => void here.update(chunk), hex: async () => toHex(here.digest()) };
  }
  const stream = nextStream++;
  const inFlight: Promise<unknown>[] = [];
  let batch = new Uint8Array(DIGEST_BATCH);
  let filled = 0;
  const send = (end?: true) => {
    const bytes = filled > 0 ? batch.subarray(0, filled) : undefined;
    const reply = to.call(
      { kind: 'digest', stream, ...(bytes ? { bytes } : {}), ...(end ? { end } : {}) },
      bytes ? [bytes.buffer] : [],
    );
    // Awaited later, or never when the download fails first: not an unhandled rejection meanwhile.
    reply.catch(() => undefined);
    batch = new Uint8Array(end ? 0 : DIGEST_BATCH);
    filled = 0;
    return reply;
  };
  return {
    async update(chunk) {
      for (let at = 0; at < chunk.length; ) {
        const count = Math.min(chunk.length - at, DIGEST_BATCH - filled);
        batch.set(chunk.subarray(at, at + count), filled);
        filled += count;
        at += count;
        if (filled === DIGEST_BATCH) {
          inFlight.push(send());
          if (inFlight.length > DIGEST_AHEAD) await inFlight.shift();
        }
      }
    },
    async hex() {
      const digest = send(true);
      await Promise.all(inFlight);
      return (await digest) as string;
    },
  };
}
