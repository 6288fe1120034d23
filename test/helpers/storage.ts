// Storage as tests see it: keys with limits, uploads of exact sizes
// (buffered or streamed without a Content-Length), direct D1/R2 inspection and seeding, the
// sweep, and thin fault-injecting wrappers around the FILES and DB bindings.
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from 'cloudflare:test';
import { expect } from 'vitest';
import { getConfig, orphanGraceMs } from '../../src/config';
import worker from '../../src/index';
import { randomBase64Url } from '../../src/lib/crypto';
import type { Usage } from '../../src/limiter/key-limiter-contract';
import { type SweepReport, sweep } from '../../src/maintenance/sweep';
import { blobKey } from '../../src/storage/blobs';
import { type FileRow, insertFiles } from '../../src/storage/files-repo';
import type { BulkUploadBody, BulkUploadItem, UploadRecord } from './records';
import { type Auth, type EnvOverrides, filePartHeaders, MULTIPART, type RawPart, rawMultipart } from './upload';
import { call, createKey } from './worker';

export type Version = 'v1' | 'v2';
export type TestKey = Awaited<ReturnType<typeof createKey>>;

/** A key with its own storage quota (or the configured one) and room for bursts of requests. */
export function newKey(name: string, storageQuotaBytes?: number): Promise<TestKey> {
  return createKey(name, { storageQuotaBytes: storageQuotaBytes ?? null, rateLimitRequests: 100_000 });
}

// ---- bodies ----

/** `size` bytes of printable ASCII (detected as text/plain); `seed` varies the content. */
export function textBytes(size: number, seed = 'x'): Uint8Array {
  const line = new TextEncoder().encode(`${seed} lorem ipsum dolor sit amet\n`);
  const out = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += line.length) out.set(line.subarray(0, size - offset), offset);
  return out;
}

const sizedFile = (filename: string, size: number) => ({ filename, content: textBytes(size, filename) });

/** A multipart body of text files (part name `name`) plus fields, as one buffer. */
export function multipartOf(
  files: { filename: string; content: Uint8Array }[],
  fields: Record<string, string> = {},
  name = 'file',
): Uint8Array {
  const parts: RawPart[] = Object.entries(fields).map(([field, value]) => ({
    headers: [`Content-Disposition: form-data; name="${field}"`],
    content: value,
  }));
  for (const file of files)
    parts.push({ headers: filePartHeaders(file.filename, 'text/plain', name), content: file.content });
  return rawMultipart(parts);
}

/** A stream of `bytes` in chunks: a body with no Content-Length (sent chunked). */
export function streamOf(bytes: Uint8Array, chunkSize = 64 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

/**
 * A body that sends everything before `marker` at once, then waits: `open()` sends the rest,
 * `fail()` breaks the body instead (a client gone mid-upload). No Content-Length.
 */
export function gatedBody(body: Uint8Array, marker: string) {
  const at = indexOfText(body, marker);
  if (at < 0) throw new Error(`marker ${marker} not in body`);
  let open: () => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const gate = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  // Nobody may be waiting on the gate when it fails: keep that from being an unhandled rejection.
  gate.catch(() => undefined);
  const pieces = [body.slice(0, at), body.slice(at)];
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const piece = pieces[sent];
      if (!piece) return controller.close();
      if (sent === 1) await gate;
      sent++;
      controller.enqueue(piece);
    },
  });
  return { stream, open: () => open(), fail: (error = new Error('client went away')) => fail(error) };
}

