// Serving a stored file: conditional requests, byte ranges, and safe headers.
import { ApiError } from '../errors';
import { sha256Hex } from '../lib/crypto';
import { reprDigest } from '../lib/digest';
import { log } from '../log';
import type { FileRow } from '../storage/files-repo';
import { type BlobStore, isSegmented, openBlob } from '../storage/segments';
import { normalizeMediaType } from './file-type';
import { contentDisposition } from './names';

/**
 * A file as a download serves it. A plain file is its row. An encrypted file (src/e2e/) is served
 * as `header ‖ payload`, a whole age file: the header of the way in (the owner's, or a link's) in
 * front of the stored payload, so `size` is both together, the ETag names that header and payload
 * (it differs per link, and changes with the header), and no digest is sent (the stored one is the
 * payload's alone, never the bytes served).
 */
export type ServedFile = FileRow & { served?: { header: Uint8Array; payloadSize: number } };

/**
 * What a download of `row` through a way in whose age header is `header` serves: the row itself
 * for a plain file; for an encrypted one, `header ‖ payload`. Null: an encrypted file that way in
 * holds no header for (it serves nothing of it).
 */
/** The length of a file as a way in with `header` serves it: an encrypted file's header and payload. */
export const servedSize = (row: Pick<FileRow, 'size' | 'encryption'>, header: string | null | undefined): number =>
  row.encryption && header ? new TextEncoder().encode(header).length + row.size : row.size;

export async function servedFile(row: FileRow, header: string | null | undefined): Promise<ServedFile | null> {
  if (!row.encryption) return row;
  if (!header) return null;
  const bytes = new TextEncoder().encode(header);
  const tag = await sha256Hex(`${row.etag}\n${header}`);
  return {
    ...row,
    size: bytes.length + row.size,
    etag: `"${tag.slice(0, 40)}"`,
    sha256: null,
    served: { header: bytes, payloadSize: row.size },
  };
}

/**
 * The bytes of a served file (or a range of them): a plain file's from storage; an encrypted
 * file's header from its slice of the header kept apart and the rest with a ranged read of the
 * payload (a range may start in the header, span the boundary, or lie in the payload). Null when
 * the stored bytes are missing.
 */
export async function openServed(
  store: BlobStore,
  file: ServedFile,
  range?: { offset: number; length: number },
): Promise<ReadableStream<Uint8Array> | null> {
  if (!file.served) return openBlob(store, file, range);
  const { header, payloadSize } = file.served;
  const offset = range?.offset ?? 0;
  const end = offset + (range?.length ?? file.size);
  const head = header.subarray(Math.min(offset, header.length), Math.min(end, header.length));
  const from = Math.max(offset, header.length) - header.length;
  const to = end - header.length;
  const payload =
    to <= from
      ? null
      : await openBlob(
          store,
          { r2_key: file.r2_key, size: payloadSize },
          from === 0 && to === payloadSize ? undefined : { offset: from, length: to - from },
        );
  if (to > from && !payload) return null;
  // One stream of exactly the length announced (the runtime sends it with its Content-Length).
  const out = new FixedLengthStream(head.length + Math.max(0, to - from));
  const writer = out.writable.getWriter();
  // After the header, an R2 object's body is piped by the runtime itself (no JavaScript per chunk:
  // that cost the owner's download of an encrypted file 80% more CPU than a plain one). The payload
  // of a file stored in segments is itself a FixedLengthStream, which the runtime does not pipe into
  // another: that one goes chunk by chunk. Either way each write waits for the reader, so memory
  // stays flat.
  const native = payload !== null && !isSegmented(file.r2_key);
  const pump = async () => {
    if (head.length > 0) await writer.write(head.slice());
    if (native) {
      writer.releaseLock();
      await payload.pipeTo(out.writable);
      return;
    }
    const reader = payload?.getReader();
    for (let next = await reader?.read(); next && !next.done; next = await reader?.read())
      await writer.write(next.value);
    await writer.close();
  };
  pump().catch(async (error: unknown) => {
    await payload?.cancel(error).catch(() => undefined);
    // Through the writer while it holds the stream, else (once piping) the stream itself.
    await writer.abort(error).catch(() => out.writable.abort(error).catch(() => undefined));
  });
  return out.readable;
}

export type DownloadPlan =
  | { kind: 'not-modified' }
  | { kind: 'unsatisfiable' }
  | { kind: 'full' }
  | { kind: 'partial'; offset: number; length: number };

/** True when the request could be answered with anything but the whole file. */
export const isConditional = (headers: Headers) =>
  headers.has('range') || headers.has('if-none-match') || headers.has('if-modified-since');

const etagMatches = (header: string, etag: string) =>
  header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);

export function planDownload(headers: Headers, row: FileRow): DownloadPlan {
  const ifNoneMatch = headers.get('if-none-match');
  if (ifNoneMatch !== null) {
    if (etagMatches(ifNoneMatch, row.etag)) return { kind: 'not-modified' };
  } else {
    const since = Date.parse(headers.get('if-modified-since') ?? '');
    if (!Number.isNaN(since) && Math.floor(Date.parse(row.uploaded_at) / 1000) * 1000 <= since) {
      return { kind: 'not-modified' };
    }
  }
  const range = headers.get('range');
  if (range === null) return { kind: 'full' };
  const ifRange = headers.get('if-range');
  if (ifRange !== null && ifRange.trim() !== row.etag) return { kind: 'full' };
  return parseRange(range, row.size);
}

