// Uploads through a request's uploadUrl (multipart, no key): every limit, exact under
// concurrency; what lands in the account; what the uploader sees.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../helpers/digests';
import { unreachableObjects } from '../helpers/rate-limits';
import {
  getRequest,
  holdsOf,
  makeRequest,
  newOwner,
  outcomes,
  patchRequest,
  type Receipt,
  receivedRows,
  send,
  textFile,
  tokenOf,
} from '../helpers/requests';
import { expectError } from '../helpers/responses';
import {
  blobsOf,
  eventually,
  gatedBody,
  instrumentedBucket,
  multipartOf,
  rowCount,
  textBytes,
} from '../helpers/storage';
import { MULTIPART, PNG_1X1, TEST_BOUNDARY, uploadOk } from '../helpers/upload';
import { call, inOneHourWindow } from '../helpers/worker';

describe('a multipart upload to uploadUrl', () => {
  it('answers 201 with the uploader’s receipt only, and the file lands private in the account with requestId', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { label: 'secret label', message: 'hello' });
    await uploadOk('v1', owner.auth, { filename: 'owners-own.txt', content: 'mine' });
    const response = await send(request, [
      textFile('a.txt', 10),
      { filename: 'b.png', content: PNG_1X1, type: 'image/png' },
    ]);
    const text = await response.text();
    expect(response.status, text).toBe(201);
    const body = JSON.parse(text) as { success: true; data: Receipt };
    expect(body.data.files).toEqual([
      {
        success: true,
        name: 'a.txt',
        size: 10,
        mimeType: 'text/plain',
        sha256: await sha256Hex(new TextEncoder().encode('x'.repeat(10))),
      },
      { success: true, name: 'b.png', size: PNG_1X1.length, mimeType: 'image/png', sha256: await sha256Hex(PNG_1X1) },
    ]);
    // Nothing of the account: not its label, key, other files, ids or links.
    for (const secret of ['secret label', owner.id, 'owners-own', 'shareUrl', 'downloadUrl', request.id]) {
      expect(text).not.toContain(secret);
    }
    const rows = await receivedRows(request.id);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatchObject({ account_id: owner.id, is_public: 0, request_id: request.id });

    // Listed like any upload, with requestId in v2 (and the v1 shape unchanged).
    const list = (await (await call('/api/v2/files', { headers: owner.auth })).json()) as {
      data: { files: { originalName: string; requestId: string | null; isPublic: boolean }[] };
    };
    const received = list.data.files.filter((file) => file.requestId === request.id);
    expect(received.map((file) => file.originalName).sort()).toEqual(['a.txt', 'b.png']);
    expect(received.every((file) => !file.isPublic)).toBe(true);
    expect(list.data.files.find((file) => file.originalName === 'owners-own.txt')?.requestId).toBeNull();
    const v1 = (await (await call('/api/v1/files', { headers: owner.auth })).json()) as { data: { files: object[] } };
    for (const file of v1.data.files) expect(file).not.toHaveProperty('requestId');

    const record = await getRequest(owner.auth, request.id);
    expect(record).toMatchObject({ fileCount: 2, bytes: 10 + PNG_1X1.length, status: 'open' });
    const files = (await (await call(`/api/v2/requests/${request.id}/files`, { headers: owner.auth })).json()) as {
      data: { files: { requestId: string }[]; pagination: { total: number } };
    };
    expect(files.data.pagination.total).toBe(2);
  });

  it('makes the files public when the request says so', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { isPublic: true });
    expect((await send(request, [textFile()])).status).toBe(201);
    expect((await receivedRows(request.id))[0]?.is_public).toBe(1);
  });

  it('ignores the uploader’s isPublic and expiresIn fields', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const data = new FormData();
    data.append('isPublic', 'true');
    data.append('expiresIn', '60');
    data.append('file', new File(['hello'], 'a.txt', { type: 'text/plain' }));
    expect((await call(request.uploadUrl, { method: 'POST', body: data })).status).toBe(201);
    const row = await env.DB.prepare('SELECT is_public, expires_at FROM files WHERE request_id = ?1')
      .bind(request.id)
      .first<{ is_public: number; expires_at: string | null }>();
    expect(row).toEqual({ is_public: 0, expires_at: null });
  });

  it('refuses a file over maxFileSize with 413 and keeps nothing', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxFileSize: 100 });
    await expectError(await send(request, [textFile('big.txt', 101)]), 413, 'FILE_TOO_LARGE', 'v2');
    expect((await send(request, [textFile('fits.txt', 100)])).status).toBe(201);
    expect(await blobsOf(owner.id)).toHaveLength(1);
  });

  it('refuses files past maxBytes in all with 413, and keeps nothing of that upload', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxBytes: 250 });
    expect((await send(request, [textFile('a.txt', 200)])).status).toBe(201);
    await expectError(await send(request, [textFile('b.txt', 51)]), 413, 'FILE_TOO_LARGE', 'v2');
    // Two files in one body, the second over: all or nothing.
    await expectError(await send(request, [textFile('c.txt', 20), textFile('d.txt', 40)]), 413, 'FILE_TOO_LARGE', 'v2');
    expect((await send(request, [textFile('e.txt', 50)])).status).toBe(201);
    expect(await rowCount(owner.id)).toBe(2);
    expect(await blobsOf(owner.id)).toHaveLength(2);
    const record = await getRequest(owner.auth, request.id);
    expect(record).toMatchObject({ fileCount: 2, bytes: 250, status: 'full' });
    await expectError(await send(request, [textFile('f.txt', 1)]), 410, 'REQUEST_FULL', 'v2');
  });

  it('refuses a type outside allowedTypes, and a runnable file whatever the request allows (415)', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { allowedTypes: ['image/*'] });
    await expectError(await send(request, [textFile('a.txt')]), 415, 'INVALID_FILE_TYPE', 'v2');
    // Declared an image, but the bytes are text: the content decides.
    await expectError(
      await send(request, [{ filename: 'fake.png', content: 'not an image', type: 'image/png' }]),
      415,
      'INVALID_FILE_TYPE',
      'v2',
    );
    expect((await send(request, [{ filename: 'ok.png', content: PNG_1X1, type: 'image/png' }])).status).toBe(201);
    const any = await makeRequest(owner.auth);
    await expectError(
      await send(any, [{ filename: 'run.exe', content: 'MZ\x90\x00', type: 'application/octet-stream' }]),
      415,
      'INVALID_FILE_TYPE',
      'v2',
    );
    await expectError(
      await send(any, [{ filename: 'x.sh', content: '#!/bin/sh\necho hi', type: 'text/plain' }]),
      415,
      'INVALID_FILE_TYPE',
      'v2',
    );
    expect(await rowCount(owner.id)).toBe(1);
    expect(await blobsOf(owner.id)).toHaveLength(1);
  });

  it('keeps exactly 3 of 6 concurrent uploads to a 3-file request; the others get 410 REQUEST_FULL and leave nothing', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxFiles: 3 });
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, index) => send(request, [textFile(`f${index}.txt`, 1000 + index)])),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, 201, 201, 410, 410, 410]);
    for (const response of responses) {
      if (response.status === 410) await expectError(response, 410, 'REQUEST_FULL', 'v2');
    }
    expect(await receivedRows(request.id)).toHaveLength(3);
    expect(await blobsOf(owner.id)).toHaveLength(3);
    expect(await getRequest(owner.auth, request.id)).toMatchObject({ fileCount: 3, status: 'full' });
  });

  it('admits every concurrent upload that fits maxBytes: five of 1,000 bytes into 5,000, and uneven ones summing to the limit', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxBytes: 5000, maxFiles: 20 });
    const five = await Promise.all(Array.from({ length: 5 }, (_, i) => send(request, [textFile(`f${i}.txt`, 1000)])));
    expect(await outcomes(five)).toEqual(Array(5).fill('201'));
    expect(await getRequest(owner.auth, request.id)).toMatchObject({ fileCount: 5, bytes: 5000, status: 'full' });

    // Files far past the read-ahead (256 KiB): each hold grows as its bytes arrive.
    const KIB = 1024;
    const large = await makeRequest(owner.auth, { maxBytes: 600 * KIB, maxFiles: 20 });
    const sizes = [400 * KIB, 120 * KIB, 50 * KIB, 30 * KIB];
    const uneven = await Promise.all(sizes.map((size, i) => send(large, [textFile(`u${i}.txt`, size)])));
    expect(await outcomes(uneven)).toEqual(Array(4).fill('201'));
    expect(await getRequest(owner.auth, large.id)).toMatchObject({ fileCount: 4, bytes: 600 * KIB });
    expect(await blobsOf(owner.id)).toHaveLength(9);
    expect(await holdsOf(large.id)).toEqual([]);
  });

  it('refuses concurrent uploads past maxBytes with the request’s own 413 and keeps nothing of them, never over', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxBytes: 5000, maxFiles: 20 });
    const eight = await Promise.all(Array.from({ length: 8 }, (_, i) => send(request, [textFile(`f${i}.txt`, 1000)])));
    const results = await outcomes(eight);
    expect(results.filter((result) => result === '201')).toHaveLength(5);
    expect(
      results.filter((r) => r !== '201').every((r) => r === '413 FILE_TOO_LARGE' || r === '410 REQUEST_FULL'),
    ).toBe(true);

    // Three of 300 KiB into 600 KiB, each over the read-ahead: two fit, the third is refused whole.
    const KIB = 1024;
    const large = await makeRequest(owner.auth, { maxBytes: 600 * KIB, maxFiles: 20 });
    const three = await Promise.all([0, 1, 2].map((i) => send(large, [textFile(`t${i}.txt`, 300 * KIB)])));
    const refused = three.find((response) => response.status !== 201);
    expect(three.filter((response) => response.status === 201)).toHaveLength(2);
    if (!refused) throw new Error('none refused');
    const body = await expectError(refused, 413, 'FILE_TOO_LARGE', 'v2');
    expect(body.error).toContain('this request can still take');
    for (const [id, bytes] of [
      [request.id, 5000],
      [large.id, 600 * KIB],
    ] as const) {
      expect(await getRequest(owner.auth, id)).toMatchObject({ fileCount: bytes === 5000 ? 5 : 2, bytes });
      expect(await holdsOf(id)).toEqual([]);
    }
    expect(await rowCount(owner.id)).toBe(7);
    expect(await blobsOf(owner.id)).toHaveLength(7);
  });

  it('refuses at its end an upload whose bytes no longer fit (another took the room it read into), keeping none of it', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxBytes: 5000, maxFiles: 20 });
    // The slow body sends its file, then waits before its closing delimiter.
    const body = multipartOf([{ filename: 'slow.txt', content: textBytes(3000, 'slow') }]);
    const slow = gatedBody(body, `--${TEST_BOUNDARY}--`);
    const pending = call(request.uploadUrl, { method: 'POST', headers: MULTIPART, body: slow.stream });
    await eventually(async () => (await holdsOf(request.id)).length === 1);
    // Its hold is what it has stated, not the room left: an upload that fits beside it is kept.
    expect((await send(request, [textFile('quick.txt', 3000)])).status).toBe(201);
    slow.open();
    const refused = await expectError(await pending, 413, 'FILE_TOO_LARGE', 'v2');
    expect(refused.error).toContain('this request can still take');
    expect(await getRequest(owner.auth, request.id)).toMatchObject({ fileCount: 1, bytes: 3000 });
    expect(await holdsOf(request.id)).toEqual([]);
    expect(await rowCount(owner.id)).toBe(1);
    expect(await blobsOf(owner.id)).toHaveLength(1);
  });

  it('keeps exactly 3 when one body brings 5 files to a 3-file request: the body is refused whole', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxFiles: 3 });
    const five = Array.from({ length: 5 }, (_, index) => textFile(`f${index}.txt`));
    await expectError(await send(request, five), 410, 'REQUEST_FULL', 'v2');
    expect(await blobsOf(owner.id)).toHaveLength(0);
    expect((await send(request, five.slice(0, 3))).status).toBe(201);
    expect(await receivedRows(request.id)).toHaveLength(3);
  });

  // Each write held for half a second, so that writes meant to overlap do, however late a loaded machine reads.
  it('overlaps the R2 writes of six files, at most three at a time, like a bulk upload', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, { maxFiles: 6 });
    const { bucket, stats } = instrumentedBucket(env.FILES, { delayMs: 500 });
    const six = Array.from({ length: 6 }, (_, index) => textFile(`p${index}.txt`, 100 + index));
    const response = await send(request, six, { env: { FILES: bucket } });
    expect(response.status, await response.clone().text()).toBe(201);
    expect(stats.puts).toBe(6);
    // More at once would pass the Workers limit of six connections, with the body's own.
    expect(stats.maxInFlight).toBeGreaterThan(1);
    expect(stats.maxInFlight).toBeLessThanOrEqual(3);
    expect(await receivedRows(request.id)).toHaveLength(6);
  });

  it('stores the files as the account’s, sent by no key: each blob names the account, and no key’s object is asked', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const keys = unreachableObjects(env.KEY_LIMITER);
    const response = await send(request, [textFile('a.txt', 10), textFile('b.txt', 20)], {
      env: { KEY_LIMITER: keys.binding },
    });
    expect(response.status, await response.clone().text()).toBe(201);
    expect(keys.calls).toEqual([]);
    const rows = await receivedRows(request.id);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const blob = await env.FILES.head(`files/${owner.id}/${row.id}`);
      expect(blob?.customMetadata).toEqual({ accountId: owner.id, fileId: row.id });
    }
  });

  it('charges the owner’s quota and file limit: never past them, even racing the owner’s own uploads', async () => {
    const owner = await newOwner({ quota: 5000 });
    const request = await makeRequest(owner.auth, { maxFiles: 20 });
    const theirs = Array.from({ length: 6 }, (_, index) => send(request, [textFile(`r${index}.txt`, 1000)]));
    const mine = Array.from({ length: 6 }, (_, index) =>
      call('/api/v2/upload', {
        method: 'POST',
        headers: owner.auth,
        body: (() => {
          const data = new FormData();
          data.append('file', new File(['y'.repeat(1000)], `o${index}.txt`, { type: 'text/plain' }));
          return data;
        })(),
      }),
    );
    const responses = await Promise.all([...theirs, ...mine]);
    const stored = responses.filter((response) => response.status === 201).length;
    expect(stored).toBe(5);
    for (const response of responses) if (response.status !== 201) expect(response.status).toBe(413);
    const used = await env.DB.prepare(
      'SELECT COALESCE(SUM(size), 0) AS bytes, COUNT(*) AS n FROM files WHERE account_id = ?1',
    )
      .bind(owner.id)
      .first<{ bytes: number; n: number }>();
    expect(used).toEqual({ bytes: 5000, n: 5 });
    expect(await blobsOf(owner.id)).toHaveLength(5);

    const limited = await newOwner({ maxFiles: 2 });
    const small = await makeRequest(limited.auth);
    const results = await Promise.all([1, 2, 3, 4].map((index) => send(small, [textFile(`${index}.txt`)])));
    expect(results.filter((response) => response.status === 201)).toHaveLength(2);
    expect(await rowCount(limited.id)).toBe(2);
  });

  it('answers 404 REQUEST_NOT_FOUND for an unknown or malformed token, and for a revoked owner', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    for (const token of ['A'.repeat(32), 'short', `${tokenOf(request)}x`]) {
      const response = await send({ uploadUrl: `/api/v2/r/${token}/upload` }, [textFile()]);
      await expectError(response, 404, 'REQUEST_NOT_FOUND', 'v2');
    }
    await env.DB.prepare("UPDATE api_keys SET status = 'revoked' WHERE id = ?1").bind(owner.id).run();
    await expectError(await send(request, [textFile()]), 404, 'REQUEST_NOT_FOUND', 'v2');
  });

  it('answers 410 REQUEST_CLOSED once closed (and takes files again once reopened), 410 REQUEST_EXPIRED once expired', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    await patchRequest(owner.auth, request.id, { closed: true });
    await expectError(await send(request, [textFile()]), 410, 'REQUEST_CLOSED', 'v2');
    await expectError(await call(`/api/v2/r/${tokenOf(request)}`), 410, 'REQUEST_CLOSED', 'v2');
    await patchRequest(owner.auth, request.id, { closed: false });
    expect((await send(request, [textFile()])).status).toBe(201);

    await env.DB.prepare('UPDATE file_requests SET expires_at = ?2 WHERE id = ?1')
      .bind(request.id, new Date(Date.now() - 1000).toISOString())
      .run();
    await expectError(await send(request, [textFile()]), 410, 'REQUEST_EXPIRED', 'v2');
    expect((await getRequest(owner.auth, request.id)).status).toBe('expired');
    expect(await rowCount(owner.id)).toBe(1);
  });

  it('throttles uploads per client address (REQUEST_UPLOADS_PER_ADDRESS) and per request', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const address = { 'CF-Connecting-IP': '192.0.2.77' };
    // Each sequence counts in one window.
    const limits = await inOneHourWindow('REQUEST_UPLOAD_WINDOW_SECONDS', { REQUEST_UPLOADS_PER_ADDRESS: '2' });
    expect((await send(request, [textFile()], { headers: address, env: limits })).status).toBe(201);
    expect((await send(request, [textFile()], { headers: address, env: limits })).status).toBe(201);
    const third = await send(request, [textFile()], { headers: address, env: limits });
    await expectError(third, 429, 'RATE_LIMITED', 'v2');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address still gets through.
    expect((await send(request, [textFile()], { env: limits })).status).toBe(201);

    const other = await makeRequest(owner.auth);
    const perRequest = { REQUEST_UPLOADS_PER_REQUEST: '1', REQUEST_UPLOAD_WINDOW_SECONDS: '3600' };
    expect((await send(other, [textFile()], { env: perRequest })).status).toBe(201);
    await expectError(await send(other, [textFile()], { env: perRequest }), 429, 'RATE_LIMITED', 'v2');
  });

  it('needs no key, and a key sent along changes nothing', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    const response = await send(request, [textFile()], { headers: { Authorization: 'Bearer esk_nonsense' } });
    expect(response.status).toBe(201);
  });

  it('answers 400 without a file part', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth);
    await expectError(await send(request, []), 400, 'VALIDATION_ERROR', 'v2');
  });
});

describe('GET /api/v2/r/{token}', () => {
  it('tells the uploader the message and the limits, and nothing of the account', async () => {
    const owner = await newOwner();
    const request = await makeRequest(owner.auth, {
      label: 'internal',
      message: 'Please send the contract',
      maxFiles: 2,
      allowedTypes: ['application/pdf'],
    });
    await send(request, []);
    const response = await call(`/api/v2/r/${tokenOf(request)}`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain('internal');
    expect(text).not.toContain(owner.id);
    const body = JSON.parse(text) as { data: Record<string, unknown> };
    expect(body.data).toMatchObject({
      message: 'Please send the contract',
      maxFiles: 2,
      allowedTypes: ['application/pdf'],
    });
    expect(body.data).not.toHaveProperty('fileCount');
  });
});