function indexOfText(bytes: Uint8Array, text: string): number {
  const needle = new TextEncoder().encode(text);
  outer: for (let i = 0; i + needle.length <= bytes.length; i++) {
    for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** Waits until `check` holds (polling), or fails the test after `ms`. */
export async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * POSTs a multipart body to `path`. A buffer goes with its Content-Length, so the request
 * reserves that much storage as it is admitted; `streamed` sends a stream with none, so the
 * upload reserves as its bytes arrive.
 */
export function postMultipart(
  auth: Auth,
  path: string,
  body: Uint8Array,
  options: { streamed?: boolean; overrides?: EnvOverrides } = {},
): Promise<Response> {
  const init: RequestInit = { method: 'POST', headers: { ...MULTIPART, ...auth } };
  if (options.streamed) {
    init.body = streamOf(body);
    // The point of a streamed body: the Worker cannot know its length up front.
    expect(new Request('http://check.test', { ...init, body: streamOf(body) }).headers.has('content-length')).toBe(
      false,
    );
  } else {
    // What an HTTP client sends with a buffered body (a Request built here would not show it).
    init.headers = { ...init.headers, 'Content-Length': String(body.length) };
    init.body = body;
  }
  return call(path, init, options.overrides);
}

/** Uploads one text file of `size` bytes through `version`; returns the response. */
export function uploadSized(
  auth: Auth,
  size: number,
  options: { version?: Version; fields?: Record<string, string>; streamed?: boolean; overrides?: EnvOverrides } = {},
): Promise<Response> {
  const body = multipartOf([sizedFile(`file-${size}.txt`, size)], options.fields);
  return postMultipart(auth, `/api/${options.version ?? 'v1'}/upload`, body, options);
}

export type Uploaded = UploadRecord;

/** Uploads one text file of `size` bytes; fails the test unless 201. */
export async function uploadSizedOk(
  auth: Auth,
  size: number,
  options: { version?: Version; fields?: Record<string, string>; overrides?: EnvOverrides } = {},
): Promise<Uploaded> {
  const response = await uploadSized(auth, size, options);
  const body = await response.json<{ data: Uploaded }>();
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.data;
}

/** A v2 bulk upload of text files with the given sizes, named f0.txt, f1.txt, …; must answer 201. */
export async function bulkUploadSized(auth: Auth, sizes: number[], overrides: EnvOverrides = {}) {
  const files = sizes.map((size, index) => sizedFile(`f${index}.txt`, size));
  const response = await postMultipart(auth, '/api/v2/upload/bulk', multipartOf(files, {}, 'files'), { overrides });
  const body = await response.json<BulkUploadBody>();
  expect(response.status, JSON.stringify(body)).toBe(201);
  expect(body.data.results).toHaveLength(sizes.length);
  return body.data;
}

export const succeeded = (results: BulkUploadItem[]) => results.flatMap((item) => (item.success ? [item.data] : []));

export function deleteOne(auth: Auth, id: string, version: Version = 'v1', overrides: EnvOverrides = {}) {
  return call(`/api/${version}/files/${id}`, { method: 'DELETE', headers: auth }, overrides);
}

export function deleteBulk(auth: Auth, ids: string[], overrides: EnvOverrides = {}) {
  return call(
    '/api/v2/files/bulk',
    { method: 'DELETE', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ ids }) },
    overrides,
  );
}

// ---- the key's account, rows and blobs ----

/** The key's account, read from its object (at `now`, default the real clock). */
export function usage(keyId: string, now?: number): Promise<Usage> {
  return env.KEY_LIMITER.getByName(keyId).usage({ keyId, now });
}

/** Bytes and number of the key's live (unexpired) rows. */
export async function liveRows(keyId: string, now = Date.now()): Promise<{ bytes: number; files: number }> {
  const row = await env.DB.prepare(
    'SELECT COALESCE(SUM(size), 0) AS bytes, COUNT(*) AS files FROM files WHERE account_id = ?1 AND (expires_at IS NULL OR expires_at > ?2)',
  )
    .bind(keyId, new Date(now).toISOString())
    .first<{ bytes: number; files: number }>();
  return row ?? { bytes: 0, files: 0 };
}

export async function rowsSum(keyId: string): Promise<number> {
  return (await liveRows(keyId)).bytes;
}

/** Ids of a key's rows in D1 (expired ones included), sorted. */
export async function rowIds(keyId: string): Promise<string[]> {
  const { results } = await env.DB.prepare('SELECT id FROM files WHERE account_id = ?1 ORDER BY id')
    .bind(keyId)
    .all<{ id: string }>();
  return results.map((row) => row.id);
}