/** One `bytes=` range (RFC 9110 §14.1.2). Anything we do not serve as a range is served whole. */
export function parseRange(header: string, size: number): DownloadPlan {
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return { kind: 'full' };
  const [, startText = '', endText = ''] = match;
  if (startText === '' && endText === '') return { kind: 'full' };
  if (startText === '') {
    const suffix = Number(endText);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    const length = Math.min(suffix, size);
    return { kind: 'partial', offset: size - length, length };
  }
  const start = Number(startText);
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = endText === '' ? size - 1 : Math.min(Number(endText), size - 1);
  if (end < start) return { kind: 'full' };
  return { kind: 'partial', offset: start, length: end - start + 1 };
}

/**
 * One download: an answer that carries the whole of something of `size` bytes, a 200 or a 206
 * from byte 0 to the end. A range that starts at byte 0 and stops short (`bytes=0-0`, the probe
 * of many download managers) is not one, however often it is asked.
 */
export const countsAsDownload = (plan: DownloadPlan, size: number) =>
  plan.kind === 'full' || (plan.kind === 'partial' && plan.offset === 0 && plan.length === size);

/**
 * The bytes an answer to `method` with this plan carries, for something of `size` bytes: what a
 * capped link reserves of its budget. 0 for HEAD, 304 and 416.
 */
export function bytesCarried(plan: DownloadPlan, size: number, method: string): number {
  if (method !== 'GET') return 0;
  if (plan.kind === 'full') return size;
  if (plan.kind === 'partial') return plan.length;
  return 0;
}

function fileHeaders(row: ServedFile): Headers {
  const headers = new Headers({
    // Rows written before uploads validated the declared type may hold one no header can carry.
    'Content-Type': normalizeMediaType(row.mime_type) || 'application/octet-stream',
    'Content-Disposition': contentDisposition(row.original_name, row.filename),
    ETag: row.etag,
    'Last-Modified': new Date(row.uploaded_at).toUTCString(),
    'Accept-Ranges': 'bytes',
    // no-transform: Cloudflare's edge then leaves the bytes and Content-Length alone (see serveFile).
    'Cache-Control': 'private, no-transform',
    'X-Content-Type-Options': 'nosniff',
    // User content never runs on our origin, whatever its type.
    'Content-Security-Policy': 'sandbox',
  });
  // RFC 9530: the digest of the whole file, whatever range this answer carries.
  if (row.sha256) headers.set('Repr-Digest', reprDigest(row.sha256));
  return headers;
}

export async function serveFile(
  store: BlobStore,
  row: ServedFile,
  plan: DownloadPlan,
  method: string,
): Promise<Response> {
  const headers = fileHeaders(row);
  if (plan.kind === 'not-modified') {
    for (const name of ['Content-Type', 'Content-Disposition', 'Accept-Ranges', 'X-Content-Type-Options'])
      headers.delete(name);
    return new Response(null, { status: 304, headers });
  }
  if (plan.kind === 'unsatisfiable') {
    throw new ApiError('RANGE_NOT_SATISFIABLE', 'Requested range not satisfiable', {
      headers: { 'Content-Range': `bytes */${row.size}`, 'Accept-Ranges': 'bytes' },
    });
  }
  const status = plan.kind === 'partial' ? 206 : 200;
  const length = plan.kind === 'partial' ? plan.length : row.size;
  headers.set('Content-Length', String(length));
  // Downloads are the stored bytes, never a compressed form of them: Content-Length, the strong
  // ETag and byte ranges all name those bytes. Clients send Accept-Encoding anyway (every
  // browser and fetch does), and then both the edge and the local runtime would gzip/brotli a
  // compressible type and drop Content-Length. Cloudflare documents `Cache-Control: no-transform`
  // as the way to keep a response uncompressed with its Content-Length
  // (https://developers.cloudflare.com/speed/optimization/content/compression/#content-length-header-handling);
  // wrangler dev ignores that, but leaves a response alone whose Content-Encoding is anything but
  // gzip or br, so `identity` (no coding) is said explicitly as well. RFC 9110 §8.4.1 would rather
  // not see `identity` in Content-Encoding, but clients read it as no coding, and it is what keeps
  // local runs honest. Checked end to end in test/files/download-encoding.e2e.test.ts.
  headers.set('Content-Encoding', 'identity');
  if (plan.kind === 'partial') {
    headers.set('Content-Range', `bytes ${plan.offset}-${plan.offset + plan.length - 1}/${row.size}`);
  }
  if (method === 'HEAD') return new Response(null, { status, headers });

  const body = await openServed(
    store,
    row,
    plan.kind === 'partial' ? { offset: plan.offset, length: plan.length } : undefined,
  );
  if (!body) {
    log('error', 'row without blob', { fileId: row.id });
    throw new ApiError('FILE_NOT_FOUND');
  }
  return new Response(body, { status, headers });
}
