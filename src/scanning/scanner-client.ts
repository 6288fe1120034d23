// The scanner's client: the only code that speaks clamd's protocol. A file's bytes stream to
// clamd's INSTREAM command over one TCP socket (`connect()` from cloudflare:sockets), in chunks
// each prefixed by its length as 4 bytes big-endian, then a zero length; clamd answers one line
// ending in NUL. Nothing is held: each chunk read from R2 goes to the socket before the next is
// read. The protocol: https://docs.clamav.net/manual/Usage/Scanning.html#clamd (INSTREAM).
import { connect } from 'cloudflare:sockets';
import { byteReader } from '../lib/byte-reader';

/** Where clamd listens: SCANNER = clamd://host:port (src/config.ts checks its shape). */
export type ScannerAddress = { hostname: string; port: number };

/** The address in SCANNER, or null when it names none (unset, or a port out of range). */
export function scannerAddress(scanner: string | undefined): ScannerAddress | null {
  const match = scanner === undefined ? null : /^clamd:\/\/([^\s/:]+):(\d{1,5})$/.exec(scanner);
  const port = Number(match?.[2]);
  if (!match?.[1] || !(port >= 1 && port <= 65_535)) return null;
  return { hostname: match[1], port };
}

/**
 * What a scan found. `too_large`: clamd refused or could not finish the file for its own limits
 * (StreamMaxLength, or with AlertExceedsMax a `Heuristics.Limits.Exceeded.*` alert): not clean,
 * not malware. `error`: no answer worth keeping (unreachable, a timeout, clamd's own error); the
 * caller may try again.
 */
export type ScanVerdict =
  | { status: 'clean' }
  | { status: 'infected'; signature: string }
  | { status: 'too_large'; reason: string }
  | { status: 'error'; reason: string };

/** The most bytes one chunk carries (see chunksOf; bench/cases/scan.ts measures it). */
export const MAX_CHUNK_BYTES = 1024 * 1024;

/** How long each step may take before the scan is an error: connecting, each write or read, the verdict. */
export type ScanTimeouts = { connectMs: number; idleMs: number; verdictMs: number };

export const SCAN_TIMEOUTS: ScanTimeouts = {
  connectMs: 10_000,
  // clamd itself gives up on a stream idle for ReadTimeout (120 s by default).
  idleMs: 60_000,
  // clamd scans once the stream ends: at a few hundred MB/s, 100 MiB takes well under a minute.
  verdictMs: 120_000,
};

const INSTREAM = new TextEncoder().encode('zINSTREAM\0');
/** How long an answer is waited for once clamd refused a write. */
const AFTER_REFUSAL_MS = 2000;
/** The longest answer read: `stream: <signature> FOUND` (signature names are well under 200 bytes). */
const MAX_REPLY_BYTES = 1024;

class ScanFailure extends Error {
  override name = 'ScanFailure';
}

/** `promise`, or a ScanFailure naming `what` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ScanFailure(`${what} timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/** clamd's one answer: the bytes up to its NUL (or to the end of the stream), as text. */
async function readReply(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const bytes: number[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const end = value.indexOf(0);
    bytes.push(...(end === -1 ? value : value.subarray(0, end)).subarray(0, MAX_REPLY_BYTES - bytes.length));
    if (end !== -1 || bytes.length >= MAX_REPLY_BYTES) break;
  }
  return new TextDecoder().decode(Uint8Array.from(bytes)).trim();
}

/** What clamd's answer says. The signature is kept as clamd names it (`….UNOFFICIAL` for a custom database). */
export function verdictOf(reply: string): ScanVerdict {
  if (reply === 'stream: OK') return { status: 'clean' };
  const found = /^stream: (.+) FOUND$/.exec(reply);
  if (found?.[1]) {
    // AlertExceedsMax: clamd could not read the whole file within its limits. Not malware.
    if (found[1].startsWith('Heuristics.Limits.Exceeded')) return { status: 'too_large', reason: found[1] };
    return { status: 'infected', signature: found[1] };
  }
  if (/size limit exceeded/i.test(reply)) return { status: 'too_large', reason: reply };
  return { status: 'error', reason: reply === '' ? 'clamd closed the connection without an answer' : reply };
}

const nextTurn = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A chunk as INSTREAM sends it: its length as 4 bytes big-endian, then its bytes. */
type Chunks = { next(): Promise<Uint8Array | null>; cancel(): Promise<void> };

