// File requests belong to the ACCOUNT, not to the key that made them: a request keeps receiving
// after its owner rotates keys (a new key made with POST /keys, the old one revoked), its files
// land in the account where the new key sees them, and its uploads are charged to the account's
// storage, racing the uploads of any of the account's keys. Only an account left without an
// active, unexpired key makes its requests unknown (404).
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import {
  type Auth,
  getRequest,
  makeRequest,
  newOwner,
  type RequestRecord,
  receivedRows,
  send,
  textFile,
} from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { base64, OCTETS, TUS, usage } from '../helpers/tus';
import { call } from '../helpers/worker';

/** A second key of the owner's account, made by the owner through the API (every scope of its maker). */
async function rotate(owner: { id: string; auth: Auth }): Promise<{ id: string; auth: Auth }> {
  const made = await call('/api/v2/keys', {
    method: 'POST',
    headers: { ...owner.auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'rotated' }),
  });
  expect(made.status).toBe(201);
  const { data } = (await made.json()) as { data: { id: string; key: string } };
  const next = { id: data.id, auth: { Authorization: `Bearer ${data.key}` } };
  const revoked = await call(`/api/v2/keys/${owner.id}`, { method: 'DELETE', headers: next.auth });
  expect(revoked.status).toBe(200);
  expect((await call('/api/v2/requests', { headers: owner.auth })).status).toBe(401);
  return next;
}

/** A whole tus upload through tusUrl, without a key. */
async function tusUpload(request: Pick<RequestRecord, 'tusUrl'>, filename: string, content: string) {
  const created = await call(request.tusUrl, {
    method: 'POST',
    headers: {
      ...TUS,
      'Upload-Length': String(content.length),
      'Upload-Metadata': `filename ${base64(filename)},filetype ${base64('text/plain')}`,
    },
  });
  expect(created.status).toBe(201);
  const location = created.headers.get('location') ?? '';
  const patched = await call(location, {
    method: 'PATCH',
    headers: { ...TUS, ...OCTETS, 'Upload-Offset': '0' },
    body: content,
  });
  expect(patched.status).toBe(204);
  return location;
}

describe('file requests across key rotation', () => {
  it('keep receiving after the owner rotates keys; the files land in the account, visible to the new key', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxFiles: 5 });
    const next = await rotate(owner);

    // The public side still works, multipart and tus alike.
    expect((await call(`/api/v2/r/${request.url.split('/r/')[1]}`)).status).toBe(200);
    expect((await send(request, [textFile('after-rotation.txt', 20)])).status).toBe(201);
    await tusUpload(request, 'tus-after-rotation.txt', 'y'.repeat(30));

    const rows = await receivedRows(request.id);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.account_id).toBe(owner.id);

    // The new key sees the request, its counts and its files, and the files themselves.
    expect(await getRequest(next.auth, request.id)).toMatchObject({ fileCount: 2, bytes: 50, status: 'open' });
    const listed = await call(`/api/v2/requests/${request.id}/files`, { headers: next.auth });
    expect(listed.status).toBe(200);
    const received = ((await listed.json()) as { data: { files: { id: string; requestId: string }[] } }).data.files;
    expect(received.map((file) => file.id).sort()).toEqual(rows.map((row) => row.id).sort());
    const files = (await (await call('/api/v2/files', { headers: next.auth })).json()) as {
      data: { files: { id: string; requestId: string | null }[] };
    };
    expect(files.data.files.filter((file) => file.requestId === request.id)).toHaveLength(2);
    for (const row of rows) {
      const download = await call(`/api/v2/files/${row.id}/download`, { headers: next.auth });
      expect(download.status).toBe(200);
      expect((await download.text()).length).toBe(row.size);
    }
    // Charged to the account's storage object, which every key of the account shares.
    expect(await usage(owner.id)).toMatchObject({ usedBytes: 50, files: 2, heldBytes: 0, heldFiles: 0 });
  });

  it('charge the account exactly, racing the uploads of another of its keys', async () => {
    const owner = await newOwner({ quota: 5000 });
    const request = await makeRequest(owner.auth, { maxFiles: 20 });
    const next = await rotate(owner);
    const theirs = Array.from({ length: 6 }, (_, index) => send(request, [textFile(`r${index}.txt`, 1000)]));
    const mine = Array.from({ length: 6 }, (_, index) => {
      const body = new FormData();
      body.append('file', new File(['z'.repeat(1000)], `k${index}.txt`, { type: 'text/plain' }));
      return call('/api/v2/upload', { method: 'POST', headers: next.auth, body });
    });
    const responses = await Promise.all([...theirs, ...mine]);
    expect(responses.filter((response) => response.status === 201)).toHaveLength(5);
    for (const response of responses) if (response.status !== 201) expect(response.status).toBe(413);
    const used = await env.DB.prepare('SELECT SUM(size) AS bytes, COUNT(*) AS n FROM files WHERE account_id = ?1')
      .bind(owner.id)
      .first<{ bytes: number; n: number }>();
    expect(used).toEqual({ bytes: 5000, n: 5 });
    expect(await usage(owner.id)).toMatchObject({ usedBytes: 5000, files: 5, heldBytes: 0, heldFiles: 0 });
  });

  it('answer 404 REQUEST_NOT_FOUND once the account has no active, unexpired key', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const next = await rotate(owner);
    expect((await send(request, [textFile()])).status).toBe(201);
    // The account's only active key expires: its requests are unknown on every public path.
    await env.DB.prepare('UPDATE api_keys SET expires_at = ?2 WHERE id = ?1')
      .bind(next.id, new Date(Date.now() - 1000).toISOString())
      .run();
    await expectError(await send(request, [textFile()]), 404, 'REQUEST_NOT_FOUND', 'v2');
    await expectError(await call(`/api/v2/r/${request.url.split('/r/')[1]}`), 404, 'REQUEST_NOT_FOUND', 'v2');
    await expectError(
      await call(request.tusUrl, { method: 'POST', headers: { ...TUS, 'Upload-Length': '1' } }),
      404,
      'REQUEST_NOT_FOUND',
      'v2',
    );
    expect(await receivedRows(request.id)).toHaveLength(1);
  });
});
