import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import {
  type Auth,
  created,
  expectUntouched,
  putRaw,
  type Record2,
  sha256Field,
  sha256Hex,
  storedBytes,
  textOf,
  usageOf,
} from '../helpers/digests';
import { expectError } from '../helpers/responses';
import { fieldPart, filePartHeaders, postRaw, rawMultipart } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

const MIB = 1024 * 1024;

/** A hand-built single upload: the file part, then (optionally) a sha256 field after it. */
function singleForm(bytes: Uint8Array, sha256?: string, before = false) {
  const file = { headers: filePartHeaders('data.txt', 'text/plain'), content: bytes };
  const field = sha256 === undefined ? [] : [fieldPart('sha256', sha256)];
  return rawMultipart(before ? [...field, file] : [file, ...field]);
}

async function recordOf(auth: Auth, id: string): Promise<Record2> {
  const response = await call(`/api/v2/files/${id}`, { headers: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Record2 }).data;
}

describe('SHA-256 of multipart uploads', () => {
  it('is computed while a single upload streams, for a small file and one past an R2 part', async () => {
    const { id: keyId, auth } = await createKey('digest-single');
    for (const size of [0, 5, 9 * MIB + 3]) {
      const bytes = textOf(size, size + 1);
      const record = await created(await postRaw(auth, singleForm(bytes), {}, {}, '/api/v2/upload'));
      const expected = await sha256Hex(bytes);
      expect(record.sha256, `size ${size}`).toBe(expected);
      expect(await sha256Hex(await storedBytes(keyId, record.id))).toBe(expected);
      expect((await recordOf(auth, record.id)).sha256).toBe(expected);
    }
    const list = (await (await call('/api/v2/files?limit=100', { headers: auth })).json()) as {
      data: { files: Record2[] };
    };
    expect(list.data.files.every((file) => /^[0-9a-f]{64}$/.test(file.sha256 ?? ''))).toBe(true);
  });

  it('is not in v1 records', async () => {
    const { auth } = await createKey('digest-v1');
    const record = await created(await postRaw(auth, singleForm(textOf(10))));
    expect(record).not.toHaveProperty('sha256');
    const got = (await (await call(`/api/v1/files/${record.id}`, { headers: auth })).json()) as { data: object };
    expect(got.data).not.toHaveProperty('sha256');
  });

  it('accepts a matching sha256 field before or after the file part, any case', async () => {
    const { auth } = await createKey('digest-field-ok');
    const bytes = textOf(70_000);
    const hex = await sha256Hex(bytes);
    for (const [value, before] of [
      [hex, false],
      [hex.toUpperCase(), true],
    ] as const) {
      const record = await created(await postRaw(auth, singleForm(bytes, value, before), {}, {}, '/api/v2/upload'));
      expect(record.sha256).toBe(hex);
    }
  });

  it('refuses a mismatching sha256 field sent after the file: 400 DIGEST_MISMATCH, nothing stored or charged', async () => {
    const { id: keyId, auth } = await createKey('digest-field-bad');
    const bytes = textOf(9 * MIB + 1, 5);
    for (const version of ['v1', 'v2']) {
      const refused = await postRaw(
        auth,
        singleForm(bytes, await sha256Hex(textOf(10))),
        {},
        {},
        `/api/${version}/upload`,
      );
      const body = await expectError(refused, 400, 'DIGEST_MISMATCH');
      expect(body.details?.[0]?.field).toBe('sha256');
    }
    await expectUntouched(keyId, auth);
  });

  it('answers 400 VALIDATION_ERROR for a sha256 field that is not 64 hex digits', async () => {
    const { id: keyId, auth } = await createKey('digest-field-form');
    const refused = await postRaw(auth, singleForm(textOf(10), 'abc'), {}, {}, '/api/v2/upload');
    const body = await expectError(refused, 400, 'VALIDATION_ERROR');
    expect(body.details?.[0]?.field).toBe('sha256');
    await expectUntouched(keyId, auth);
  });
});

