// tus through a request's tusUrl (no key): limits at creation with a reservation, resource paths
// only for the request's own uploads, and a request that closes or expires mid-upload.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { unreachableObjects } from '../helpers/rate-limits';
import {
  getRequest,
  makeRequest,
  newOwner,
  outcomes,
  patchRequest,
  type RequestRecord,
  receivedRows,
  send,
  textFile,
} from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { base64, binaryBytes, MIB, multipartAlive, OCTETS, stateOf, TUS, tailObjects, usage } from '../helpers/tus';
import { call } from '../helpers/worker';

const meta = (filename: string, extra = '') => `filename ${base64(filename)}${extra}`;

function create(
  request: Pick<RequestRecord, 'tusUrl'>,
  length: number,
  init: { filename?: string; body?: Uint8Array | string; headers?: Record<string, string> } = {},
) {
  return call(request.tusUrl, {
    method: 'POST',
    headers: {
      ...TUS,
      'Upload-Length': String(length),
      'Upload-Metadata': meta(init.filename ?? 'data.bin'),
      ...(init.body === undefined ? {} : OCTETS),
      ...init.headers,
    },
    body: init.body,
  });
}

const patchAt = (location: string, offset: number, body: Uint8Array | string, headers: Record<string, string> = {}) =>
  call(location, {
    method: 'PATCH',
    headers: { ...TUS, ...OCTETS, 'Upload-Offset': String(offset), ...headers },
    body,
  });

const holdsOf = (requestId: string) => env.FILE_REQUESTS.getByName(requestId).openHolds();

/** A request with a tus upload half done: an R2 multipart upload, the owner's reservation, the request's slot. */
async function halfDone() {
  const owner = await newOwner();
  const request = await makeRequest(owner.auth, { maxFiles: 2 });
  const created = await create(request, 20 * MIB);
  expect(created.status).toBe(201);
  const location = created.headers.get('location') ?? '';
  const id = location.split('/').pop() ?? '';
  expect((await patchAt(location, 0, binaryBytes(9 * MIB, 7))).status).toBe(204);
  const state = await stateOf(id);
  if (!state) throw new Error('no state');
  expect(await multipartAlive(state)).toBe(true);
  expect(await usage(owner.id)).toMatchObject({ heldBytes: 20 * MIB, heldFiles: 1 });
  expect(await holdsOf(request.id)).toEqual([id]);
  return { owner, request, location, id, state };
}

