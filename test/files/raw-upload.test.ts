import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import {
  created,
  expectUntouched,
  putChunked,
  putRaw,
  sha256Field,
  sha256Hex,
  storedBytes,
  textOf,
  usageOf,
} from '../helpers/digests';
import { UPLOAD_RECORD_V2_KEYS } from '../helpers/records';
import { expectError } from '../helpers/responses';
import { gatedBody } from '../helpers/storage';
import { PNG_1X1 } from '../helpers/upload';
import { call, createKey, pollPause } from '../helpers/worker';

const MIB = 1024 * 1024;

describe('PUT /api/v2/upload/{filename}', () => {
  it('stores a body with a Content-Length in one put and answers 201 with the v2 upload shape', async () => {
    const { id: keyId, auth } = await createKey('raw-length');
    const bytes = textOf(300_000);
    const record = await created(await putRaw(auth, 'notes.txt', bytes));
    expect(Object.keys(record).sort()).toEqual(UPLOAD_RECORD_V2_KEYS);
    expect(record).toMatchObject({ size: bytes.length, mimeType: 'text/plain', isPublic: true });
    expect(record.sha256).toBe(await sha256Hex(bytes));
    expect(await storedBytes(keyId, record.id)).toEqual(bytes);
    // One put: the object is not a multipart one (its etag has no part count).
    const head = await env.FILES.head(`files/${keyId}/${record.id}`);
    expect(head?.etag).not.toMatch(/-\d+$/);
  });

  it('stores an empty body (Content-Length: 0) as an empty file with the empty digest', async () => {
    const { id: keyId, auth } = await createKey('raw-empty');
    const record = await created(await putRaw(auth, 'empty.txt', new Uint8Array(0)));
    expect(record).toMatchObject({
      size: 0,
      sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    });
    expect((await storedBytes(keyId, record.id)).length).toBe(0);
  });

  it('streams a larger known-length body (past one R2 part) into one put', async () => {
    const { id: keyId, auth } = await createKey('raw-large');
    const bytes = textOf(9 * MIB + 17, 3);
    const record = await created(await putRaw(auth, 'big.txt', bytes));
    expect(record.sha256).toBe(await sha256Hex(bytes));
    expect(await sha256Hex(await storedBytes(keyId, record.id))).toBe(record.sha256);
    const head = await env.FILES.head(`files/${keyId}/${record.id}`);
    expect(head?.etag).not.toMatch(/-\d+$/);
  });

  it('stores a chunked body without a Content-Length, small and past one part', async () => {
    const { id: keyId, auth } = await createKey('raw-chunked');
    for (const size of [1000, 9 * MIB + 5]) {
      const bytes = textOf(size, size);
      const record = await created(await putChunked(auth, 'chunked.txt', bytes));
      expect(record.size).toBe(size);
      expect(record.sha256).toBe(await sha256Hex(bytes));
      // Compared by digest: a diff of two 9 MiB arrays would not fit in memory.
      expect(await sha256Hex(await storedBytes(keyId, record.id))).toBe(await sha256Hex(bytes));
    }
  });

  it('takes the percent-decoded path segment as the original name, cleaned', async () => {
    const { auth } = await createKey('raw-name');
    const record = await created(await putRaw(auth, encodeURIComponent('dir/Résumé 2026.txt'), textOf(10)));
    const got = await call(`/api/v2/files/${record.id}`, { headers: auth });
    const body = (await got.json()) as { data: { originalName: string } };
    expect(body.data.originalName).toBe('Résumé 2026.txt');
    expect(record.filename).toMatch(/\.txt$/);
  });

  it('reads isPublic and expiresIn from the query, validated like the form fields', async () => {
    const { auth } = await createKey('raw-query');
    const record = await created(await putRaw(auth, 'a.txt', textOf(10), {}, '?isPublic=false&expiresIn=3600'));
    expect(record.isPublic).toBe(false);
    const got = (await (await call(`/api/v2/files/${record.id}`, { headers: auth })).json()) as {
      data: { expiresAt: string };
    };
    expect(Date.parse(got.data.expiresAt) - Date.now()).toBeGreaterThan(3500_000);
    await expectError(await putRaw(auth, 'a.txt', textOf(10), {}, '?isPublic=yes'), 400, 'VALIDATION_ERROR');
    await expectError(await putRaw(auth, 'a.txt', textOf(10), {}, '?expiresIn=5'), 400, 'VALIDATION_ERROR');
  });

  it('answers 400 for a PUT without a name', async () => {
    const { id: keyId, auth } = await createKey('raw-noname');
    for (const path of ['/api/v2/upload/', '/api/v2/upload']) {
      const response = await call(path, {
        method: 'PUT',
        headers: { ...auth, 'Content-Length': '3' },
        body: 'abc',
      });
      const body = await expectError(response, 400, 'VALIDATION_ERROR');
      expect(body.details?.[0]?.field).toBe('filename');
    }
    await expectUntouched(keyId, auth);
  });

  it('decides the type from the leading bytes: runnable refused, a contradicted declared type 415', async () => {
    const { id: keyId, auth } = await createKey('raw-types');
    const elf = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, ...new Array(56).fill(0)]);
    await expectError(await putRaw(auth, 'tool.bin', elf), 415, 'INVALID_FILE_TYPE');
    await expectError(await putRaw(auth, 'run.sh', textOf(20)), 415, 'INVALID_FILE_TYPE');
    const html = new TextEncoder().encode('<!doctype html><script>alert(1)</script>');
    await expectError(await putRaw(auth, 'x.png', html, { 'Content-Type': 'image/png' }), 415, 'INVALID_FILE_TYPE');
    await expectUntouched(keyId, auth);
    const png = await created(await putRaw(auth, 'pixel.png', PNG_1X1, { 'Content-Type': 'image/png' }));
    expect(png.mimeType).toBe('image/png');
    // `curl -X PUT --data-binary @file` declares application/x-www-form-urlencoded: no type at all.
    const curlDefault = { 'Content-Type': 'application/x-www-form-urlencoded' };
    expect((await created(await putRaw(auth, 'pixel2.png', PNG_1X1, curlDefault))).mimeType).toBe('image/png');
    expect((await created(await putRaw(auth, 'notes', textOf(20), curlDefault))).mimeType).toBe('text/plain');
  });

  it('refuses a Content-Length over MAX_FILE_SIZE (413) and a body over the quota (413), storing nothing', async () => {
    const { id: keyId, auth } = await createKey('raw-limits', { storageQuotaBytes: 50_000 });
    const tooBig = await call(
      '/api/v2/upload/big.txt',
      { method: 'PUT', headers: { ...auth, 'Content-Length': String(2000) }, body: textOf(2000) },
      { MAX_FILE_SIZE: '1000' },
    );
    await expectError(tooBig, 413, 'FILE_TOO_LARGE');
    await expectError(await putRaw(auth, 'over.txt', textOf(60_000)), 413, 'STORAGE_EXCEEDED');
    await expectError(await putChunked(auth, 'over.txt', textOf(60_000)), 413, 'STORAGE_EXCEEDED');
    await expectUntouched(keyId, auth);
  });

  it('checks Repr-Digest and Content-Digest: a match is stored, a mismatch is 400 DIGEST_MISMATCH with nothing kept', async () => {
    const { id: keyId, auth } = await createKey('raw-digest');
    const bytes = textOf(100_000, 9);
    const other = textOf(100_000, 10);
    for (const send of [putRaw, putChunked]) {
      for (const header of ['Repr-Digest', 'Content-Digest']) {
        const refused = await send(auth, 'a.txt', bytes, { [header]: await sha256Field(other) });
        const body = await expectError(refused, 400, 'DIGEST_MISMATCH');
        expect(body.error).toContain(await sha256Hex(bytes));
      }
    }
    await expectUntouched(keyId, auth);
    const good = await created(
      await putRaw(auth, 'a.txt', bytes, {
        'Repr-Digest': `sha-512=:AAAA:, ${await sha256Field(bytes)}`,
        'Content-Digest': await sha256Field(bytes),
      }),
    );
    expect(good.sha256).toBe(await sha256Hex(bytes));
  });

  it('answers 400 VALIDATION_ERROR for a malformed digest field, or two that disagree', async () => {
    const { id: keyId, auth } = await createKey('raw-digest-bad');
    const bytes = textOf(10);
    await expectError(await putRaw(auth, 'a.txt', bytes, { 'Repr-Digest': 'sha-256=abc' }), 400, 'VALIDATION_ERROR');
    await expectError(await putRaw(auth, 'a.txt', bytes, { 'Repr-Digest': 'sha-256=:AAAA:' }), 400, 'VALIDATION_ERROR');
    const disagree = await putRaw(auth, 'a.txt', bytes, {
      'Repr-Digest': await sha256Field(bytes),
      'Content-Digest': await sha256Field(textOf(11)),
    });
    await expectError(disagree, 400, 'VALIDATION_ERROR');
    await expectUntouched(keyId, auth);
  });

  it('needs a key like every upload', async () => {
    const response = await call('/api/v2/upload/a.txt', {
      method: 'PUT',
      headers: { 'Content-Length': '1' },
      body: 'a',
    });
    await expectError(response, 401, 'UNAUTHORIZED');
  });

  it('answers 405 with PUT in Allow for other methods, and CORS lets PUT and the digest headers through', async () => {
    const { auth } = await createKey('raw-405');
    const get = await call('/api/v2/upload/a.txt', { headers: auth });
    await expectError(get, 405, 'METHOD_NOT_ALLOWED');
    expect(get.headers.get('allow')).toBe('PUT');
    // PUT /upload (no name) is a 400, not a method of its own; /upload/bulk is the bulk upload's.
    const upload = await call('/api/v2/upload', { method: 'GET', headers: auth });
    expect(upload.headers.get('allow')).toBe('POST');
    const bulk = await call('/api/v2/upload/bulk', { method: 'PUT', headers: auth, body: 'x' });
    await expectError(bulk, 405, 'METHOD_NOT_ALLOWED');
    expect(bulk.headers.get('allow')).toBe('POST');
    const preflight = await call('/api/v2/upload/a.txt', {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'PUT',
        'Access-Control-Request-Headers': 'authorization, content-type, repr-digest, content-digest',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    expect(allowed).toContain('repr-digest');
    expect(allowed).toContain('content-digest');
    const stored = await putRaw(auth, 'cors.txt', textOf(5), { Origin: 'https://app.example' });
    expect(stored.status).toBe(201);
    expect((stored.headers.get('access-control-expose-headers') ?? '').toLowerCase()).toContain('repr-digest');
  });
});