/** `length` bytes at `offset + 4` of `buffer`, with their length written into the 4 bytes before. */
function framed(buffer: ArrayBufferLike, offset: number, length: number): Uint8Array {
  new DataView(buffer, offset, 4).setUint32(0, length);
  return new Uint8Array(buffer, offset, 4 + length);
}

const END = framed(new ArrayBuffer(4), 0, 0);

/**
 * The body as chunks ready to send. A byte stream (an R2 body, a file's segments) is read with
 * `readAtLeast` into one reused buffer that keeps 4 bytes free in front for the length: one
 * MAX_CHUNK_BYTES chunk per JavaScript turn and per write, without a copy (R2 hands its bodies
 * over in pieces of a few KiB). Any other stream is cut (or copied) chunk by chunk.
 */
function chunksOf(body: ReadableStream<Uint8Array>): Chunks {
  const reader = byteReader(body);
  if (reader) {
    let buffer: ArrayBuffer | undefined = new ArrayBuffer(4 + MAX_CHUNK_BYTES);
    return {
      async next() {
        if (!buffer) return null;
        const { done, value } = await reader.readAtLeast(MAX_CHUNK_BYTES, new Uint8Array(buffer, 4, MAX_CHUNK_BYTES));
        // The view's buffer is the one passed in (moved, not copied): the next read fills it again.
        buffer = done ? undefined : (value?.buffer as ArrayBuffer | undefined);
        if (!value || value.length === 0) return done ? null : this.next();
        return framed(value.buffer, value.byteOffset - 4, value.length);
      },
      cancel: () => reader.cancel(),
    };
  }
  const chunks = body.getReader();
  let pending: Uint8Array = new Uint8Array(0);
  return {
    async next() {
      while (pending.length === 0) {
        const { done, value } = await chunks.read();
        if (done) return null;
        pending = value;
      }
      const piece = pending.subarray(0, MAX_CHUNK_BYTES);
      pending = pending.subarray(piece.length);
      const chunk = new Uint8Array(4 + piece.length);
      chunk.set(piece, 4);
      return framed(chunk.buffer, 0, piece.length);
    },
    cancel: () => chunks.cancel(),
  };
}

/**
 * Streams `body` to clamd at `address` with INSTREAM and returns its verdict; never throws (a
 * failure is an `error` verdict). The body is read to its end, or cancelled when the scan stops
 * early (clamd answers before the end when a stream passes its StreamMaxLength).
 */
export async function scanStream(
  address: ScannerAddress,
  body: ReadableStream<Uint8Array>,
  timeouts: ScanTimeouts = SCAN_TIMEOUTS,
): Promise<ScanVerdict> {
  let socket: ReturnType<typeof connect> | undefined;
  const chunks = chunksOf(body);
  try {
    socket = connect(address, { secureTransport: 'off', allowHalfOpen: false });
    await within(socket.opened, timeouts.connectMs, 'connecting to clamd');
    const writer = socket.writable.getWriter();
    // Read while writing: clamd may answer (and close) before the stream ends.
    const replying = readReply(socket.readable.getReader());
    let answered = false;
    replying.then(
      () => {
        answered = true;
      },
      () => {
        answered = true;
      },
    );
    const write = (bytes: Uint8Array) => within(writer.write(bytes), timeouts.idleMs, 'writing to clamd');
    try {
      await write(INSTREAM);
      while (!answered) {
        const chunk = await within(chunks.next(), timeouts.idleMs, 'reading the file');
        if (!chunk) break;
        await write(chunk);
        // Writes that the socket takes at once never give clamd's answer, which may come early
        // (a stream past its StreamMaxLength), a turn to be read before clamd closes: a turn of
        // the event loop per chunk does (without it the answer is lost with the connection).
        await nextTurn();
      }
      if (!answered) await write(END);
    } catch (error) {
      // A write refused because clamd answered and closed (a stream past its StreamMaxLength):
      // its answer, in flight or read already, says why.
      const reply = await within(replying, AFTER_REFUSAL_MS, 'clamd’s answer').catch(() => null);
      if (reply) return verdictOf(reply);
      throw error;
    }
    return verdictOf(await within(replying, timeouts.verdictMs, 'waiting for clamd’s answer'));
  } catch (error) {
    return { status: 'error', reason: error instanceof ScanFailure ? error.message : String(error) };
  } finally {
    await chunks.cancel().catch(() => undefined);
    await socket?.close().catch(() => undefined);
  }
}