async function expectFreed(upload: Awaited<ReturnType<typeof halfDone>>) {
  expect(await multipartAlive(upload.state)).toBe(false);
  expect(await tailObjects(upload.id)).toEqual([]);
  expect(await usage(upload.owner.id)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
  expect(await holdsOf(upload.request.id)).toEqual([]);
  expect((await env.FILES.list({ prefix: `files/${upload.owner.id}/` })).objects).toEqual([]);
}

describe('tus through tusUrl', () => {
  it('creates, resumes and completes an upload without a key; the file lands in the account with requestId', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const bytes = binaryBytes(300_000, 3);
    const created = await create(request, bytes.length, { filename: 'big.bin' });
    expect(created.status).toBe(201);
    expect(created.headers.get('tus-resumable')).toBe('1.0.0');
    const location = created.headers.get('location') ?? '';
    expect(location.startsWith(`${request.tusUrl}/`)).toBe(true);
    expect((await patchAt(location, 0, bytes.slice(0, 100_000))).status).toBe(204);
    const head = await call(location, { method: 'HEAD', headers: TUS });
    expect(head.status).toBe(204);
    expect(head.headers.get('upload-offset')).toBe('100000');
    const last = await patchAt(location, 100_000, bytes.slice(100_000));
    expect(last.status).toBe(204);
    expect(last.headers.get('upload-offset')).toBe(String(bytes.length));
    const rows = await receivedRows(request.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ account_id: owner.id, size: bytes.length, is_public: 0 });
    expect(await getRequest(owner.auth, request.id)).toMatchObject({ fileCount: 1, bytes: bytes.length });
    expect(await holdsOf(request.id)).toEqual([]);
    expect(await usage(owner.id)).toMatchObject({ usedBytes: bytes.length, files: 1, heldBytes: 0, heldFiles: 0 });
  });

  it('reaches no key’s object, from creation to the file: the owner is the account, not a key', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    // Every key's object is down: an upload that no key sends must not need one.
    const keys = unreachableObjects(env.KEY_LIMITER);
    const down = { KEY_LIMITER: keys.binding };
    const bytes = binaryBytes(200_000, 5);
    const headers = { ...TUS, 'Upload-Length': String(bytes.length), 'Upload-Metadata': meta('keyless.bin') };
    const created = await call(request.tusUrl, { method: 'POST', headers }, down);
    expect(created.status, await created.clone().text()).toBe(201);
    expect(await usage(owner.id)).toMatchObject({ heldBytes: bytes.length, heldFiles: 1 });
    const location = created.headers.get('location') ?? '';
    const patched = await call(
      location,
      { method: 'PATCH', headers: { ...TUS, ...OCTETS, 'Upload-Offset': '0' }, body: bytes },
      down,
    );
    expect(patched.status).toBe(204);
    expect(keys.calls).toEqual([]);
    const [row] = await receivedRows(request.id);
    expect(row).toMatchObject({ account_id: owner.id, size: bytes.length });
    expect(await usage(owner.id)).toMatchObject({ usedBytes: bytes.length, files: 1, heldBytes: 0, heldFiles: 0 });
    const blob = await env.FILES.head(`files/${owner.id}/${row?.id}`);
    expect(blob?.customMetadata).toEqual({ accountId: owner.id, fileId: row?.id });
  });

  it('answers OPTIONS with the tus capabilities, like /uploads', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const response = await call(request.tusUrl, { method: 'OPTIONS' });
    expect(response.headers.get('tus-extension')).toContain('creation');
    expect(response.headers.get('tus-version')).toBe('1.0.0');
  });

  it('ignores the uploader’s isPublic metadata: the request decides', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const response = await create(request, 5, {
      filename: 'a.txt',
      body: 'hello',
      headers: { 'Upload-Metadata': meta('a.txt', `,isPublic ${base64('true')}`) },
    });
    expect(response.status).toBe(201);
    expect((await receivedRows(request.id))[0]?.is_public).toBe(0);
  });

  it('checks every limit at creation, before any byte: size, request bytes, full, quota; a refusal holds nothing', async () => {
    const owner = await newOwner({ quota: 10 * MIB });
    const request = await makeRequest(owner.auth, { maxFileSize: 4 * MIB, maxBytes: 6 * MIB, maxFiles: 2 });
    await expectError(await create(request, 4 * MIB + 1), 413, 'FILE_TOO_LARGE', 'v2');
    const first = await create(request, 4 * MIB);
    expect(first.status).toBe(201);
    await expectError(await create(request, 3 * MIB), 413, 'FILE_TOO_LARGE', 'v2');
    const second = await create(request, 2 * MIB);
    expect(second.status).toBe(201);
    await expectError(await create(request, 1), 410, 'REQUEST_FULL', 'v2');
    await expectError(await create(request, 1, { filename: 'evil.exe' }), 415, 'INVALID_FILE_TYPE', 'v2');
    expect(await holdsOf(request.id)).toHaveLength(2);
    expect(await usage(owner.id)).toMatchObject({ heldBytes: 6 * MIB, heldFiles: 2 });

    const other = await makeRequest(owner.auth);
    await expectError(await create(other, 5 * MIB), 413, 'STORAGE_EXCEEDED', 'v2');
    expect(await holdsOf(other.id)).toEqual([]);
    expect(await usage(owner.id)).toMatchObject({ heldBytes: 6 * MIB, heldFiles: 2 });
  });

  it('holds exactly 3 slots when 6 creations race for a 3-file request', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxFiles: 3 });
    const responses = await Promise.all(Array.from({ length: 6 }, () => create(request, 1000)));
    expect(responses.map((response) => response.status).sort()).toEqual([201, 201, 201, 410, 410, 410]);
    expect(await holdsOf(request.id)).toHaveLength(3);
    // The refused ones gave the owner's reservation back.
    expect(await usage(owner.id)).toMatchObject({ heldBytes: 3000, heldFiles: 3 });
  });

  it('holds exactly each Upload-Length in maxBytes: creations racing raw and form uploads all fit when they sum to it', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxBytes: 5000, maxFiles: 20 });
    const raw = (i: number) =>
      call(`${request.uploadUrl}/raw${i}.txt`, {
        method: 'PUT',
        headers: { 'Content-Type': 'text/plain', 'Content-Length': '1000' },
        body: 'r'.repeat(1000),
      });
    const responses = await Promise.all([
      create(request, 1000, { filename: 'a.txt' }),
      raw(1),
      send(request, [textFile('form.txt', 1000)]),
      create(request, 1000, { filename: 'b.txt' }),
      raw(2),
    ]);
    const locations = [0, 3].map((i) => responses[i]?.headers.get('location') ?? '');
    expect(await outcomes(responses)).toEqual(Array(5).fill('201'));
    // The two tus uploads hold their whole length: nothing else fits meanwhile.
    expect(await holdsOf(request.id)).toHaveLength(2);
    await expectError(await create(request, 1), 413, 'FILE_TOO_LARGE', 'v2');
    for (const location of locations) expect((await patchAt(location, 0, 't'.repeat(1000))).status).toBe(204);
    expect(await getRequest(owner.auth, request.id)).toMatchObject({ fileCount: 5, bytes: 5000, status: 'full' });

    // Six creations at once into 5,000: exactly five hold their 1,000 bytes, the sixth is refused.
    const other = await makeRequest(owner.auth, { maxBytes: 5000, maxFiles: 20 });
    const six = await outcomes(await Promise.all(Array.from({ length: 6 }, () => create(other, 1000))));
    expect(six.sort()).toEqual([...Array(5).fill('201'), '413 FILE_TOO_LARGE']);
    expect(await holdsOf(other.id)).toHaveLength(5);
  });

  it('refuses a type outside allowedTypes at the first bytes: the upload ends and its slot is freed', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { allowedTypes: ['image/*'] });
    const created = await create(request, 5000, { filename: 'a.bin' });
    const location = created.headers.get('location') ?? '';
    await expectError(await patchAt(location, 0, binaryBytes(5000, 5)), 415, 'INVALID_FILE_TYPE', 'v2');
    expect(await holdsOf(request.id)).toEqual([]);
    expect(await usage(owner.id)).toMatchObject({ heldBytes: 0, heldFiles: 0 });
  });

  it('knows only the request’s own uploads: another request’s or a keyed upload is 404', async () => {
    const owner = await newOwner();
    const mine = await makeRequest(owner.auth);
    const theirs = await makeRequest(owner.auth);
    const created = await create(theirs, 100);
    const id = (created.headers.get('location') ?? '').split('/').pop();
    const response = await call(`${mine.tusUrl}/${id}`, { method: 'HEAD', headers: TUS });
    expect(response.status).toBe(404);
    await expectError(await patchAt(`${mine.tusUrl}/${id}`, 0, 'x'), 404, 'FILE_NOT_FOUND', 'v2');
    const keyed = await call('/api/v2/uploads', {
      method: 'POST',
      headers: { ...TUS, ...owner.auth, 'Upload-Length': '10', 'Upload-Metadata': meta('k.bin') },
    });
    const keyedId = (keyed.headers.get('location') ?? '').split('/').pop();
    await expectError(await patchAt(`${mine.tusUrl}/${keyedId}`, 0, 'x'), 404, 'FILE_NOT_FOUND', 'v2');
  });

  it('cannot delete a received file: DELETE after the last byte is 404', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const created = await create(request, 5, { filename: 'a.txt', body: 'hello' });
    const location = created.headers.get('location') ?? '';
    await expectError(await call(location, { method: 'DELETE', headers: TUS }), 404, 'FILE_NOT_FOUND', 'v2');
    expect(await receivedRows(request.id)).toHaveLength(1);
  });

  it('DELETE ends an unfinished upload and frees everything it held', async () => {
    const upload = await halfDone();
    expect((await call(upload.location, { method: 'DELETE', headers: TUS })).status).toBe(204);
    await expectFreed(upload);
    await expectError(await patchAt(upload.location, 9 * MIB, 'x'), 410, 'UPLOAD_GONE', 'v2');
  });
});

