import { env } from 'cloudflare:test';
import { expect } from 'vitest';
import type { CollectionRecord } from '../../src/collections/records';
import { crc32 } from '../../src/lib/crc32';
import { upload } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

export type { CollectionRecord };

export const COLLECTION_FIELDS = ['archiveUrl', 'bytes', 'createdAt', 'fileCount', 'id', 'name', 'note', 'updatedAt'];

export const json = (body: unknown, auth: Record<string, string>, method = 'POST'): RequestInit => ({
  method,
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

/** A fresh key (== account). */
export const account = (name = 'collections', overrides = {}) => createKey(name, overrides);

const encoder = new TextEncoder();

/**
 * Uploads a file through v2 and gives it its CRC-32 by SQL (the upload paths compute it on
 * another branch): with every member's CRC-32 known, an archive is rangeable.
 */
export async function uploadFile(
  auth: Record<string, string>,
  filename: string,
  content: string | Uint8Array,
  options: { crc?: boolean; type?: string; fields?: Record<string, string> } = {},
): Promise<{ id: string; bytes: Uint8Array }> {
  const bytes = typeof content === 'string' ? encoder.encode(content) : content;
  const { response, body } = await upload(
    'v2',
    auth,
    { filename, content: bytes as BodyInit, type: options.type ?? 'text/plain' },
    { fields: options.fields ?? {} },
  );
  expect(response.status, JSON.stringify(body)).toBe(201);
  const id = body.data.id as string;
  await setCrc(id, options.crc === false ? null : crc32(bytes));
  return { id, bytes };
}

/** Sets (or clears, with null) a file's CRC-32 column. */
export async function setCrc(fileId: string, value: number | null): Promise<void> {
  await env.DB.prepare('UPDATE files SET crc32 = ?2 WHERE id = ?1').bind(fileId, value).run();
}

export async function makeCollection(
  auth: Record<string, string>,
  body: Record<string, unknown> = { name: 'My collection' },
  overrides: Partial<Record<string, unknown>> = {},
): Promise<CollectionRecord> {
  const response = await call('/api/v2/collections', json(body, auth), overrides);
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: CollectionRecord }).data;
}

export async function readCollection(auth: Record<string, string>, id: string): Promise<CollectionRecord> {
  const response = await call(`/api/v2/collections/${id}`, { headers: auth });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return (JSON.parse(text) as { data: CollectionRecord }).data;
}

export async function addFiles(auth: Record<string, string>, id: string, fileIds: string[]) {
  return call(`/api/v2/collections/${id}/files`, json({ fileIds }, auth));
}

export async function memberIds(auth: Record<string, string>, id: string): Promise<string[]> {
  const response = await call(`/api/v2/collections/${id}/files?limit=100`, { headers: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { files: { id: string }[] } }).data.files.map((file) => file.id);
}

/** The whole body of a response as bytes. */
export const bytesOf = async (response: Response) => new Uint8Array(await response.arrayBuffer());

/** GET (or another method) of a collection's archive with extra headers. */
export const archive = (
  auth: Record<string, string>,
  id: string,
  headers: Record<string, string> = {},
  method = 'GET',
  overrides: Partial<Record<string, unknown>> = {},
) => call(`/api/v2/collections/${id}/archive`, { method, headers: { ...auth, ...headers } }, overrides);

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Moves a file's expiry into the past (it is then gone for every read, before the sweep). */
export async function expireFile(fileId: string): Promise<void> {
  await env.DB.prepare('UPDATE files SET expires_at = ?2 WHERE id = ?1')
    .bind(fileId, new Date(Date.now() - 1000).toISOString())
    .run();
}
