// Helpers for the file request tests: an owner with a key, requests made through the API, and
// uploads sent as people without a key send them.
import { env } from 'cloudflare:test';
import { expect } from 'vitest';
import { call, createKey } from './worker';

export type Auth = Record<string, string>;
export type RequestRecord = {
  id: string;
  label: string | null;
  message: string | null;
  url: string;
  uploadUrl: string;
  tusUrl: string;
  maxFiles: number;
  maxFileSize: number | null;
  maxBytes: number | null;
  allowedTypes: string[] | null;
  isPublic: boolean;
  hasPassword: boolean;
  fileCount: number;
  bytes: number;
  status: 'open' | 'closed' | 'expired' | 'full';
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  closedAt: string | null;
};
export type Receipt = {
  files: (
    | { success: true; name: string; size: number; mimeType: string }
    | { success: false; name: string; code: string }
  )[];
};

/** An owner: a key with room for bursts and (optionally) its own quota and file limit. */
export const newOwner = (overrides: { quota?: number; maxFiles?: number } = {}) =>
  createKey('owner', {
    rateLimitRequests: 100_000,
    storageQuotaBytes: overrides.quota ?? null,
    maxFiles: overrides.maxFiles ?? null,
  });

export async function makeRequest(auth: Auth, body: Record<string, unknown> = {}): Promise<RequestRecord> {
  const response = await call('/api/v2/requests', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { data: RequestRecord };
  expect(response.status, JSON.stringify(json)).toBe(201);
  return json.data;
}

export async function getRequest(auth: Auth, id: string): Promise<RequestRecord> {
  const response = await call(`/api/v2/requests/${id}`, { headers: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: RequestRecord }).data;
}

export async function patchRequest(auth: Auth, id: string, body: Record<string, unknown>) {
  return call(`/api/v2/requests/${id}`, {
    method: 'PATCH',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

export type SendFile = { filename: string; content: string | Uint8Array; type?: string };

/** POST uploadUrl without a key: one part named `file` per file. */
export function send(
  request: Pick<RequestRecord, 'uploadUrl'>,
  files: SendFile[],
  init: { headers?: Record<string, string>; env?: Record<string, unknown> } = {},
) {
  const data = new FormData();
  for (const file of files) data.append('file', new File([file.content], file.filename, { type: file.type ?? '' }));
  return call(request.uploadUrl, { method: 'POST', body: data, headers: init.headers ?? {} }, init.env);
}

export const textFile = (filename = 'notes.txt', size = 16): SendFile => ({
  filename,
  content: 'x'.repeat(size),
  type: 'text/plain',
});

/** HTTP Basic with an empty user name. */
export const basic = (password: string) => ({ Authorization: `Basic ${btoa(`:${password}`)}` });

/** The files rows of an owner that came through a request. */
export async function receivedRows(requestId: string) {
  const { results } = await env.DB.prepare(
    'SELECT id, account_id, size, is_public, request_id FROM files WHERE request_id = ?1',
  )
    .bind(requestId)
    .all<{ id: string; account_id: string; size: number; is_public: number; request_id: string }>();
  return results;
}

/** The holds open in a request's object (its uploads in flight). */
export const holdsOf = (requestId: string) => env.FILE_REQUESTS.getByName(requestId).openHolds();

/** Each response as `201`, or its status and error code (every body read, so none is left open). */
export const outcomes = (responses: Response[]) =>
  Promise.all(
    responses.map(async (response) => {
      const text = await response.text();
      return response.status === 201 ? '201' : `${response.status} ${(JSON.parse(text) as { code: string }).code}`;
    }),
  );

/** The token of a request's url. */
export const tokenOf = (request: Pick<RequestRecord, 'url'>) => request.url.split('/r/')[1] ?? '';
