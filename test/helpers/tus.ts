// Helpers for the tus tests: requests as a tus client sends them, deterministic bytes, and a
// look into the upload's Durable Object, R2 and the key's account.
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { expect } from 'vitest';
import { tailPrefix } from '../../src/tus/protocol';
import { call, createKey } from './worker';

export type Auth = Record<string, string>;
export const TUS = { 'Tus-Resumable': '1.0.0' };
export const OCTETS = { 'Content-Type': 'application/offset+octet-stream' };
export const MIB = 1024 * 1024;

/** A key with room for bursts of requests and (optionally) its own quota. */
export function newKey(name: string, overrides: { quota?: number; rateLimit?: number } = {}) {
  return createKey(name, {
    storageQuotaBytes: overrides.quota ?? null,
    rateLimitRequests: overrides.rateLimit ?? 100_000,
    // An hour's window: a test counting requests is not cut by a minute boundary (windows are aligned).
    rateLimitWindowSeconds: 3600,
  });
}

const utf8 = new TextEncoder();
export const base64 = (text: string) => btoa(String.fromCharCode(...utf8.encode(text)));

/** `Upload-Metadata` from plain values. */
export const metadata = (pairs: Record<string, string>) =>
  Object.entries(pairs)
    .map(([key, value]) => `${key} ${base64(value)}`)
    .join(',');

/** `size` deterministic bytes, not text (detected as application/octet-stream); `seed` varies them. */
export function binaryBytes(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < size; i += 4) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
    if (i + 1 < size) out[i + 1] = (state >>> 8) & 0xff;
    if (i + 2 < size) out[i + 2] = (state >>> 16) & 0xff;
    if (i + 3 < size) out[i + 3] = (state >>> 24) & 0xff;
  }
  // A zero first byte and no signature: never taken for text or any known format.
  if (size > 0) out[0] = 0;
  return out;
}

export type Created = { response: Response; path: string; id: string };

/** POST /api/v2/uploads (creation); the body, if given, is creation-with-upload. */
export async function createUpload(
  auth: Auth,
  length: number,
  meta: Record<string, string> = { filename: 'data.bin' },
  init: { headers?: Record<string, string>; body?: BodyInit; env?: Record<string, unknown> } = {},
): Promise<Created> {
  const headers: Record<string, string> = {
    ...TUS,
    ...auth,
    'Upload-Length': String(length),
    'Upload-Metadata': metadata(meta),
    ...(init.body === undefined ? {} : OCTETS),
    ...init.headers,
  };
  const response = await call('/api/v2/uploads', { method: 'POST', headers, body: init.body }, init.env);
  const location = response.headers.get('location') ?? '';
  const path = location ? new URL(location).pathname : '';
  return { response, path, id: path.split('/').pop() ?? '' };
}

/** Creation that must succeed. */
export async function created(auth: Auth, length: number, meta?: Record<string, string>): Promise<Created> {
  const result = await createUpload(auth, length, meta);
  if (result.response.status !== 201) {
    throw new Error(`creation failed: ${result.response.status} ${await result.response.text()}`);
  }
  return result;
}

export function patch(
  auth: Auth,
  path: string,
  offset: number,
  body: BodyInit | null,
  headers: Record<string, string> = {},
  envOverrides: Record<string, unknown> = {},
) {
  return call(
    path,
    { method: 'PATCH', headers: { ...TUS, ...auth, ...OCTETS, 'Upload-Offset': String(offset), ...headers }, body },
    envOverrides,
  );
}

/** PATCH that must succeed; returns the new offset. */
export async function patchOk(auth: Auth, path: string, offset: number, body: Uint8Array): Promise<number> {
  const response = await patch(auth, path, offset, body);
  if (response.status !== 204) throw new Error(`PATCH failed: ${response.status} ${await response.text()}`);
  return Number(response.headers.get('upload-offset'));
}

export const head = (auth: Auth, path: string, headers: Record<string, string> = {}) =>
  call(path, { method: 'HEAD', headers: { ...TUS, ...auth, ...headers } });

export const terminate = (auth: Auth, path: string) => call(path, { method: 'DELETE', headers: { ...TUS, ...auth } });

/** The upload's offset as HEAD reports it. */
export async function offsetOf(auth: Auth, path: string): Promise<number> {
  const response = await head(auth, path);
  expect(response.status).toBe(204);
  return Number(response.headers.get('upload-offset'));
}

/** Uploads `bytes` in PATCHes of `chunk` bytes from offset 0; returns the last response. */
export async function uploadAll(auth: Auth, path: string, bytes: Uint8Array, chunk: number): Promise<Response> {
  let offset = 0;
  let last: Response | undefined;
  while (offset < bytes.length || last === undefined) {
    const end = Math.min(bytes.length, offset + chunk);
    last = await patch(auth, path, offset, bytes.slice(offset, end));
    if (last.status !== 204) throw new Error(`PATCH at ${offset} failed: ${last.status} ${await last.text()}`);
    offset = Number(last.headers.get('upload-offset'));
    if (end === bytes.length) break;
  }
  return last;
}

