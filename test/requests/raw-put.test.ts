// PUT {uploadUrl}/{filename}: the raw-body upload through a file request. Every rule of the
// request's multipart upload (limits exact under concurrency, types, password, throttles,
// 404/410, nothing kept when refused) and of PUT /upload/{filename} (Content-Length or chunked,
// the asserted digest checked).
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { chunked, sha256Field, sha256Hex, textOf } from '../helpers/digests';
import { unreachableObjects } from '../helpers/rate-limits';
import {
  basic,
  getRequest,
  holdsOf,
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
import { eventually } from '../helpers/storage';
import { PNG_1X1 } from '../helpers/upload';
import { call, inOneHourWindow } from '../helpers/worker';

type RawReceipt = { files: { success: true; name: string; size: number; mimeType: string; sha256: string }[] };

function put(
  request: Pick<RequestRecord, 'uploadUrl'>,
  name: string,
  body: Uint8Array | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
  config?: Record<string, unknown>,
) {
  const length: Record<string, string> = body instanceof Uint8Array ? { 'Content-Length': String(body.length) } : {};
  return call(`${request.uploadUrl}/${name}`, { method: 'PUT', headers: { ...length, ...headers }, body }, config);
}

async function receipt(response: Response): Promise<RawReceipt> {
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: RawReceipt }).data;
}

const objectsOf = async (accountId: string) => (await env.FILES.list({ prefix: `files/${accountId}/` })).objects;

