// Helpers for the v2 tests: typed bodies, uploads, bulk calls, storage inspection and thin
// binding wrappers (measurement and faults), kept apart from test/helpers.ts.
import { env } from 'cloudflare:test';
import { expect } from 'vitest';
import { blobKey } from '../../src/storage/blobs';
import { call, TEST_BOUNDARY } from '../helpers';

export type Auth = Record<string, string>;
export type EnvOverrides = Partial<Record<string, unknown>>;

export type ErrorBody = {
  error: string;
  code: string;
  requestId?: string;
  details?: { field: string; message: string }[];
  _perf?: number;
};
export type UploadRecordV2 = {
  id: string;
  filename: string;
  size: number;
  mimeType: string;
  downloadUrl: string;
  shareUrl: string;
  isPublic: boolean;
  uploadedAt: string;
};
export type FileRecordV2 = UploadRecordV2 & {
  originalName: string;
  downloadCount: number;
  updatedAt: string;
  expiresAt: string | null;
};
export type BulkUploadItem =
  | { success: true; data: UploadRecordV2 }
  | { success: false; filename: string; error: string; code: string };
export type BulkUploadBody = {
  success: boolean;
  data: { total: number; successful: number; failed: number; results: BulkUploadItem[] };
  _perf: number;
};
export type BulkDeleteItem =
  | { id: string; success: true }
  | { id: string; success: false; error: string; code: string };
export type BulkDeleteBody = {
  success: boolean;
  data: { total: number; deleted: number; failed: number; results: BulkDeleteItem[] };
  _perf: number;
};

export const UPLOAD_RECORD_V2_KEYS = [
  'downloadUrl',
  'filename',
  'id',
  'isPublic',
  'mimeType',
  'sha256',
  'shareUrl',
  'size',
  'uploadedAt',
];

export async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** A JSON body must be an object with an integer `_perf` of at least 0. */
export function expectPerf(body: unknown): number {
  const perf = (body as { _perf?: unknown })._perf;
  expect(Number.isInteger(perf), `_perf is ${JSON.stringify(perf)}`).toBe(true);
  expect(perf as number).toBeGreaterThanOrEqual(0);
  return perf as number;
}

/** Status, code, non-empty message; returns the body. */
export async function expectError(response: Response, status: number, code: string): Promise<ErrorBody> {
  const body = await json<ErrorBody>(response);
  expect({ status: response.status, code: body.code }).toEqual({ status, code });
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  expect(typeof body.error).toBe('string');
  expect(body.error.length).toBeGreaterThan(0);
  return body;
}

/** The named durations of a Server-Timing header (`name;dur=1.2, …`). */
export function serverTiming(response: Response): Map<string, number> {
  const header = response.headers.get('server-timing');
  expect(header, 'Server-Timing header').not.toBeNull();
  const spans = new Map<string, number>();
  for (const entry of (header ?? '').split(',')) {
    const match = /^\s*([A-Za-z0-9_-]+);dur=(\d+(?:\.\d+)?)\s*$/.exec(entry);
    expect(match, `Server-Timing entry ${JSON.stringify(entry)}`).not.toBeNull();
    if (match?.[1] && match[2]) spans.set(match[1], Number(match[2]));
  }
  return spans;
}

export type FileSpec = { name?: string; filename: string; type?: string; content: string | Uint8Array };

/** A multipart form: fields first, then the files (part name `files` unless given). */
export function filesForm(files: FileSpec[], fields: Record<string, string> = {}, defaultName = 'files'): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  for (const file of files) {
    const blob = new File([file.content], file.filename, { type: file.type ?? '' });
    data.append(file.name ?? defaultName, blob);
  }
  return data;
}

export const textFile = (filename: string, content = `content of ${filename}`): FileSpec => ({
  filename,
  type: 'text/plain',
  content,
});

/** An ELF header: an executable, refused whatever it is called or declared as. */
export const ELF = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, ...new Array(56).fill(0)]);
/** Markup declared as a PNG: the content contradicts the declared type. */
export const HTML_AS_PNG: FileSpec = {
  filename: 'photo.png',
  type: 'image/png',
  content: '<!doctype html><html><script>alert(1)</script></html>',
};

export async function uploadV2(auth: Auth, file: FileSpec, fields: Record<string, string> = {}, overrides = {}) {
  const body = filesForm([file], fields, 'file');
  return call('/api/v2/upload', { method: 'POST', headers: auth, body }, overrides);
}

