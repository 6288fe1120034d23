import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import worker from '../src/index';
import { newKeyMaterial } from '../src/keys/key-material';
import { insertKey, type KeyOverrides } from '../src/storage/keys-repo';

export const ORIGIN = 'http://edgeshare.test';

export type TestEnv = typeof env;

/** Sends a request through the Worker's own fetch handler, with real local bindings. */
export async function call(path: string, init: RequestInit = {}, envOverrides: Partial<Record<string, unknown>> = {}) {
  const request = new Request(path.startsWith('http') ? path : `${ORIGIN}${path}`, init);
  const ctx = createExecutionContext();
  const response = await worker.fetch(request, { ...env, ...envOverrides } as TestEnv, ctx);
  await waitOnExecutionContext(ctx);
  return response;
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
    data.append(file.name ?? 'file', new File([file.content as BlobPart], file.filename, { type: file.type ?? '' }));
  }
  return data;
}

export async function upload(
  auth: Record<string, string>,
  file: Partial<FilePart> = {},
  fields: Record<string, string> = {},
  version: 'v1' | 'v2' = 'v1',
) {
  const body = form(
    [{ filename: file.filename ?? 'hello.txt', type: file.type ?? 'text/plain', content: file.content ?? 'hello world' }],
    fields,
  );
  const response = await call(`/api/${version}/upload`, { method: 'POST', headers: auth, body });
  return { response, body: (await response.json()) as any };
}