/** The upload's Durable Object. */
export const uploadStub = (id: string) => env.TUS_UPLOADS.getByName(id);

export type StoredState = { r2Key: string; multipartId: string | null; forgetAt: number | null; expiresAt: number };

/** The upload's state as its object stores it. */
export async function stateOf(id: string): Promise<StoredState | undefined> {
  return runInDurableObject(uploadStub(id), (_instance, state) => state.storage.kv.get<StoredState>('upload'));
}

/** Whether R2 still takes parts for the upload's multipart upload. */
export async function multipartAlive(state: Pick<StoredState, 'r2Key' | 'multipartId'>): Promise<boolean> {
  if (!state.multipartId) throw new Error('no multipart upload');
  try {
    await env.FILES.resumeMultipartUpload(state.r2Key, state.multipartId).uploadPart(9999, 'x');
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until a PATCH holds the upload's lease (it has begun: the point where a test's paused or
 * aborted body means something), polling to a deadline: a fixed sleep is too short under load.
 */
export async function leaseHeld(id: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const stored = await runInDurableObject(uploadStub(id), (_instance, state) =>
      state.storage.kv.get<{ lease: unknown }>('upload'),
    );
    if (stored?.lease) return;
    if (Date.now() > deadline) throw new Error(`no PATCH took the lease of ${id} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Rewrites the upload's stored state (e.g. its expiry) and runs its alarm. */
export async function expireNow(id: string): Promise<void> {
  const stub = uploadStub(id);
  await runInDurableObject(stub, (_instance, state) => {
    const stored = state.storage.kv.get<{ expiresAt: number; lease: unknown }>('upload');
    if (!stored) throw new Error('no upload state');
    state.storage.kv.put('upload', { ...stored, expiresAt: Date.now() - 1, lease: null });
  });
  await runDurableObjectAlarm(stub);
}

/** Objects under the upload's temporary prefix (its tail). */
export async function tailObjects(id: string): Promise<string[]> {
  return (await env.FILES.list({ prefix: tailPrefix(id) })).objects.map((object) => object.key);
}

/** The key's account and holds, as its object reports them. */
export function usage(keyId: string) {
  return env.KEY_LIMITER.getByName(keyId).usage({ keyId });
}

export async function digestBase64(algorithm: string, bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest(algorithm, bytes));
  return btoa(String.fromCharCode(...digest));
}

/** A body that sends `bytes` up to `breakAt` in `chunk`-sized pieces, then fails (a connection dropped mid-PATCH). */
export function breakingBody(bytes: Uint8Array, breakAt: number, chunk = 256 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= breakAt) return controller.error(new Error('connection reset'));
      const end = Math.min(breakAt, offset + chunk);
      controller.enqueue(bytes.slice(offset, end));
      offset = end;
    },
  });
}

/**
 * A body that sends `bytes` up to `pauseAt`, then waits for `open()` before the rest. `paused`
 * resolves once its reader has taken the bytes before `pauseAt` and asks for more.
 */
export function pausedBody(bytes: Uint8Array, pauseAt: number) {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reachedPause: () => void = () => undefined;
  const paused = new Promise<void>((resolve) => {
    reachedPause = resolve;
  });
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent >= bytes.length) return controller.close();
      if (sent >= pauseAt) {
        reachedPause();
        await gate;
      }
      const end = sent < pauseAt ? pauseAt : bytes.length;
      controller.enqueue(bytes.slice(sent, end));
      sent = end;
    },
  });
  return { stream, open: () => open(), paused };
}

// ---- tus concatenation (test/tus/concat*.test.ts) ----

/** POST with Upload-Concat: partial and a length. */
export async function createPartial(auth: Auth, length: number, headers: Record<string, string> = {}) {
  const response = await call('/api/v2/uploads', {
    method: 'POST',
    headers: { ...TUS, ...auth, 'Upload-Length': String(length), 'Upload-Concat': 'partial', ...headers },
  });
  expect(response.status).toBe(201);
  const location = response.headers.get('location') ?? '';
  const path = new URL(location).pathname;
  return { response, location, path, id: path.split('/').pop() ?? '' };
}

/** A complete partial holding `bytes`, sent in PATCHes of `chunk` bytes. */
export async function partialOf(auth: Auth, bytes: Uint8Array, chunk = 5 * MIB) {
  const partial = await createPartial(auth, bytes.length);
  const last = await uploadAll(auth, partial.path, bytes, chunk);
  expect(last.status).toBe(204);
  expect(last.headers.get('upload-offset')).toBe(String(bytes.length));
  // Its last byte makes no file.
  expect(last.headers.has('x-file-id')).toBe(false);
  return partial;
}

export function createFinal(
  auth: Auth,
  urls: string[],
  meta?: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return call('/api/v2/uploads', {
    method: 'POST',
    headers: {
      ...TUS,
      ...auth,
      'Upload-Concat': `final;${urls.join(' ')}`,
      ...(meta ? { 'Upload-Metadata': metadata(meta) } : {}),
      ...headers,
    },
  });
}

export function joined(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
