// Plain Node HTTP clients for the streaming cases: uploads read from a file on disk and sent with
// a known Content-Length, downloads read to the end and thrown away, counting bytes. Loopback only.
import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream, openSync, statSync, writeSync } from 'node:fs';
import { type IncomingMessage, request } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';

export const MIB = 1024 * 1024;

/** A transfer's figures: throughput, time and size (what every moving-bytes case reports). */
export const transferred = (ms: number, bytes: number) => ({
  mibPerS: bytes / MIB / (ms / 1000),
  ms,
  mib: bytes / MIB,
});

/** A file of `bytes` random-looking bytes (1 MiB of random data, repeated). */
export function makeFile(dir: string, bytes: number): string {
  const path = join(dir, `file-${bytes}.bin`);
  try {
    if (statSync(path).size === bytes) return path;
  } catch {
    // not made yet
  }
  const block = randomBytes(Math.min(MIB, bytes));
  const fd = openSync(path, 'w');
  try {
    for (let written = 0; written < bytes; written += block.length) {
      writeSync(fd, block, 0, Math.min(block.length, bytes - written));
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

export type Reply = { status: number; ms: number; body: string; headers: IncomingMessage['headers'] };

function assertLoopback(url: URL): void {
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) throw new Error(`not a loopback address: ${url}`);
}

/** Sends one request with a streamed body of known length; resolves when the whole answer is read. */
export function send(
  url: URL,
  init: { method: string; headers?: Record<string, string>; body?: Readable; length?: number },
): Promise<Reply> {
  assertLoopback(url);
  const started = performance.now();
  return new Promise((resolvePromise, reject) => {
    const headers = {
      ...init.headers,
      ...(init.length === undefined ? {} : { 'content-length': String(init.length) }),
    };
    const req = request(url, { method: init.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolvePromise({
          status: res.statusCode ?? 0,
          ms: performance.now() - started,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: res.headers,
        }),
      );
    });
    req.on('error', reject);
    if (init.body) init.body.on('error', reject).pipe(req);
    else req.end();
  });
}

/**
 * Reads a response body to its end without keeping it; resolves with the byte count, the whole
 * time, the time to the body's first byte (the whole time for an empty body) and the headers.
 */
export function download(
  url: URL,
  headers: Record<string, string> = {},
): Promise<{ status: number; ms: number; firstByteMs: number; bytes: number; headers: IncomingMessage['headers'] }> {
  assertLoopback(url);
  const started = performance.now();
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { method: 'GET', headers, agent: false }, (res) => {
      let bytes = 0;
      let firstByteMs: number | undefined;
      res.on('data', (chunk: Buffer) => {
        firstByteMs ??= performance.now() - started;
        bytes += chunk.length;
      });
      res.on('error', reject);
      res.on('end', () => {
        const ms = performance.now() - started;
        resolvePromise({
          status: res.statusCode ?? 0,
          ms,
          firstByteMs: firstByteMs ?? ms,
          bytes,
          headers: res.headers,
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const READ_CHUNK = 256 * 1024;

export type FormPart = { name: string; value: string } | { name: string; filename: string; path: string; type: string };

/** A multipart/form-data body streamed from disk, with its exact length and Content-Type. */
export function multipartBody(parts: FormPart[]): { body: Readable; length: number; contentType: string } {
  const boundary = `----edgeshare-bench-${randomBytes(12).toString('hex')}`;
  const pieces: (Buffer | { path: string })[] = [];
  let length = 0;
  const add = (piece: Buffer | { path: string }, size: number) => {
    pieces.push(piece);
    length += size;
  };
  for (const part of parts) {
    const disposition =
      'path' in part
        ? `form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.type}`
        : `form-data; name="${part.name}"`;
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`);
    add(head, head.length);
    if ('path' in part) add({ path: part.path }, statSync(part.path).size);
    else add(Buffer.from(part.value), Buffer.byteLength(part.value));
    add(Buffer.from('\r\n'), 2);
  }
  const tail = Buffer.from(`--${boundary}--\r\n`);
  add(tail, tail.length);
  async function* stream() {
    for (const piece of pieces) {
      if (Buffer.isBuffer(piece)) yield piece;
      else yield* createReadStream(piece.path, { highWaterMark: READ_CHUNK });
    }
  }
  return { body: Readable.from(stream()), length, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The raw bytes of a file as a request body. */
export function fileBody(path: string): { body: Readable; length: number } {
  return { body: createReadStream(path, { highWaterMark: READ_CHUNK }), length: statSync(path).size };
}