describe('PUT {uploadUrl}/{filename}', () => {
  it('stores a Content-Length body and a chunked one as the owner’s files, with the request’s id and SHA-256', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxFiles: 5 });
    const small = textOf(1000, 3);
    const first = await receipt(await put(request, 'notes%20one.txt', small, { 'Content-Type': 'text/plain' }));
    expect(first.files).toEqual([
      { success: true, name: 'notes one.txt', size: 1000, mimeType: 'text/plain', sha256: await sha256Hex(small) },
    ]);
    // Past one multipart part (5 MiB), no Content-Length: the streamed multipart writer.
    const large = textOf(6 * 1024 * 1024 + 17, 5);
    const second = await receipt(await put(request, 'big.txt', chunked(large), { 'Content-Type': 'text/plain' }));
    expect(second.files[0]).toMatchObject({ name: 'big.txt', size: large.length, sha256: await sha256Hex(large) });

    const rows = await receivedRows(request.id);
    expect(rows).toHaveLength(2);
    expect(rows.every((row) => row.account_id === owner.id && row.request_id === request.id)).toBe(true);
    expect(await getRequest(owner.auth, request.id)).toMatchObject({ fileCount: 2, bytes: 1000 + large.length });
    // The owner downloads exactly the bytes sent.
    const one = rows.find((row) => row.size === 1000);
    const record = await call(`/api/v2/files/${one?.id}`, { headers: owner.auth });
    expect(((await record.json()) as { data: { sha256: string; requestId: string } }).data).toMatchObject({
      sha256: await sha256Hex(small),
      requestId: request.id,
    });
    const download = await call(`/api/v2/files/${one?.id}/download`, { headers: owner.auth });
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(small);
  });

  it('stores the file as the account’s, sent by no key: its blob names the account, and no key’s object is asked', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const keys = unreachableObjects(env.KEY_LIMITER);
    const down = { KEY_LIMITER: keys.binding };
    await receipt(await put(request, 'known.txt', textOf(1000, 4), { 'Content-Type': 'text/plain' }, down));
    await receipt(await put(request, 'chunked.txt', chunked(textOf(1000, 5)), { 'Content-Type': 'text/plain' }, down));
    expect(keys.calls).toEqual([]);
    const rows = await receivedRows(request.id);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const blob = await env.FILES.head(`files/${owner.id}/${row.id}`);
      expect(blob?.customMetadata).toEqual({ accountId: owner.id, fileId: row.id });
    }
  });

  it('checks Repr-Digest and Content-Digest: a mismatch is 400 DIGEST_MISMATCH, nothing kept or counted', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxFiles: 1 });
    const bytes = textOf(4000, 9);
    const wrong = await sha256Field(textOf(4000, 10));
    await expectError(await put(request, 'a.txt', bytes, { 'Repr-Digest': wrong }), 400, 'DIGEST_MISMATCH', 'v2');
    await expectError(
      await put(request, 'b.txt', chunked(bytes, 1000), { 'Content-Digest': wrong }),
      400,
      'DIGEST_MISMATCH',
      'v2',
    );
    expect(await receivedRows(request.id)).toEqual([]);
    expect(await objectsOf(owner.id)).toEqual([]);
    // The slot came back: the one file the request takes still fits, with the right digest.
    const ok = await receipt(await put(request, 'c.txt', bytes, { 'Repr-Digest': await sha256Field(bytes) }));
    expect(ok.files[0]?.sha256).toBe(await sha256Hex(bytes));
    await expectError(await put(request, 'd.txt', bytes), 410, 'REQUEST_FULL', 'v2');
  });

  it('holds maxFiles exactly when 12 arrive at once, and keeps no bytes of the refused ones', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxFiles: 3 });
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => put(request, `f${i}.txt`, textOf(2000, i + 1))),
    );
    const statuses = await Promise.all(
      responses.map(async (r) => {
        await r.arrayBuffer();
        return r.status;
      }),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 410)).toBe(true);
    expect(await receivedRows(request.id)).toHaveLength(3);
    expect(await objectsOf(owner.id)).toHaveLength(3);
    expect(await getRequest(owner.auth, request.id)).toMatchObject({ fileCount: 3, status: 'full' });
  });

  it('holds exactly each Content-Length in maxBytes: five 1,000-byte PUTs at once into 5,000 are all kept, a sixth refused', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxBytes: 5000, maxFiles: 20 });
    const five = await Promise.all(Array.from({ length: 5 }, (_, i) => put(request, `f${i}.txt`, textOf(1000, i + 1))));
    expect(await outcomes(five)).toEqual(Array(5).fill('201'));
    await expectError(await put(request, 'sixth.txt', textOf(1000, 6)), 410, 'REQUEST_FULL', 'v2');
    expect(await receivedRows(request.id)).toHaveLength(5);
    expect(await getRequest(owner.auth, request.id)).toMatchObject({ fileCount: 5, bytes: 5000, status: 'full' });

    // Eight at once: exactly the five that fit are kept, the others refused with the request's
    // own errors (413 when they do not fit beside the holds, 410 once it is full), nothing over.
    const crowded = await makeRequest(owner.auth, { maxBytes: 5000, maxFiles: 20 });
    const eight = await Promise.all(
      Array.from({ length: 8 }, (_, i) => put(crowded, `g${i}.txt`, textOf(1000, i + 1))),
    );
    const results = await outcomes(eight);
    expect(results.filter((result) => result === '201')).toHaveLength(5);
    expect(
      results.filter((result) => result !== '201').every((r) => r === '413 FILE_TOO_LARGE' || r === '410 REQUEST_FULL'),
    ).toBe(true);
    expect(await receivedRows(crowded.id)).toHaveLength(5);
    expect(await getRequest(owner.auth, crowded.id)).toMatchObject({ fileCount: 5, bytes: 5000 });
    expect(await objectsOf(owner.id)).toHaveLength(10);
    expect(await holdsOf(request.id)).toEqual([]);
    expect(await holdsOf(crowded.id)).toEqual([]);
  });

  it('holds a Content-Length before the first byte: what does not fit beside it is refused at once, what fits exactly is kept', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxBytes: 5000, maxFiles: 20 });
    // 3,000 bytes announced, none sent yet.
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slow = new ReadableStream<Uint8Array>({
      async start(controller) {
        await gate;
        controller.enqueue(textOf(3000, 1));
        controller.close();
      },
    });
    const pending = put(request, 'slow.txt', slow, { 'Content-Length': '3000' });
    await eventually(async () => (await holdsOf(request.id)).length === 1);
    await expectError(await put(request, 'big.txt', textOf(3000, 2)), 413, 'FILE_TOO_LARGE', 'v2');
    expect((await put(request, 'fits.txt', textOf(2000, 3))).status).toBe(201);
    open();
    expect((await pending).status).toBe(201);
    expect(await getRequest(owner.auth, request.id)).toMatchObject({ fileCount: 2, bytes: 5000, status: 'full' });
    expect(await objectsOf(owner.id)).toHaveLength(2);
  });

  it('obeys maxFileSize, allowedTypes and the server’s type rules (runnable files always refused)', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { allowedTypes: ['image/*'], maxFileSize: 1000 });
    await expectError(await put(request, 'a.txt', textOf(10)), 415, 'INVALID_FILE_TYPE', 'v2');
    await expectError(
      await put(request, 'fake.png', textOf(10), { 'Content-Type': 'image/png' }),
      415,
      'INVALID_FILE_TYPE',
      'v2',
    );
    await expectError(await put(request, 'big.png', new Uint8Array(2000)), 413, 'FILE_TOO_LARGE', 'v2');
    expect((await put(request, 'ok.png', PNG_1X1, { 'Content-Type': 'image/png' })).status).toBe(201);
    const any = await makeRequest(owner.auth);
    const exe = new TextEncoder().encode('MZ\x90\x00');
    await expectError(await put(any, 'run.exe', exe), 415, 'INVALID_FILE_TYPE', 'v2');
    await expectError(await put(any, 'run.bin', chunked(exe)), 415, 'INVALID_FILE_TYPE', 'v2');
    expect(await receivedRows(any.id)).toEqual([]);
    expect(await receivedRows(request.id)).toHaveLength(1);
    expect(await objectsOf(owner.id)).toHaveLength(1);
  });

  it('takes the request’s password as HTTP Basic, and is 404/410 like every path of a dead request', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { password: 'let me in' });
    const locked = await put(request, 'a.txt', textOf(10));
    await expectError(locked, 401, 'PASSWORD_REQUIRED', 'v2');
    expect(locked.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await put(request, 'a.txt', textOf(10), basic('let me in'))).status).toBe(201);

    await expectError(
      await put({ uploadUrl: request.uploadUrl.replace(/\/r\/[^/]+/, '/r/nonsense') }, 'a.txt', textOf(10)),
      404,
      'REQUEST_NOT_FOUND',
      'v2',
    );
    expect((await patchRequest(owner.auth, request.id, { closed: true })).status).toBe(200);
    await expectError(await put(request, 'b.txt', textOf(10), basic('let me in')), 410, 'REQUEST_CLOSED', 'v2');
    expect(await receivedRows(request.id)).toHaveLength(1);
  });

  it('counts against the same throttles as the form upload, and an empty name is 400', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const address = { 'CF-Connecting-IP': '192.0.2.78' };
    // The three uploads count in one window.
    const limits = await inOneHourWindow('REQUEST_UPLOAD_WINDOW_SECONDS', { REQUEST_UPLOADS_PER_ADDRESS: '2' });
    expect((await put(request, 'a.txt', textOf(10), address, limits)).status).toBe(201);
    expect((await send(request, [textFile()], { headers: address, env: limits })).status).toBe(201);
    const third = await put(request, 'c.txt', textOf(10), address, limits);
    await expectError(third, 429, 'RATE_LIMITED', 'v2');
    expect(await receivedRows(request.id)).toHaveLength(2);
    const unnamed = await call(`${request.uploadUrl}/%20`, { method: 'PUT', body: 'x' });
    await expectError(unnamed, 400, 'VALIDATION_ERROR', 'v2');
  });
});