/** Object keys under the key's prefix in R2, sorted (every page of the listing). */
export async function blobKeys(keyId: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.FILES.list({ prefix: `files/${keyId}/`, cursor });
    keys.push(...page.objects.map((object) => object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return keys.sort();
}

export const keysFor = (keyId: string, ids: string[]) => ids.map((id) => blobKey(keyId, id)).sort();

/** Exactly these files are stored for the key: a row and a blob each, nothing else. */
export async function expectStored(keyId: string, ids: string[]): Promise<void> {
  expect(await rowIds(keyId)).toEqual([...ids].sort());
  expect(await blobKeys(keyId)).toEqual(keysFor(keyId, ids));
}

/** The account agrees with the live rows in D1 and no upload holds storage. */
export async function expectAccountSettled(keyId: string, usedBytes?: number): Promise<void> {
  const live = await liveRows(keyId);
  if (usedBytes !== undefined) expect(live.bytes).toBe(usedBytes);
  expect(await usage(keyId)).toEqual({ usedBytes: live.bytes, files: live.files, heldBytes: 0, heldFiles: 0 });
}

export async function blobDeletionsOf(keyId: string): Promise<string[]> {
  const { results } = await env.DB.prepare('SELECT r2_key FROM blob_deletions WHERE key_id = ?1 ORDER BY r2_key')
    .bind(keyId)
    .all<{ r2_key: string }>();
  return results.map((row) => row.r2_key);
}

/**
 * Moves files' expiry, as changing it through the API does: the rows first, then the owners'
 * accounts (which take expired files off the moment they expire).
 */
export async function setExpiresAt(ids: string[], expiresAt: string): Promise<void> {
  const before = await env.DB.batch(
    ids.map((id) => env.DB.prepare('SELECT id, account_id, size, expires_at FROM files WHERE id = ?1').bind(id)),
  );
  await env.DB.batch(
    ids.map((id) => env.DB.prepare('UPDATE files SET expires_at = ?2 WHERE id = ?1').bind(id, expiresAt)),
  );
  const rows = before.flatMap(
    (result) => result.results as { id: string; account_id: string; size: number; expires_at: string | null }[],
  );
  for (const row of rows) {
    await env.KEY_LIMITER.getByName(row.account_id).reschedule({
      keyId: row.account_id,
      files: [{ id: row.id, size: row.size, expiresAt, previous: row.expires_at }],
    });
  }
}

export type SeedSpec = { size: number; expiresAt?: string | null; uploadedAt?: string; blob?: boolean; id?: string };

/**
 * Writes file rows straight into D1 (and, unless `blob: false`, their blobs into R2), as files
 * stored before this code ran would be. Returns the rows.
 */
export async function seedFiles(keyId: string, specs: SeedSpec[]): Promise<FileRow[]> {
  const rows = specs.map((spec): FileRow => {
    const id = spec.id ?? randomBase64Url(16);
    const uploadedAt = spec.uploadedAt ?? new Date().toISOString();
    return {
      id,
      account_id: keyId,
      filename: `seeded_${id}.txt`,
      original_name: 'seeded.txt',
      size: spec.size,
      mime_type: 'text/plain',
      r2_key: blobKey(keyId, id),
      etag: `"${id}"`,
      share_token: randomBase64Url(24),
      is_public: 1,
      download_count: 0,
      uploaded_at: uploadedAt,
      updated_at: uploadedAt,
      expires_at: spec.expiresAt ?? null,
      // As a file stored before digests: the backfill's to fill in.
      sha256: null,
      crc32: null,
      moderation_state: null,
      moderation_statement: null,
      moderated_at: null,
      scan_status: null,
      scan_signature: null,
      scanned_at: null,
      released_at: null,
    };
  });
  for (let start = 0; start < rows.length; start += 100) await insertFiles(env.DB, rows.slice(start, start + 100));
  const withBlobs = rows.filter((_, index) => specs[index]?.blob !== false);
  for (let start = 0; start < withBlobs.length; start += 50) {
    await Promise.all(
      withBlobs
        .slice(start, start + 50)
        .map((row) => env.FILES.put(row.r2_key, textBytes(row.size), { customMetadata: { keyId, fileId: row.id } })),
    );
  }
  return rows;
}

// ---- the sweep ----

/** Runs the Worker's scheduled handler (the cron) once, with the real bindings and clock. */
export async function runCron(): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController(), env, ctx);
  await waitOnExecutionContext(ctx);
}

/** How old a blob without a row must be before the sweep deletes it, with the test configuration. */
export const GRACE_MS = orphanGraceMs(getConfig(env));

/** One sweep at a chosen time (e.g. past GRACE_MS ahead, to judge blobs and rows as orphans). */
export function sweepAt(now: number, bucket: R2Bucket = env.FILES, budgetMs?: number): Promise<SweepReport> {
  return sweep({
    db: env.DB,
    bucket,
    accounts: env.ACCOUNT_STORAGE,
    uploads: env.TUS_UPLOADS,
    now,
    graceMs: GRACE_MS,
    budgetMs,
  });
}

const quiet = (report: SweepReport) => Object.values(report).every((value) => value === 0 || value === false);

/**
 * Sweeps until a whole pass over the bucket (the listing cursor back at the start) changes
 * nothing: the sweep reads one listing page per run, and storage is shared by the file's tests.
 */
