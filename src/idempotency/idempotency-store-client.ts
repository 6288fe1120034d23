// The Worker's side of Idempotency-Key: parsing the header, what makes two requests "the same",
// and the calls to the account's IdempotencyStore.

import { MAX_JSON_BODY } from '../config';
import { validationError } from '../errors';
import { toHex } from '../lib/encoding';
import { MAX_STORED_BODY_BYTES, type StoredResponse } from './idempotency-store-contract';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** Set on an answer that is a replay of a stored one. */
export const REPLAYED_HEADER = 'Idempotency-Replayed';

const KEY_PATTERN = /^[\x21\x23-\x7e]{1,255}$/;

/**
 * The key named by the header: the draft's quoted string (`"abc"`) and the bare value (`abc`)
 * name the same key. 1–255 visible ASCII characters, no `"` inside; anything else is a 400.
 */
export function parseIdempotencyKey(value: string): string {
  const trimmed = value.trim();
  const inner =
    trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
  if (!KEY_PATTERN.test(inner))
    throw validationError(IDEMPOTENCY_HEADER, 'must be 1-255 visible ASCII characters, bare or as a quoted string');
  return inner;
}

// Request headers that change what a request does, beside its method, path, query and body (an
// upload's length is its body's: the body digest covers it, whatever a multipart boundary adds).
const FINGERPRINT_HEADERS = [
  'upload-length',
  'upload-defer-length',
  'upload-metadata',
  'upload-concat',
  'repr-digest',
  'content-digest',
];

/** Bodies streamed into storage: never read (or hashed) before the handler reads them. */
export function isStreamedBody(request: Request): boolean {
  // A raw-body upload (PUT) may have any Content-Type.
  if (request.method === 'PUT') return true;
  const type = (request.headers.get('content-type') ?? '').toLowerCase();
  return (
    type.startsWith('multipart/') ||
    type.startsWith('application/offset+octet-stream') ||
    type.startsWith('application/octet-stream') ||
    request.headers.has('upload-length') ||
    request.headers.has('upload-defer-length')
  );
}

/**
 * What "the same request" means: the API key that sent it (a stored answer is never replayed to
 * another key, not even of the same account), method, path, query, Content-Type without its
 * parameters' random part (the multipart boundary), the headers above and, for a body that is
 * not an upload (JSON and other small bodies), a SHA-256 of the body. An upload's body is hashed
 * as it streams (body-digest.ts): its digest is kept with the answer, and a retry's body is read
 * and hashed to be compared with it.
 */
export async function fingerprintOf(request: Request, streamed: boolean, keyId: string): Promise<string> {
  const url = new URL(request.url);
  const type = (request.headers.get('content-type') ?? '')
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !part.toLowerCase().startsWith('boundary='))
    .join(';')
    .toLowerCase();
  const parts = [`key:${keyId}`, request.method, url.pathname, url.search, type];
  for (const name of FINGERPRINT_HEADERS) parts.push(`${name}:${request.headers.get(name) ?? ''}`);
  if (!streamed && request.body) parts.push(`body:${await boundedBodyHash(request)}`);
  const bytes = new TextEncoder().encode(parts.join('\n'));
  return toHex(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)));
}

/**
 * SHA-256 of a copy of a non-upload body (the handler still reads the original), read at most
 * MAX_JSON_BODY bytes: past it, the 400 the JSON routes answer anyway, before anything buffers.
 */
async function boundedBodyHash(request: Request): Promise<string> {
  const reader = (request.clone().body as ReadableStream<Uint8Array>).getReader();
  const digest = new crypto.DigestStream('SHA-256');
  const writer = digest.getWriter();
  let read = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read += value.byteLength;
    if (read > MAX_JSON_BODY) {
      await reader.cancel();
      // Aborting the writer rejects the digest too: nobody awaits it now, so it must not go unhandled.
      digest.digest.catch(() => undefined);
      await writer.abort();
      throw validationError('body', `must be at most ${MAX_JSON_BODY} bytes`);
    }
    await writer.write(value);
  }
  await writer.close();
  return toHex(new Uint8Array(await digest.digest));
}

// Response headers a replay gives back (rate-limit and timing headers are the retry's own).
const KEPT_HEADERS = [
  'content-type',
  'location',
  'content-disposition',
  'etag',
  'last-modified',
  'upload-offset',
  'upload-length',
  'upload-expires',
  // A tus creation that completed a file (and a final upload): the file's id.
  'x-file-id',
];

/** The response as stored, or undefined when its body is over MAX_STORED_BODY_BYTES. */
export async function storableResponse(response: Response): Promise<StoredResponse | undefined> {
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  if (length > MAX_STORED_BODY_BYTES) return undefined;
  const body = new Uint8Array(await response.clone().arrayBuffer());
  if (body.byteLength > MAX_STORED_BODY_BYTES) return undefined;
  const headers: string[][] = [];
  for (const name of KEPT_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers.push([name, value]);
  }
  return { status: response.status, headers, body };
}

// The store never holds a key's value or a readable body: entries are named by a hash of the
// key, and bodies (a new API key's secret, for one) are sealed with AES-GCM under a key derived
// from the Idempotency-Key value, which only the client holds.
const encoder = new TextEncoder();

/** The entry's name in the store: a SHA-256 of the Idempotency-Key value. */
export async function entryNameOf(key: string): Promise<string> {
  return toHex(
    new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(`edgeshare idempotency entry\n${key}`))),
  );
}

async function sealKey(key: string): Promise<CryptoKey> {
  const material = await crypto.subtle.digest('SHA-256', encoder.encode(`edgeshare idempotency body\n${key}`));
  return crypto.subtle.importKey('raw', material, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

const IV_BYTES = 12;

export async function seal(key: string, body: Uint8Array): Promise<Uint8Array> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, await sealKey(key), body));
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(sealed, IV_BYTES);
  return out;
}

export async function unseal(key: string, sealed: Uint8Array): Promise<Uint8Array> {
  const iv = sealed.slice(0, IV_BYTES);
  const data = sealed.slice(IV_BYTES);
  return new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv }, await sealKey(key), data));
}

export function replayOf(stored: StoredResponse): Response {
  const headers = new Headers(stored.headers as [string, string][]);
  headers.set(REPLAYED_HEADER, 'true');
  const empty = stored.status === 204 || stored.status === 304;
  return new Response(empty ? null : stored.body, { status: stored.status, headers });
}

export const idempotencyStore = (namespace: Env['IDEMPOTENCY'], accountId: string) => namespace.getByName(accountId);