describe('a request that closes or expires mid-upload', () => {
  it('closed by its owner: the next PATCH is refused (410 REQUEST_CLOSED) and everything the upload held is freed', async () => {
    const upload = await halfDone();
    const closed = await patchRequest(upload.owner.auth, upload.request.id, { closed: true });
    expect(closed.status).toBe(200);
    await expectError(await patchAt(upload.location, 9 * MIB, binaryBytes(MIB, 8)), 410, 'REQUEST_CLOSED', 'v2');
    await expectFreed(upload);
    expect(await receivedRows(upload.request.id)).toHaveLength(0);
    // Reopening does not bring the ended upload back.
    await patchRequest(upload.owner.auth, upload.request.id, { closed: false });
    await expectError(await patchAt(upload.location, 9 * MIB, 'x'), 410, 'UPLOAD_GONE', 'v2');
  });

  it('closed by DELETE: the same', async () => {
    const upload = await halfDone();
    await call(`/api/v2/requests/${upload.request.id}`, { method: 'DELETE', headers: upload.owner.auth });
    const head = await call(upload.location, { method: 'HEAD', headers: TUS });
    expect(head.status).toBe(410);
    await expectFreed(upload);
  });

  it('expired: the next PATCH ends the upload (410 REQUEST_EXPIRED) and frees everything it held', async () => {
    const upload = await halfDone();
    await env.DB.prepare('UPDATE file_requests SET expires_at = ?2 WHERE id = ?1')
      .bind(upload.request.id, new Date(Date.now() - 1000).toISOString())
      .run();
    await expectError(await patchAt(upload.location, 9 * MIB, binaryBytes(MIB, 9)), 410, 'REQUEST_EXPIRED', 'v2');
    await expectFreed(upload);
  });

  it('full meanwhile: an upload holding its slot still finishes', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxFiles: 1 });
    const created = await create(request, 10, { filename: 'a.txt' });
    const location = created.headers.get('location') ?? '';
    await expectError(await create(request, 10), 410, 'REQUEST_FULL', 'v2');
    expect((await patchAt(location, 0, 'abcdefghij')).status).toBe(204);
    expect(await getRequest(owner.auth, request.id)).toMatchObject({ fileCount: 1, status: 'full' });
  });
});
