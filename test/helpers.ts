import { createExecutionContext, env, runDurableObjectAlarm, waitOnExecutionContext } from 'cloudflare:test';
import { expect } from 'vitest';
import worker from '../src/index';
import { newKeyMaterial } from '../src/keys/key-material';
import { concat } from '../src/lib/multipart';
import { insertKey, type KeyOverrides } from '../src/storage/keys-repo';

export const ORIGIN = 'http://edgeshare.test';

export type TestEnv = typeof env;

const octet = () => Math.floor(Math.random() * 256);
/** A random private IPv4 address: one of 16 million, so two requests practically never share one. */
export const someAddress = () => `10.${octet()}.${octet()}.${octet()}`;

/**
 * Sends a request through the Worker's own fetch handler, with real local bindings. Each
 * request comes from its own client address (CF-Connecting-IP) unless the test sets one, so
 * tests that send bad keys on purpose are not throttled by each other's failures.
 */
export async function call(path: string, init: RequestInit = {}, envOverrides: Partial<Record<string, unknown>> = {}) {
  const request = new Request(path.startsWith('http') ? path : `${ORIGIN}${path}`, init);
  if (!request.headers.has('cf-connecting-ip')) request.headers.set('cf-connecting-ip', someAddress());
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, { ...env, ...envOverrides } as TestEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** A Durable Object namespace whose stubs report each call (they still reach the real objects). */
export function countingNamespace<T extends object>(inner: T, onCall: () => void): T {
  return new Proxy(inner, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      if (property !== 'getByName' && property !== 'get') return value.bind(object);
      return (...args: unknown[]) => {
        const stub = Reflect.apply(value, object, args) as object;
        return new Proxy(stub, {
          get(target, name) {
            const member = Reflect.get(target, name);
            if (typeof member !== 'function' || name === 'then') return member;
            return (...callArgs: unknown[]) => {
              onCall();
              return Reflect.apply(member, target, callArgs);
            };
          },
        });
      };
    },
  });
}

/** A fresh active key in the test database. */
export async function createKey(name = 'test', overrides: KeyOverrides = {}) {
  const material = await newKeyMaterial();
  const row = await insertKey(env.DB, { ...material, name }, overrides, new Date().toISOString());
  return { id: row.id, key: material.key, auth: { Authorization: `Bearer ${material.key}` } };
}

export type FilePart = { name?: string; filename: string; type?: string; content: BodyInit };

export function form(files: FilePart[], fields: Record<string, string> = {}): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.append(name, value);
  for (const file of files) {
    data.append(file.name ?? 'file', new File([file.content as Blob], file.filename, { type: file.type ?? '' }));
  }
  return data;
}

/** The API versions every behaviour test runs against. */
export const VERSIONS = ['v1', 'v2'] as const;
export type ApiVersion = (typeof VERSIONS)[number];

/** A route's path in one version: `api('v2', '/files')` is `/api/v2/files`. */
export const api = (version: ApiVersion, path: string) => `/api/${version}${path}`;

/** A record's exact field names in `version`, sorted: v2 adds isPublic and sha256 to uploads, gets and list items. */
export const fieldsFor = (version: ApiVersion, fields: readonly string[]) =>
  (version === 'v2' ? [...fields, 'isPublic', 'sha256'] : [...fields]).sort();

/** A file record's (get, list) exact field names: v2 also adds requestId (the file request it came through, or null). */
export const recordFieldsFor = (version: ApiVersion, fields: readonly string[]) =>
  version === 'v2' ? [...fieldsFor(version, fields), 'requestId'].sort() : fieldsFor(version, fields);

/**
 * Checks the `_perf` contract on a JSON body: in v2 a non-negative whole number of milliseconds
 * plus a Server-Timing header with the total; in v1 no `_perf` at all.
 */
export function expectPerf(version: ApiVersion, response: Response, body: unknown): void {
  expect(typeof body === 'object' && body !== null, 'JSON body is an object').toBe(true);
  if (version === 'v2') {
    const perf = (body as { _perf?: unknown })._perf;
    expect(Number.isInteger(perf), `_perf is a whole number, got ${JSON.stringify(perf)}`).toBe(true);
    expect(perf as number).toBeGreaterThanOrEqual(0);
    expect(response.headers.get('server-timing') ?? '').toContain('total;dur=');
  } else {
    expect(body).not.toHaveProperty('_perf');
  }
}