/** Uploads one file through v2 and returns its record; throws unless 201. */
export async function uploadV2Ok(auth: Auth, file: FileSpec = textFile('hello.txt'), fields = {}) {
  const response = await uploadV2(auth, file, fields);
  const body = await json<{ data: UploadRecordV2 }>(response);
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${JSON.stringify(body)}`);
  return body.data;
}

export function bulkUpload(auth: Auth, body: BodyInit, overrides: EnvOverrides = {}, headers: Auth = {}) {
  return call('/api/v2/upload/bulk', { method: 'POST', headers: { ...auth, ...headers }, body }, overrides);
}

/** Bulk-uploads files and returns the ids of the stored ones; throws unless every file landed. */
export async function bulkUploadOk(auth: Auth, files: FileSpec[]): Promise<string[]> {
  const response = await bulkUpload(auth, filesForm(files));
  const body = await json<BulkUploadBody>(response);
  if (response.status !== 201 || body.data.failed !== 0) {
    throw new Error(`bulk upload failed: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.data.results.map((result) => (result.success ? result.data.id : ''));
}

export function bulkDelete(auth: Auth, body: unknown, contentType = 'application/json') {
  return call('/api/v2/files/bulk', {
    method: 'DELETE',
    headers: { ...auth, 'Content-Type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The object keys a key has in R2 (files/<keyId>/…). */
export async function blobKeysOf(keyId: string): Promise<string[]> {
  const listed = await env.FILES.list({ prefix: `files/${keyId}/` });
  return listed.objects.map((object) => object.key).sort();
}

export const blobKeysFor = (keyId: string, ids: string[]) => ids.map((id) => blobKey(keyId, id)).sort();

/** File rows of a key in D1, expired ones included. */
export async function rowIdsOf(keyId: string): Promise<string[]> {
  const { results } = await env.DB.prepare('SELECT id FROM files WHERE account_id = ?1 ORDER BY id')
    .bind(keyId)
    .all<{ id: string }>();
  return results.map((row) => row.id);
}

export async function expectStored(keyId: string, ids: string[]): Promise<void> {
  expect(await blobKeysOf(keyId)).toEqual(blobKeysFor(keyId, ids));
  expect(await rowIdsOf(keyId)).toEqual([...ids].sort());
}

export const expectNothingStored = (keyId: string) => expectStored(keyId, []);

/** The ids in a v2 list (first page of 100). */
export async function listedIds(auth: Auth): Promise<string[]> {
  const response = await call('/api/v2/files?limit=100', { headers: auth });
  expect(response.status).toBe(200);
  const body = await json<{ data: { files: FileRecordV2[] } }>(response);
  return body.data.files.map((file) => file.id).sort();
}

export async function getV2(auth: Auth, id: string): Promise<FileRecordV2> {
  const response = await call(`/api/v2/files/${id}`, { headers: auth });
  const body = await json<{ data: FileRecordV2 }>(response);
  if (response.status !== 200) throw new Error(`get failed: ${response.status} ${JSON.stringify(body)}`);
  return body.data;
}

export async function downloadBytes(auth: Auth, id: string, version: 'v1' | 'v2' = 'v2') {
  const response = await call(`/api/${version}/files/${id}/download`, { headers: auth });
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()), response };
}

export const bytesOf = (content: string | Uint8Array) =>
  typeof content === 'string' ? new TextEncoder().encode(content) : content;

/** A well-formed file id (22 base64url characters) that no file has. */
export function unknownId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

export const tokenOf = (shareUrl: string) => new URL(shareUrl).pathname.replace(/^\/share\//, '');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A thin wrapper around an R2 bucket: every put is delayed a little and counted while in
 * flight, and `failPutNumber` makes that one put (1-based) fail. Everything else delegates.
 */
export function instrumentedBucket(inner: R2Bucket, options: { delayMs?: number; failPutNumber?: number } = {}) {
  const stats = { puts: 0, inFlight: 0, maxInFlight: 0 };
  const put = async (...args: Parameters<R2Bucket['put']>) => {
    const number = ++stats.puts;
    stats.inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    try {
      if (options.delayMs) await sleep(options.delayMs);
      if (number === options.failPutNumber) throw new Error('injected R2 put failure');
      return await inner.put(...args);
    } finally {
      stats.inFlight--;
    }
  };
  const bucket = new Proxy(inner, {
    get(target, property) {
      if (property === 'put') return put;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { bucket, stats };
}

/** A thin wrapper around D1 whose batch() fails; every other call delegates. */
export function failingBatchDb(inner: D1Database): D1Database {
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'batch') return () => Promise.reject(new Error('injected D1 batch failure'));
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export { rawMultipart } from '../helpers';
export const BOUNDARY = TEST_BOUNDARY;

export const rawFilePart = (filename: string, content: string | Uint8Array, name = 'files') => ({
  headers: [`Content-Disposition: form-data; name="${name}"; filename="${filename}"`, 'Content-Type: text/plain'],
  content,
});

export const MULTIPART_HEADERS = { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}` };
