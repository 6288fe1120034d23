// tus 1.0.0 (tus.io/protocols/resumable-upload): the protocol's headers, parsed and validated.
// No Hono here: the router turns these values into requests and responses.
import { MIB } from '../config';
import { validationError } from '../errors';
import { fromBase64 } from '../lib/encoding';
import { PART_SIZE } from '../storage/blobs';

export const TUS_VERSION = '1.0.0';
export const TUS_EXTENSIONS = [
  'creation',
  'creation-with-upload',
  'termination',
  'expiration',
  'checksum',
  'concatenation',
];
/** What file requests' tus paths offer (src/requests/tus.ts): every extension but concatenation. */
export const REQUEST_TUS_EXTENSIONS = TUS_EXTENSIONS.filter((extension) => extension !== 'concatenation');
export const OFFSET_OCTET_STREAM = 'application/offset+octet-stream';

/** tus names → Web Crypto names; all of them are streamed through crypto.DigestStream. */
export const CHECKSUM_ALGORITHMS: Record<string, string> = {
  sha1: 'SHA-1',
  sha256: 'SHA-256',
  sha384: 'SHA-384',
  sha512: 'SHA-512',
  md5: 'MD5',
};

/** Where an upload's temporary objects (its tail) live in R2: outside files/, which the sweep compares with D1. */
export const tailPrefix = (id: string) => `uploads/${id}/`;

/** R2 takes at most 10,000 parts per multipart upload. */
export const MAX_PARTS = 10_000;
/** The largest part a Worker buffers (one part in memory, 128 MB per isolate). */
export const MAX_PART_SIZE = 32 * MIB;
/** The largest upload tus can take, whatever MAX_FILE_SIZE says: 10,000 parts of 32 MiB. */
export const MAX_TUS_LENGTH = MAX_PARTS * MAX_PART_SIZE;

/**
 * Whether an upload's part size may still be chosen: no byte of a part is stored yet (no part, no
 * tail). The PATCH that stores the first chooses it (src/tus/part-writer.ts), and the upload's
 * object records it (an age upload's header, in no part, leaves it free).
 */
export const partSizeOpen = (upload: { partCount: number; tail: unknown }): boolean =>
  upload.partCount === 0 && !upload.tail;

/**
 * The R2 part size of an upload: every part but the last has exactly this size. At least 8 MiB
 * (R2's minimum is 5 MiB), and large enough that the whole upload fits in 10,000 parts.
 */
export function partSizeFor(length: number): number {
  const needed = Math.ceil(Math.ceil(length / MAX_PARTS) / MIB) * MIB;
  return Math.max(PART_SIZE, needed);
}

/** `Tus-Max-Size`: the largest Upload-Length this server accepts. */
export const maxUploadLength = (maxFileSize: number) => Math.min(maxFileSize, MAX_TUS_LENGTH);

/** A non-negative integer header (Upload-Length, Upload-Offset); anything else is a 400. */
export function parseSize(value: string | undefined, header: string): number {
  if (value === undefined) throw validationError(header, 'the header is required');
  const trimmed = value.trim();
  const parsed = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || !Number.isSafeInteger(parsed)) {
    throw validationError(header, 'must be a non-negative integer');
  }
  return parsed;
}

const MAX_METADATA_BYTES = 4096;
const METADATA_KEY = /^[^\s,]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * `Upload-Metadata`: comma-separated `key base64value` pairs (the value may be left out).
 * Values are decoded as UTF-8. Keys must be unique.
 */
export function parseMetadata(header: string | undefined): Map<string, string> {
  const pairs = new Map<string, string>();
  if (header === undefined || header.trim() === '') return pairs;
  if (header.length > MAX_METADATA_BYTES) {
    throw validationError('Upload-Metadata', `at most ${MAX_METADATA_BYTES} characters are accepted`);
  }
  for (const item of header.split(',')) {
    const [key = '', value = '', ...rest] = item.trim().split(' ');
    if (!METADATA_KEY.test(key) || rest.length > 0) {
      throw validationError('Upload-Metadata', 'expected comma-separated "key base64value" pairs');
    }
    if (pairs.has(key)) throw validationError('Upload-Metadata', `${key} is given more than once`);
    pairs.set(key, decodeBase64Text(value, key));
  }
  return pairs;
}

function decodeBase64Text(value: string, key: string): string {
  const bytes = fromBase64(value);
  if (!bytes) throw validationError('Upload-Metadata', `the value of ${key} is not Base64`);
  try {
    return utf8.decode(bytes);
  } catch {
    throw validationError('Upload-Metadata', `the value of ${key} is not Base64-encoded UTF-8`);
  }
}

export type Checksum = { algorithm: string; digest: string; expected: Uint8Array };

/** `Upload-Checksum: <algorithm> <base64 digest>`; an unknown algorithm is a 400, as the spec says. */
export function parseChecksum(header: string | undefined): Checksum | undefined {
  if (header === undefined) return undefined;
  const [algorithm = '', encoded = '', ...rest] = header.trim().split(' ');
  const digest = CHECKSUM_ALGORITHMS[algorithm];
  if (!digest) {
    throw validationError(
      'Upload-Checksum',
      `unsupported algorithm "${algorithm}" (supported: ${Object.keys(CHECKSUM_ALGORITHMS).join(', ')})`,
    );
  }
  const expected = fromBase64(encoded);
  if (rest.length > 0 || encoded === '' || encoded.length % 4 !== 0 || !expected) {
    throw validationError('Upload-Checksum', 'expected "<algorithm> <base64 digest>"');
  }
  return { algorithm, digest, expected };
}

export const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** RFC 9110 IMF-fixdate, the format Upload-Expires takes: `Wed, 25 Jun 2014 16:00:00 GMT`. */
export const httpDate = (ms: number) => new Date(ms).toUTCString();

/** Whether a Content-Type is tus's `application/offset+octet-stream` (parameters ignored). */
export const isOffsetStream = (contentType: string | undefined) =>
  (contentType ?? '').split(';')[0]?.trim().toLowerCase() === OFFSET_OCTET_STREAM;

/** The most partial uploads one final upload may name. */
export const MAX_CONCAT_PARTS = 100;

/** `Upload-Concat` (tus concatenation): a partial upload, or a final one naming its partials' URLs in order. */
export type UploadConcat = { kind: 'partial' } | { kind: 'final'; urls: string[] };

/**
 * `Upload-Concat: partial` or `final;<url> <url> …` (absolute URLs or paths, space separated).
 * Anything else is a 400; so is a final naming no partial, or more than MAX_CONCAT_PARTS.
 */
export function parseUploadConcat(header: string | undefined): UploadConcat | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === 'partial') return { kind: 'partial' };
  if (!value.startsWith('final;')) {
    throw validationError('Upload-Concat', 'expected "partial" or "final;<url> <url> …"');
  }
  const urls = value.slice('final;'.length).trim().split(/\s+/).filter(Boolean);
  if (urls.length === 0) throw validationError('Upload-Concat', 'a final upload names at least one partial upload');
  if (urls.length > MAX_CONCAT_PARTS) {
    throw validationError('Upload-Concat', `a final upload names at most ${MAX_CONCAT_PARTS} partial uploads`);
  }
  return { kind: 'final', urls };
}

/** A final upload's `Upload-Concat`, its partials named as the client named them. */
export const finalConcat = (segments: { upload_url: string }[]) =>
  `final;${segments.map((segment) => segment.upload_url).join(' ')}`;
