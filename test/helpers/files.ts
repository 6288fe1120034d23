// The files API beyond single uploads: reading records back, bulk calls, downloads, ids, Server-Timing.
import { expect } from 'vitest';
import type { BulkUploadBody, FileRecordOf, FileRecordV2, Success } from './records';
import { type ApiVersion, api, json, readJson } from './responses';
import { type Auth, type EnvOverrides, type FilePart, filesForm } from './upload';
import { call } from './worker';

/** A v2 JSON body must be an object with an integer `_perf` of at least 0; returns it. */
export function expectPerfValue(body: unknown): number {
  const perf = (body as { _perf?: unknown })._perf;
  expect(Number.isInteger(perf), `_perf is ${JSON.stringify(perf)}`).toBe(true);
  expect(perf as number).toBeGreaterThanOrEqual(0);
  return perf as number;
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

export function bulkUpload(auth: Auth, body: BodyInit, overrides: EnvOverrides = {}, headers: Auth = {}) {
  return call('/api/v2/upload/bulk', { method: 'POST', headers: { ...auth, ...headers }, body }, overrides);
}

/** Bulk-uploads files and returns the ids of the stored ones; throws unless every file landed. */
export async function bulkUploadOk(auth: Auth, files: FilePart[]): Promise<string[]> {
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

/** The ids in a v2 list (first page of 100). */
export async function listedIds(auth: Auth): Promise<string[]> {
  const response = await call('/api/v2/files?limit=100', { headers: auth });
  expect(response.status).toBe(200);
  const body = await json<{ data: { files: FileRecordV2[] } }>(response);
  return body.data.files.map((file) => file.id).sort();
}

export async function downloadBytes(auth: Auth, id: string, version: 'v1' | 'v2' = 'v2') {
  const response = await call(`/api/${version}/files/${id}/download`, { headers: auth });
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()), response };
}

/** The bytes of a FilePart's content given as text or bytes. */
export const bytesOf = (content: BodyInit) =>
  typeof content === 'string' ? new TextEncoder().encode(content) : (content as Uint8Array);

/** A well-formed file id (22 base64url characters) that no file has. */
export function unknownId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

export const tokenOf = (shareUrl: string) => new URL(shareUrl).pathname.replace(/^\/share\//, '');

/** Reads one file record through `version` of the API. */
export async function getRecord<V extends ApiVersion = 'v1'>(
  auth: Auth,
  id: string,
  version: V = 'v1' as V,
): Promise<FileRecordOf<V>> {
  const response = await call(api(version, `/files/${id}`), { headers: auth });
  if (response.status !== 200) throw new Error(`get failed: ${response.status} ${await response.text()}`);
  return (await readJson<Success<FileRecordOf<V>>>(version, response)).data;
}