describe('PUT /api/v2/upload/{filename} storage hold', () => {
  it('holds the Content-Length and one file in the account while the body streams, then counts the file', async () => {
    const { auth } = await createKey('raw-hold');
    const bytes = textOf(2 * MIB);
    bytes.set(new TextEncoder().encode('GATE'), MIB);
    const { stream, open } = gatedBody(bytes, 'GATE');
    const pending = call('/api/v2/upload/held.txt', {
      method: 'PUT',
      headers: { ...auth, 'Content-Length': String(bytes.length) },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    // While the body waits at the gate, the whole declared length is already held (polled to a
    // deadline: a loaded machine may admit the request late).
    let held = await usageOf(auth);
    for (
      let attempt = 0, deadline = Date.now() + 30_000;
      held.reservedBytes === 0 && Date.now() < deadline;
      attempt++
    ) {
      await pollPause(attempt);
      held = await usageOf(auth);
    }
    expect(held).toMatchObject({ reservedBytes: bytes.length, reservedFiles: 1, usedBytes: 0, files: 0 });
    open();
    expect((await created(await pending)).size).toBe(bytes.length);
    expect(await usageOf(auth)).toMatchObject({
      reservedBytes: 0,
      reservedFiles: 0,
      usedBytes: bytes.length,
      files: 1,
    });
  });
});

describe('PUT /api/v2/upload/{filename} past UPLOAD_TIMEOUT_SECONDS', () => {
  for (const known of [true, false]) {
    it(`answers 408 and keeps nothing, ${known ? 'with' : 'without'} a Content-Length`, async () => {
      const { id: keyId, auth } = await createKey(`raw-timeout-${known}`);
      const bytes = textOf(3 * MIB);
      bytes.set(new TextEncoder().encode('GATE'), 2 * MIB);
      const { stream, open } = gatedBody(bytes, 'GATE');
      const pending = call(
        '/api/v2/upload/slow.txt',
        {
          method: 'PUT',
          headers: { ...auth, ...(known ? { 'Content-Length': String(bytes.length) } : {}) },
          body: stream,
          duplex: 'half',
        } as RequestInit,
        { UPLOAD_TIMEOUT_SECONDS: '1' },
      );
      // The deadline counts from admission, which a loaded machine may reach late: wait well past it.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      open();
      await expectError(await pending, 408, 'REQUEST_TIMEOUT');
      await expectUntouched(keyId, auth);
    });
  }
});