describe('SHA-256 of bulk uploads', () => {
  const bulkBody = (files: Uint8Array[], digests?: string[]) =>
    rawMultipart(
      files.flatMap((bytes, index) => [
        { headers: filePartHeaders(`f${index}.txt`, 'text/plain', 'files'), content: bytes },
        ...(digests ? [fieldPart('sha256', digests[index] ?? '')] : []),
      ]),
    );
  type BulkBody = { data: { results: ({ success: true; data: Record2 } | { success: false; code: string })[] } };

  it('gives every file its digest', async () => {
    const { auth } = await createKey('digest-bulk');
    const files = [textOf(10, 1), textOf(9 * MIB, 2), textOf(0, 3)];
    const response = await postRaw(auth, bulkBody(files), {}, {}, '/api/v2/upload/bulk');
    expect(response.status).toBe(201);
    const { results } = ((await response.json()) as BulkBody).data;
    for (const [index, result] of results.entries()) {
      expect(result.success).toBe(true);
      if (result.success) expect(result.data.sha256).toBe(await sha256Hex(files[index] ?? new Uint8Array()));
    }
  });

  it('checks one sha256 field per file, in order: a mismatch fails that file alone, charging nothing for it', async () => {
    const { id: keyId, auth } = await createKey('digest-bulk-check');
    const files = [textOf(1000, 1), textOf(2000, 2), textOf(3000, 3)];
    const digests = [await sha256Hex(files[0] as Uint8Array), await sha256Hex(textOf(5)), ''];
    const response = await postRaw(auth, bulkBody(files, digests), {}, {}, '/api/v2/upload/bulk');
    expect(response.status).toBe(201);
    const { results } = ((await response.json()) as BulkBody).data;
    expect(results.map((result) => (result.success ? 'ok' : result.code))).toEqual(['ok', 'DIGEST_MISMATCH', 'ok']);
    const usage = await usageOf(auth);
    expect(usage).toMatchObject({ usedBytes: 4000, files: 2, reservedBytes: 0, reservedFiles: 0 });
    const ids = results.flatMap((result) => (result.success ? [result.data.id] : []));
    const listed = await env.FILES.list({ prefix: `files/${keyId}/` });
    expect(listed.objects.map((object) => object.key).sort()).toEqual(ids.map((id) => `files/${keyId}/${id}`).sort());
  });

  it('refuses sha256 fields that do not pair with the files (400), storing nothing', async () => {
    const { id: keyId, auth } = await createKey('digest-bulk-count');
    const files = [textOf(10, 1), textOf(20, 2)];
    const body = rawMultipart([
      ...files.map((bytes, index) => ({
        headers: filePartHeaders(`f${index}.txt`, 'text/plain', 'files'),
        content: bytes,
      })),
      fieldPart('sha256', await sha256Hex(textOf(10, 1))),
    ]);
    await expectError(await postRaw(auth, body, {}, {}, '/api/v2/upload/bulk'), 400, 'VALIDATION_ERROR');
    await expectUntouched(keyId, auth);
  });
});

describe('Repr-Digest on downloads', () => {
  it('is sent on GET, HEAD, a range and the share download, and is the whole file’s digest', async () => {
    const { auth } = await createKey('digest-download');
    const bytes = textOf(5000, 8);
    const record = await created(await putRaw(auth, 'd.txt', bytes));
    const expected = await sha256Field(bytes);
    const get = await call(`/api/v2/files/${record.id}/download`, { headers: auth });
    expect(get.headers.get('repr-digest')).toBe(expected);
    expect(await sha256Field(new Uint8Array(await get.arrayBuffer()))).toBe(expected);
    const head = await call(`/api/v1/files/${record.id}/download`, { method: 'HEAD', headers: auth });
    expect(head.headers.get('repr-digest')).toBe(expected);
    const range = await call(`/api/v2/files/${record.id}/download`, { headers: { ...auth, Range: 'bytes=10-19' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('repr-digest')).toBe(expected);
    await range.arrayBuffer();
    const share = `/share/${new URL(record.shareUrl).pathname.split('/').pop()}/download`;
    const shared = await call(share);
    expect(shared.status).toBe(200);
    expect(shared.headers.get('repr-digest')).toBe(expected);
    await shared.arrayBuffer();
    const sharedHead = await call(share, { method: 'HEAD' });
    expect(sharedHead.headers.get('repr-digest')).toBe(expected);
  });

  it('is left out for a file whose digest is not known yet', async () => {
    const { auth } = await createKey('digest-unknown');
    const record = await created(await putRaw(auth, 'old.txt', textOf(10)));
    await env.DB.prepare('UPDATE files SET sha256 = NULL WHERE id = ?1').bind(record.id).run();
    const get = await call(`/api/v2/files/${record.id}/download`, { headers: auth });
    expect(get.status).toBe(200);
    expect(get.headers.has('repr-digest')).toBe(false);
    await get.arrayBuffer();
    expect((await recordOf(auth, record.id)).sha256).toBeNull();
  });
});