/**
 * Reads a JSON response of `version`, checks its `_perf` (see expectPerf) and returns the body
 * without `_perf`, so exact shape assertions hold unchanged for both versions.
 */
export async function readJson<T>(version: ApiVersion, response: Response): Promise<T> {
  const body: unknown = await response.json();
  expectPerf(version, response, body);
  const { _perf: _checked, ...rest } = body as Record<string, unknown>;
  return rest as T;
}

export async function upload(
  auth: Record<string, string>,
  file: Partial<FilePart> = {},
  fields: Record<string, string> = {},
  version: ApiVersion = 'v1',
) {
  const body = form(
    [
      {
        filename: file.filename ?? 'hello.txt',
        type: file.type ?? 'text/plain',
        content: file.content ?? 'hello world',
      },
    ],
    fields,
  );
  const response = await call(api(version, '/upload'), { method: 'POST', headers: auth, body });
  return { response, body: await readJson<any>(version, response) };
}

// ---- Files API helpers: typed bodies, hand-built multipart, storage inspection ----

export type ErrorDetail = { field: string; message: string };
export type ErrorEnvelope = { error: string; code: string; requestId?: string; details?: ErrorDetail[] };
export type UploadRecordV1 = {
  id: string;
  filename: string;
  size: number;
  mimeType: string;
  downloadUrl: string;
  shareUrl: string;
  uploadedAt: string;
};
export type FileRecordV1 = UploadRecordV1 & {
  originalName: string;
  downloadCount: number;
  updatedAt: string;
  expiresAt: string | null;
};
/** A record as either version shows it: v2 adds isPublic. */
export type UploadRecord = UploadRecordV1 & { isPublic?: boolean };
export type FileRecord = FileRecordV1 & { isPublic?: boolean };
export type Pagination = { page: number; limit: number; total: number; totalPages: number; hasMore: boolean };
export type Success<T> = { success: true; data: T };

/** The response body as JSON, typed by the caller. */
export async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** The seed's get fields; list items add originalName (get may show it too); v2 adds isPublic. */
export const GET_FIELDS = [
  'downloadCount',
  'downloadUrl',
  'expiresAt',
  'filename',
  'id',
  'mimeType',
  'shareUrl',
  'size',
  'updatedAt',
  'uploadedAt',
];

/** The seed's v1 list item fields (v2 adds isPublic). */
export const LIST_ITEM_FIELDS = [...GET_FIELDS, 'originalName'];

/** ISO 8601 UTC with milliseconds, the API's one time format. */
export const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const encoder = new TextEncoder();

/** One part of a hand-built multipart body: its header lines exactly as given, then its bytes. */
export type RawPart = { headers: string[]; content: string | Uint8Array };

export const TEST_BOUNDARY = '----edgeshare-test-boundary-7MA4YWxkTrZu0gW';

/**
 * A multipart/form-data body built byte by byte, so a test controls every header
 * (and can truncate or corrupt the framing). `end: false` leaves out the closing delimiter.
 */
export function rawMultipart(parts: RawPart[], options: { boundary?: string; end?: boolean } = {}): Uint8Array {
  const boundary = options.boundary ?? TEST_BOUNDARY;
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    chunks.push(encoder.encode(`--${boundary}\r\n${part.headers.map((line) => `${line}\r\n`).join('')}\r\n`));
    chunks.push(typeof part.content === 'string' ? encoder.encode(part.content) : part.content);
    chunks.push(encoder.encode('\r\n'));
  }
  if (options.end !== false) chunks.push(encoder.encode(`--${boundary}--\r\n`));
  return concat(chunks);
}

/** Header lines of a file part; the filename goes between the quotes exactly as given. */
export function filePartHeaders(filename: string, type?: string, name = 'file'): string[] {
  const lines = [`Content-Disposition: form-data; name="${name}"; filename="${filename}"`];
  if (type !== undefined) lines.push(`Content-Type: ${type}`);
  return lines;
}

export const fieldPart = (name: string, value: string): RawPart => ({
  headers: [`Content-Disposition: form-data; name="${name}"`],
  content: value,
});

