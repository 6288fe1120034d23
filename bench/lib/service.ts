// The few edgeshare API calls the cases share, over HTTP only: the harness never reaches into the
// service's internals, so it keeps working while they change.
import { Readable } from 'node:stream';
import { serverTiming } from './server-timing.ts';
import { type FormPart, multipartBody, send } from './transfer.ts';

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export const FILE_TYPE = 'application/octet-stream';

/** A `file` part (or `files` parts for bulk) from files on disk. */
export const fileParts = (name: string, paths: string[]): FormPart[] =>
  paths.map((path, i) => ({ name, filename: `bench-${i + 1}.bin`, path, type: FILE_TYPE }));

/** POST a multipart form; throws unless the answer is `expected`; returns the parsed JSON and time. */
export async function postForm(url: URL, key: string | undefined, parts: FormPart[], expected = 201) {
  const form = multipartBody(parts);
  const reply = await send(url, {
    method: 'POST',
    headers: { ...(key ? bearer(key) : {}), 'content-type': form.contentType },
    body: form.body,
    length: form.length,
  });
  if (reply.status !== expected) throw new Error(`POST ${url.pathname}: ${reply.status} ${reply.body.slice(0, 300)}`);
  return { ms: reply.ms, json: JSON.parse(reply.body) as Record<string, unknown>, timing: serverTiming(reply.headers) };
}

/** POST /api/v2/upload of one file; returns the new file's id, the request's time and its Server-Timing. */
export async function uploadFile(base: URL, key: string, path: string) {
  const { ms, json, timing } = await postForm(new URL('/api/v2/upload', base), key, fileParts('file', [path]));
  return { id: (json.data as { id: string }).id, ms, timing };
}

/**
 * How R2 stored a file, read from the outside: an R2 multipart object's ETag ends in
 * `-<parts>`, a single put's is the plain MD5.
 */
export async function storedAs(base: URL, key: string, id: string): Promise<'multipart' | 'single'> {
  const reply = await send(new URL(`/api/v2/files/${id}/download`, base), { method: 'HEAD', headers: bearer(key) });
  if (reply.status !== 200) throw new Error(`HEAD download: ${reply.status}`);
  return /-\d+"?$/.test(String(reply.headers.etag ?? '')) ? 'multipart' : 'single';
}

/** A JSON request body for send(): the stream and its length. */
export function jsonBody(value: unknown): { body: Readable; length: number } {
  const bytes = Buffer.from(JSON.stringify(value));
  return { body: Readable.from([bytes]), length: bytes.length };
}

/** Deletes files through DELETE /api/v2/files/bulk, 50 ids a request. */
export async function deleteFiles(base: URL, key: string, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 50) {
    const reply = await send(new URL('/api/v2/files/bulk', base), {
      method: 'DELETE',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      ...jsonBody({ ids: ids.slice(i, i + 50) }),
    });
    if (reply.status !== 200) throw new Error(`bulk delete: ${reply.status} ${reply.body.slice(0, 200)}`);
  }
}
