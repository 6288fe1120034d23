import { env } from 'cloudflare:test';
import { expect } from 'vitest';
import type { FileRecordV2, UploadRecordV2 } from './records';
import { call } from './worker';

export type Auth = Record<string, string>;
/** A v2 record as an upload or a read answers it (a read adds originalName and more). */
export type Record2 = UploadRecordV2 & Partial<FileRecordV2>;

/** Lowercase hex SHA-256 of `bytes`. */
export async function sha256Hex(bytes: BufferSource): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export async function sha256Field(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `sha-256=:${btoa(String.fromCharCode(...digest))}:`;
}

/** Text-like bytes of any size (every byte printable, so sniffed as text/plain). */
export function textOf(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = 97 + ((x >>> 16) % 26);
  }
  return out;
}

/** A body delivered in chunks with no Content-Length (chunked transfer). */
export function chunked(bytes: Uint8Array, chunkSize = 64 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

/** PUT /api/v2/upload/{name} with the bytes as the raw body and a Content-Length. */
export function putRaw(auth: Auth, name: string, bytes: Uint8Array, headers: Record<string, string> = {}, query = '') {
  return call(`/api/v2/upload/${name}${query}`, {
    method: 'PUT',
    headers: { ...auth, 'Content-Length': String(bytes.length), ...headers },
    body: bytes,
  });
}

/** The same with a chunked body (no Content-Length). */
export function putChunked(auth: Auth, name: string, bytes: Uint8Array, headers: Record<string, string> = {}) {
  return call(`/api/v2/upload/${name}`, {
    method: 'PUT',
    headers: { ...auth, ...headers },
    body: chunked(bytes),
    duplex: 'half',
  } as RequestInit);
}

export async function created(response: Response): Promise<Record2> {
  const body = (await response.json()) as { data: Record2 };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.data;
}

export async function usageOf(auth: Auth) {
  const response = await call('/api/v2/usage', { headers: auth });
  expect(response.status).toBe(200);
  return (
    (await response.json()) as {
      data: { usedBytes: number; reservedBytes: number; files: number; reservedFiles: number };
    }
  ).data;
}

/** Nothing of the account's in R2 or D1, and it holds nothing, reserved included. */
export async function expectUntouched(accountId: string, auth: Auth): Promise<void> {
  const listed = await env.FILES.list({ prefix: `files/${accountId}/` });
  expect(listed.objects.map((object) => object.key)).toEqual([]);
  const rows = await env.DB.prepare('SELECT COUNT(*) AS n FROM files WHERE account_id = ?1')
    .bind(accountId)
    .first<{ n: number }>();
  expect(rows?.n).toBe(0);
  expect(await usageOf(auth)).toMatchObject({ usedBytes: 0, reservedBytes: 0, files: 0, reservedFiles: 0 });
}

export async function storedBytes(accountId: string, id: string): Promise<Uint8Array> {
  const object = await env.FILES.get(`files/${accountId}/${id}`);
  if (!object) throw new Error('no blob');
  return new Uint8Array(await object.arrayBuffer());
}