/** POSTs a hand-built multipart body with exactly the headers given (Content-Type defaults to the test boundary). */
export function postRaw(
  auth: Record<string, string>,
  body: BodyInit,
  headers: Record<string, string> = {},
  envOverrides: Partial<Record<string, unknown>> = {},
  path = '/api/v1/upload',
) {
  return call(
    path,
    {
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${TEST_BOUNDARY}`, ...auth, ...headers },
      body,
    },
    envOverrides,
  );
}

/** Every R2 object stored under one key's prefix. */
export async function blobsOf(keyId: string): Promise<R2Object[]> {
  const listed = await env.FILES.list({ prefix: `files/${keyId}/` });
  return listed.objects;
}

/** How many file rows a key has in D1 (expired ones included). */
export async function rowCount(keyId: string): Promise<number> {
  const row = await env.DB.prepare('SELECT COUNT(*) AS n FROM files WHERE account_id = ?1')
    .bind(keyId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/**
 * Revokes a key the way the admin API does: in D1, then told to the key's object, so the very
 * next request is refused. (`pushToObject: false` is a change made only in D1, as the key CLI
 * does: in effect within KEY_STATE_MAX_AGE_MS.)
 */
export async function revokeKeyInDb(keyId: string, pushToObject = true): Promise<void> {
  const row = await env.DB.prepare(
    "UPDATE api_keys SET status = 'revoked', revoked_at = ?2 WHERE id = ?1 RETURNING rate_limit_requests, rate_limit_window_seconds, storage_quota_bytes, max_files",
  )
    .bind(keyId, new Date().toISOString())
    .first<{
      rate_limit_requests: number | null;
      rate_limit_window_seconds: number | null;
      storage_quota_bytes: number | null;
      max_files: number | null;
    }>();
  if (!row || !pushToObject) return;
  await env.KEY_LIMITER.getByName(keyId).updateKey({
    status: 'revoked',
    overrides: {
      rateLimitRequests: row.rate_limit_requests,
      rateLimitWindowSeconds: row.rate_limit_window_seconds,
      storageQuotaBytes: row.storage_quota_bytes,
      maxFiles: row.max_files,
    },
  });
}

/** A valid 1×1 PNG. */
export const PNG_1X1 = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
  (char) => char.charCodeAt(0),
);

export async function sha256(bytes: BufferSource): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Uploads a small text file through `version` and returns its upload record; fails the test if the upload does not succeed. */
export async function uploadOk(
  auth: Record<string, string>,
  file: Partial<FilePart> = {},
  fields: Record<string, string> = {},
  version: ApiVersion = 'v1',
): Promise<UploadRecord> {
  const { response, body } = await upload(auth, file, fields, version);
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${JSON.stringify(body)}`);
  return (body as Success<UploadRecord>).data;
}

/** Reads one file record through `version` of the API. */
export async function getRecord(
  auth: Record<string, string>,
  id: string,
  version: ApiVersion = 'v1',
): Promise<FileRecord> {
  const response = await call(api(version, `/files/${id}`), { headers: auth });
  if (response.status !== 200) throw new Error(`get failed: ${response.status} ${await response.text()}`);
  return (await readJson<Success<FileRecord>>(version, response)).data;
}

/**
 * Checks the error envelope (status, code, a message) and returns the body for more checks.
 * With a version it also checks `_perf` (see readJson) and returns the body without it.
 */
export async function expectError(
  response: Response,
  status: number,
  code: string,
  version?: ApiVersion,
): Promise<ErrorEnvelope> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
  const body = version ? await readJson<ErrorEnvelope>(version, response) : await json<ErrorEnvelope>(response);
  expect(body.code).toBe(code);
  expect(typeof body.error).toBe('string');
  expect(body.error.length).toBeGreaterThan(0);
  return body;
}

/** Asserts that a key has neither blobs in R2 nor rows in D1 (nothing half-written). */
export async function expectNothingStored(keyId: string): Promise<void> {
  expect((await blobsOf(keyId)).map((object) => object.key)).toEqual([]);
  expect(await rowCount(keyId)).toBe(0);
}

/**
 * Throttles count in fixed windows aligned to multiples of their length (AuthGuard, LinkCounter,
 * FileRequestCounter): a test that needs N events in one window waits out the end of the current
 * one when it is closer than `margin` ms, so the count never restarts halfway.
 */
export async function awayFromWindowEdge(windowSeconds: number, margin = 8_000) {
  const left = windowSeconds * 1000 - (Date.now() % (windowSeconds * 1000));
  if (left < margin) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** Runs the alarm of a file's default-link counter: the downloads it holds go to the file's row. */
export async function flushDefaultLink(fileId: string): Promise<void> {
  await runDurableObjectAlarm(env.LINK_COUNTERS.getByName(`file:${fileId}`));
}