export async function sweepUntilQuiet(now: number): Promise<SweepReport[]> {
  const reports: SweepReport[] = [];
  let quietSinceStart = false;
  for (let run = 0; run < 50; run++) {
    const atStart = (await sweepCursor()) === undefined;
    if (atStart) quietSinceStart = true;
    const report = await sweepAt(now);
    reports.push(report);
    if (!quiet(report)) quietSinceStart = false;
    if (quietSinceStart && (await sweepCursor()) === undefined) return reports;
  }
  throw new Error(`sweep did not settle: ${JSON.stringify(reports)}`);
}

async function sweepCursor(): Promise<string | undefined> {
  const row = await env.DB.prepare("SELECT value FROM sweep_state WHERE name = 'r2_cursor'").first<{ value: string }>();
  return row?.value;
}

// ---- fault-injecting wrappers: thin proxies that delegate everything they do not break ----

function delegate<T extends object>(inner: T, overrides: Partial<Record<PropertyKey, unknown>>): T {
  return new Proxy(inner, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * An R2 bucket whose `failOn`-th put (1-based) rejects; the calls are counted. With `afterWrite`
 * the object is written first (a reply lost on the way back), so the caller must remove it.
 */
export function failingPutBucket(inner: R2Bucket, failOn: number, options: { afterWrite?: boolean } = {}) {
  const calls = { put: 0 };
  const put = async (...args: Parameters<R2Bucket['put']>) => {
    if (++calls.put !== failOn) return inner.put(...args);
    if (options.afterWrite) await inner.put(...args);
    throw new Error('injected R2 put failure');
  };
  return { bucket: delegate(inner, { put }), calls };
}

/**
 * An R2 bucket whose multipart uploads complete (the object is written) and then reject, as a
 * reply lost on the way back would: the caller cannot tell, and must clean up. Both new and
 * resumed multipart uploads; the completions are counted.
 */
export function failingCompleteBucket(inner: R2Bucket) {
  const calls = { complete: 0 };
  const failing = (upload: R2MultipartUpload) =>
    delegate(upload, {
      complete: async (parts: R2UploadedPart[]) => {
        calls.complete++;
        await upload.complete(parts);
        throw new Error('injected R2 complete failure (after completing)');
      },
    });
  const bucket = delegate(inner, {
    createMultipartUpload: async (...args: Parameters<R2Bucket['createMultipartUpload']>) =>
      failing(await inner.createMultipartUpload(...args)),
    resumeMultipartUpload: (...args: Parameters<R2Bucket['resumeMultipartUpload']>) =>
      failing(inner.resumeMultipartUpload(...args)),
  });
  return { bucket, calls };
}

/** An R2 bucket whose delete always rejects (the object stays); the calls are counted. */
export function failingDeleteBucket(inner: R2Bucket) {
  const calls = { delete: 0 };
  const bucket = delegate(inner, {
    delete: () => {
      calls.delete++;
      return Promise.reject(new Error('injected R2 delete failure'));
    },
  });
  return { bucket, calls };
}

const INSERT_FILES = /^\s*INSERT\s+INTO\s+files\b/i;
// Marks a wrapped statement; read through any proxy the Worker adds around it (v2 timing).
const FAILS = Symbol('fails');

/**
 * A D1 database on which any statement inserting into `files` fails when it runs, alone or in a
 * batch (the R2 write before it has happened by then). Every other statement delegates.
 */
export function failingFilesInsertDb(inner: D1Database) {
  const calls = { inserts: 0 };
  const reject = () => {
    calls.inserts++;
    return Promise.reject(new Error('injected D1 insert failure'));
  };
  const wrapStatement = (statement: D1PreparedStatement): D1PreparedStatement => {
    const wrapped = delegate(statement, {
      bind: (...values: unknown[]) => wrapStatement(statement.bind(...values)),
      run: reject,
      all: reject,
      first: reject,
      raw: reject,
      [FAILS]: true,
    });
    return wrapped;
  };
  const db = delegate(inner, {
    prepare: (query: string) => {
      const statement = inner.prepare(query);
      return INSERT_FILES.test(query) ? wrapStatement(statement) : statement;
    },
    batch: (statements: D1PreparedStatement[]) =>
      statements.some((statement) => Reflect.get(statement, FAILS) === true) ? reject() : inner.batch(statements),
  });
  return { db, calls };
}

// ---- What a key has stored ----

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

/** Asserts that a key has neither blobs in R2 nor rows in D1 (nothing half-written). */
export async function expectNothingStored(keyId: string): Promise<void> {
  expect((await blobsOf(keyId)).map((object) => object.key)).toEqual([]);
  expect(await rowCount(keyId)).toBe(0);
}

// ---- More fault-injecting wrappers ----

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
