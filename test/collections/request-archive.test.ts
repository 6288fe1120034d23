// GET /api/v2/requests/{id}/archive: every file a file request received (still in the account),
// oldest first, as one ZIP; requests:write like every owner route of file requests, and
// files:read for the bytes.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { newKeyMaterial } from '../../src/keys/key-material';
import { crc32 } from '../../src/lib/crc32';
import { SCOPES } from '../../src/limiter/scopes';
import { insertKey } from '../../src/storage/keys-repo';
import type { ErrorBody } from '../helpers/records';
import { makeRequest, newOwner, receivedRows, send } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { call } from '../helpers/worker';
import { readArchive } from '../helpers/zip-reader';
import { bytesOf, setCrc } from './collection-helpers';

const encoder = new TextEncoder();

/** A request that received these files, one upload after another (so their order is known). */
async function requestWith(files: { filename: string; content: string }[], label?: string) {
  const owner = await newOwner();
  const request = await makeRequest(owner.auth, label === undefined ? {} : { label });
  for (const file of files) {
    const response = await send(request, [{ ...file, type: 'text/plain' }]);
    expect(response.status).toBe(201);
    await response.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  for (const row of await receivedRows(request.id)) {
    const stored = files.find((file) => encoder.encode(file.content).length === row.size);
    await setCrc(row.id, crc32(encoder.encode(stored?.content ?? '')));
  }
  return { owner, request };
}

const archiveOf = (auth: Record<string, string>, id: string, headers: Record<string, string> = {}) =>
  call(`/api/v2/requests/${id}/archive`, { headers: { ...auth, ...headers } });

describe('GET /api/v2/requests/{id}/archive', () => {
  it('answers every file received, oldest first, named after the request’s label', async () => {
    const files = [
      { filename: 'first.txt', content: 'one' },
      { filename: 'second.txt', content: 'second!' },
      { filename: 'first.txt', content: 'third file' },
    ];
    const { owner, request } = await requestWith(files, 'Invoices');
    const response = await archiveOf(owner.auth, request.id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Invoices.zip"; filename*=UTF-8''Invoices.zip`,
    );
    const body = await bytesOf(response);
    expect(response.headers.get('content-length')).toBe(String(body.length));
    const parsed = readArchive(body);
    // Names made unique within the archive, as a desktop would.
    expect(parsed.entries.map((entry) => entry.name)).toEqual(['first.txt', 'second.txt', 'first (2).txt']);
    expect(parsed.members.map((member) => new TextDecoder().decode(member.data))).toEqual(
      files.map((file) => file.content),
    );
    const range = await archiveOf(owner.auth, request.id, { Range: 'bytes=5-24' });
    expect(range.status).toBe(206);
    expect(await bytesOf(range)).toEqual(body.subarray(5, 25));
  });

  it('leaves out files deleted since, and is a valid empty archive when none is left', async () => {
    const { owner, request } = await requestWith([{ filename: 'gone.txt', content: 'gone' }]);
    const [row] = await receivedRows(request.id);
    await call(`/api/v2/files/${row?.id}`, { method: 'DELETE', headers: owner.auth });
    const response = await archiveOf(owner.auth, request.id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toContain(`file-request-${request.id}.zip`);
    expect(readArchive(await bytesOf(response)).entries).toEqual([]);
  });

  it('answers 404 REQUEST_NOT_FOUND for an unknown, malformed or another account’s request', async () => {
    const { request } = await requestWith([{ filename: 'a.txt', content: 'a' }]);
    const other = await newOwner();
    for (const id of [request.id, 'A'.repeat(22), 'nope']) {
      await expectError(await archiveOf(other.auth, id), 404, 'REQUEST_NOT_FOUND', 'v2');
    }
  });

  it('needs requests:write, like every owner route of file requests, and files:read for the bytes', async () => {
    const { owner, request } = await requestWith([{ filename: 'a.txt', content: 'a' }]);
    for (const missing of ['requests:write', 'files:read'] as const) {
      const material = await newKeyMaterial();
      await insertKey(env.DB, { ...material, name: `without ${missing}` }, {}, new Date().toISOString(), {
        scopes: JSON.stringify(SCOPES.filter((scope) => scope !== missing)),
      });
      await env.DB.prepare('UPDATE api_keys SET account_id = ?1 WHERE id = ?2').bind(owner.id, material.id).run();
      const response = await archiveOf({ Authorization: `Bearer ${material.key}` }, request.id);
      const body = (await response.json()) as ErrorBody & { details: unknown };
      expect({ status: response.status, code: body.code, details: body.details }).toEqual({
        status: 403,
        code: 'FORBIDDEN',
        details: [{ scope: missing }],
      });
    }
  });
});
