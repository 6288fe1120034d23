// tus 1.0.0 at /api/v2/uploads, request by request: discovery, versions, creation, HEAD, PATCH,
// the headers every answer carries, and the file a completed upload becomes.
import { describe, expect, it } from 'vitest';
import { getRecord } from '../helpers/files';
import { expectError } from '../helpers/responses';
import {
  base64,
  binaryBytes,
  created,
  createUpload,
  head,
  MIB,
  metadata,
  newKey,
  OCTETS,
  patch,
  patchOk,
  TUS,
} from '../helpers/tus';
import { call, ORIGIN } from '../helpers/worker';

const HTTP_DATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$/;

describe('discovery (OPTIONS)', () => {
  it.each([
    ['without a key or Origin (tus discovery)', {}],
    ['as a CORS preflight', { Origin: 'https://app.example', 'Access-Control-Request-Method': 'PATCH' }],
  ])('answers 204 %s with the server’s tus capabilities', async (_name, headers) => {
    for (const path of ['/api/v2/uploads', '/api/v2/uploads/some-upload-id-000000']) {
      const response = await call(path, { method: 'OPTIONS', headers });
      expect(response.status).toBe(204);
      expect(response.headers.get('tus-resumable')).toBe('1.0.0');
      expect(response.headers.get('tus-version')).toBe('1.0.0');
      expect(response.headers.get('tus-extension')).toBe(
        'creation,creation-with-upload,termination,expiration,checksum,concatenation',
      );
      expect(response.headers.get('tus-max-size')).toBe(String(5 * 1024 * MIB));
      expect(response.headers.get('tus-checksum-algorithm')?.split(',')).toEqual(
        expect.arrayContaining(['sha1', 'sha256']),
      );
    }
  });

  it('lets a browser send PATCH and the tus headers, and read them back', async () => {
    const response = await call('/api/v2/uploads', {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'PATCH' },
    });
    expect(response.headers.get('access-control-allow-methods')?.split(',')).toContain('PATCH');
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    for (const name of ['tus-resumable', 'upload-offset', 'upload-length', 'upload-metadata', 'upload-checksum']) {
      expect(allowed).toContain(name);
    }
    expect(allowed).toContain('x-http-method-override');
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(',');
    for (const name of ['upload-offset', 'upload-expires', 'location', 'tus-resumable', 'x-file-id', 'tus-max-size']) {
      expect(exposed).toContain(name);
    }
  });

  it('advertises a configured MAX_FILE_SIZE as Tus-Max-Size', async () => {
    const response = await call('/api/v2/uploads', { method: 'OPTIONS' }, { MAX_FILE_SIZE: '123456' });
    expect(response.headers.get('tus-max-size')).toBe('123456');
  });
});

describe('Tus-Resumable', () => {
  it.each([
    ['missing', {}],
    ['another version', { 'Tus-Resumable': '0.2.2' }],
  ])(
    'is required on tus requests: %s → 412 with Tus-Version, before the key is even checked',
    async (_name, headers) => {
      const response = await call('/api/v2/uploads', {
        method: 'POST',
        headers: { 'Upload-Length': '5', 'Upload-Metadata': metadata({ filename: 'a.txt' }), ...headers },
      });
      const body = await expectError(response, 412, 'UNSUPPORTED_TUS_VERSION');
      expect(body.error).toContain('1.0.0');
      expect(response.headers.get('tus-version')).toBe('1.0.0');
      expect(response.headers.get('tus-resumable')).toBe('1.0.0');
    },
  );

  it('is on every answer, errors included', async () => {
    const unauthenticated = await call('/api/v2/uploads', {
      method: 'POST',
      headers: { ...TUS, 'Upload-Length': '1' },
    });
    await expectError(unauthenticated, 401, 'UNAUTHORIZED');
    expect(unauthenticated.headers.get('tus-resumable')).toBe('1.0.0');
    const { auth } = await newKey('resumable everywhere');
    const missing = await head(auth, '/api/v2/uploads/AAAAAAAAAAAAAAAAAAAAAA');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('tus-resumable')).toBe('1.0.0');
  });
});

describe('creation', () => {
  it('answers 201 with an absolute Location, Upload-Expires about 24 hours ahead, and nothing in R2 yet', async () => {
    const { auth } = await newKey('create');
    const before = Date.now();
    const { response, path, id } = await createUpload(auth, 100, { filename: 'hello.txt' });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`${ORIGIN}/api/v2/uploads/${id}`);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(response.headers.get('tus-resumable')).toBe('1.0.0');
    const expires = response.headers.get('upload-expires') ?? '';
    expect(expires).toMatch(HTTP_DATE);
    const ms = Date.parse(expires) - before;
    expect(ms).toBeGreaterThan(24 * 3600 * 1000 - 5_000);
    expect(ms).toBeLessThan(24 * 3600 * 1000 + 5_000);
    expect(path).toBe(`/api/v2/uploads/${id}`);
  });

  it('uses PUBLIC_BASE_URL for Location when it is set', async () => {
    const { auth } = await newKey('public base');
    const { response } = await createUpload(
      auth,
      10,
      { filename: 'a.txt' },
      { env: { PUBLIC_BASE_URL: 'https://files.example' } },
    );
    expect(response.headers.get('location')).toMatch(/^https:\/\/files\.example\/api\/v2\/uploads\/[A-Za-z0-9_-]{22}$/);
  });

  it.each([
    ['no Upload-Length', { 'Upload-Length': '' }, 'Upload-Length'],
    ['a negative Upload-Length', { 'Upload-Length': '-1' }, 'Upload-Length'],
    ['a fractional Upload-Length', { 'Upload-Length': '1.5' }, 'Upload-Length'],
    ['Upload-Defer-Length', { 'Upload-Defer-Length': '1' }, 'Upload-Defer-Length'],
    ['metadata that is not Base64', { 'Upload-Metadata': 'filename not-base64!' }, 'Upload-Metadata'],
    ['a key given twice', { 'Upload-Metadata': `filename ${base64('a')},filename ${base64('b')}` }, 'Upload-Metadata'],
    ['a bad isPublic', { 'Upload-Metadata': metadata({ filename: 'a.txt', isPublic: 'yes' }) }, 'isPublic'],
    ['a bad expiresIn', { 'Upload-Metadata': metadata({ filename: 'a.txt', expiresIn: '5' }) }, 'expiresIn'],
  ])('answers 400 VALIDATION_ERROR for %s', async (_name, headers, field) => {
    const { auth } = await newKey('bad creation');
    const init = { headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== '')) };
    if ((headers as Record<string, string>)['Upload-Length'] === '') {
      const response = await call('/api/v2/uploads', {
        method: 'POST',
        headers: { ...TUS, ...auth, 'Upload-Metadata': metadata({ filename: 'a.txt' }) },
      });
      const body = await expectError(response, 400, 'VALIDATION_ERROR');
      expect(body.details?.[0]?.field).toBe(field);
      return;
    }
    const { response } = await createUpload(auth, 10, { filename: 'a.txt' }, init);
    const body = await expectError(response, 400, 'VALIDATION_ERROR');
    expect(body.details?.[0]?.field).toBe(field);
  });

  // tus 1.0: "The Client MAY supply the Upload-Metadata header".
  it.each([
    ['no Upload-Metadata at all', undefined, 'upload'],
    ['metadata without a filename', metadata({ filetype: 'text/csv', isPublic: 'true' }), 'upload.csv'],
    ['an empty filename', metadata({ filename: ' ', filetype: 'text/plain' }), 'upload.txt'],
  ])('creates an upload with %s, and names the file', async (_name, meta, name) => {
    const { auth } = await newKey('no metadata');
    const headers: Record<string, string> = { ...TUS, ...auth, 'Upload-Length': '5' };
    if (meta !== undefined) headers['Upload-Metadata'] = meta;
    const response = await call('/api/v2/uploads', { method: 'POST', headers });
    expect(response.status).toBe(201);
    const path = new URL(response.headers.get('location') ?? '').pathname;
    expect(await patchOk(auth, path, 0, new TextEncoder().encode('hello'))).toBe(5);
    const record = await call(path, { headers: auth });
    expect(record.status).toBe(200);
    const { data } = (await record.json()) as { data: { originalName: string; filename: string } };
    expect(data.originalName).toBe(name);
    expect(data.filename).toMatch(
      new RegExp(`^upload_[A-Za-z0-9_-]{22}${name.slice('upload'.length).replace('.', '\\.')}$`),
    );
  });

  it('refuses a name that runs when opened with 415 INVALID_FILE_TYPE before any byte is sent', async () => {
    const { auth } = await newKey('runnable');
    const { response } = await createUpload(auth, 10, { filename: 'setup.exe' });
    await expectError(response, 415, 'INVALID_FILE_TYPE');
  });

  it('takes the first bytes in the creation request (creation-with-upload) and answers their offset', async () => {
    const { auth } = await newKey('creation with upload');
    const { response, path } = await createUpload(auth, 11, { filename: 'hello.txt' }, { body: 'hello' });
    expect(response.status).toBe(201);
    expect(response.headers.get('upload-offset')).toBe('5');
    expect(response.headers.get('upload-expires')).toMatch(HTTP_DATE);
    expect(await patchOk(auth, path, 5, new TextEncoder().encode(' world'))).toBe(11);
  });

  it('refuses bytes at creation without Content-Type: application/offset+octet-stream (415)', async () => {
    const { auth } = await newKey('creation body type');
    const { response } = await createUpload(
      auth,
      5,
      { filename: 'a.txt' },
      {
        body: 'hello',
        headers: { 'Content-Type': 'text/plain' },
      },
    );
    await expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('completes an empty upload at once: 201 with X-File-Id, and the file exists', async () => {
    const { auth } = await newKey('empty');
    const { response, id } = await createUpload(auth, 0, { filename: 'empty.txt' });
    expect(response.status).toBe(201);
    expect(response.headers.get('upload-offset')).toBe('0');
    expect(response.headers.get('x-file-id')).toBe(id);
    const record = await getRecord(auth, id, 'v2');
    expect(record).toMatchObject({ id, size: 0, originalName: 'empty.txt' });
  });
});

describe('HEAD', () => {
  it('answers 204 with Upload-Offset, Upload-Length, the metadata as sent, Upload-Expires and Cache-Control: no-store', async () => {
    const { auth } = await newKey('head');
    const meta = { filename: 'résumé.txt', filetype: 'text/plain' };
    const { path } = await created(auth, 20, meta);
    await patchOk(auth, path, 0, new TextEncoder().encode('0123456789'));
    const response = await head(auth, path);
    expect(response.status).toBe(204);
    expect(response.headers.get('upload-offset')).toBe('10');
    expect(response.headers.get('upload-length')).toBe('20');
    expect(response.headers.get('upload-metadata')).toBe(metadata(meta));
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('upload-expires')).toMatch(HTTP_DATE);
    expect(response.headers.get('tus-resumable')).toBe('1.0.0');
    expect(await response.text()).toBe('');
  });

  it('answers 404 without Upload-Offset for an unknown or malformed id', async () => {
    const { auth } = await newKey('head unknown');
    for (const path of ['/api/v2/uploads/AAAAAAAAAAAAAAAAAAAAAA', '/api/v2/uploads/nope']) {
      const response = await head(auth, path);
      expect(response.status).toBe(404);
      expect(response.headers.has('upload-offset')).toBe(false);
    }
  });
});

describe('PATCH', () => {
  it('appends at the offset, answers 204 with the new offset and Upload-Expires', async () => {
    const { auth } = await newKey('patch');
    const { path } = await created(auth, 10, { filename: 'a.txt' });
    const response = await patch(auth, path, 0, 'abcd');
    expect(response.status).toBe(204);
    expect(response.headers.get('upload-offset')).toBe('4');
    expect(response.headers.get('upload-expires')).toMatch(HTTP_DATE);
    expect(response.headers.get('tus-resumable')).toBe('1.0.0');
  });

  it('answers 409 for an Upload-Offset that is not the upload’s, without changing it', async () => {
    const { auth } = await newKey('wrong offset');
    const { path } = await created(auth, 10, { filename: 'a.txt' });
    await patchOk(auth, path, 0, new TextEncoder().encode('abcd'));
    for (const offset of [0, 3, 5]) {
      await expectError(await patch(auth, path, offset, 'xx'), 409, 'UPLOAD_CONFLICT');
    }
    expect(Number((await head(auth, path)).headers.get('upload-offset'))).toBe(4);
  });

  it('answers 415 without Content-Type: application/offset+octet-stream', async () => {
    const { auth } = await newKey('patch type');
    const { path } = await created(auth, 10, { filename: 'a.txt' });
    const response = await patch(auth, path, 0, 'abcd', { 'Content-Type': 'application/octet-stream' });
    await expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 400 for a missing or malformed Upload-Offset', async () => {
    const { auth } = await newKey('patch offset');
    const { path } = await created(auth, 10, { filename: 'a.txt' });
    const response = await call(path, { method: 'PATCH', headers: { ...TUS, ...auth, ...OCTETS }, body: 'ab' });
    await expectError(response, 400, 'VALIDATION_ERROR');
    await expectError(await patch(auth, path, 0, 'ab', { 'Upload-Offset': 'x' }), 400, 'VALIDATION_ERROR');
  });

  it('answers 413 for more bytes than the upload has left, keeping none of them', async () => {
    const { auth } = await newKey('too long');
    const { path } = await created(auth, 4, { filename: 'a.txt' });
    await expectError(await patch(auth, path, 0, 'abcdef'), 413, 'FILE_TOO_LARGE');
    expect(Number((await head(auth, path)).headers.get('upload-offset'))).toBe(0);
  });

  it('is honoured as POST with X-HTTP-Method-Override (PATCH, HEAD, DELETE)', async () => {
    const { auth } = await newKey('override');
    const { path } = await created(auth, 4, { filename: 'a.txt' });
    const patched = await call(path, {
      method: 'POST',
      headers: { ...TUS, ...auth, ...OCTETS, 'X-HTTP-Method-Override': 'PATCH', 'Upload-Offset': '0' },
      body: 'ab',
    });
    expect(patched.status).toBe(204);
    expect(patched.headers.get('upload-offset')).toBe('2');
    const headed = await call(path, { method: 'POST', headers: { ...TUS, ...auth, 'X-HTTP-Method-Override': 'HEAD' } });
    expect(headed.status).toBe(204);
    expect(headed.headers.get('upload-offset')).toBe('2');
    const deleted = await call(path, {
      method: 'POST',
      headers: { ...TUS, ...auth, 'X-HTTP-Method-Override': 'DELETE' },
    });
    expect(deleted.status).toBe(204);
    expect((await head(auth, path)).status).toBe(410);
  });
});

describe('the last byte', () => {
  it('makes an ordinary file: X-File-Id, GET /uploads/{id} gives its record, and it is in list, get, download and share in both versions', async () => {
    const { auth } = await newKey('complete');
    const content = new TextEncoder().encode('hello, resumable world\n');
    const { path, id } = await created(auth, content.length, { filename: 'hello.txt', filetype: 'text/plain' });
    expect(await patchOk(auth, path, 0, content.slice(0, 7))).toBe(7);
    const last = await patch(auth, path, 7, content.slice(7));
    expect(last.status).toBe(204);
    expect(last.headers.get('upload-offset')).toBe(String(content.length));
    expect(last.headers.get('x-file-id')).toBe(id);
    expect(last.headers.has('upload-expires')).toBe(false);

    const byUpload = await call(path, { headers: auth });
    expect(byUpload.status).toBe(200);
    const { data, _perf } = await byUpload.json<{ data: Record<string, unknown>; _perf: number }>();
    expect(typeof _perf).toBe('number');
    expect(data).toEqual(await getRecord(auth, id, 'v2'));
    expect(data).toMatchObject({
      id,
      size: content.length,
      mimeType: 'text/plain',
      originalName: 'hello.txt',
      isPublic: true,
    });

    for (const version of ['v1', 'v2']) {
      const list = await call(`/api/${version}/files`, { headers: auth });
      const listed = await list.json<{ data: { files: { id: string }[] } }>();
      expect(listed.data.files.map((file) => file.id)).toContain(id);
      const download = await call(`/api/${version}/files/${id}/download`, { headers: auth });
      expect(download.status).toBe(200);
      expect(new Uint8Array(await download.arrayBuffer())).toEqual(content);
    }
    const share = await call(`${new URL(data.shareUrl as string).pathname}/download`);
    expect(share.status).toBe(200);
    await share.arrayBuffer();

    const headed = await head(auth, path);
    expect(headed.status).toBe(204);
    expect(headed.headers.get('upload-offset')).toBe(String(content.length));
    expect(headed.headers.get('x-file-id')).toBe(id);
  });

  it('applies isPublic and expiresIn from Upload-Metadata', async () => {
    const { auth } = await newKey('private');
    const bytes = new TextEncoder().encode('secret notes');
    const { path, id } = await created(auth, bytes.length, { filename: 'n.txt', isPublic: 'false', expiresIn: '3600' });
    await patchOk(auth, path, 0, bytes);
    const record = await getRecord(auth, id, 'v2');
    expect(record.isPublic).toBe(false);
    const expiresIn = Date.parse(record.expiresAt ?? '') - Date.parse(record.uploadedAt);
    expect(expiresIn).toBe(3600 * 1000);
    expect((await call(`${new URL(record.shareUrl).pathname}/download`)).status).toBe(404);
  });

  it('answers GET /uploads/{id} 409 UPLOAD_INCOMPLETE while bytes are missing', async () => {
    const { auth } = await newKey('incomplete');
    const { path } = await created(auth, 10, { filename: 'a.txt' });
    await patchOk(auth, path, 0, new TextEncoder().encode('abc'));
    const body = await expectError(await call(path, { headers: auth }), 409, 'UPLOAD_INCOMPLETE');
    expect(body.error).toContain('3 of 10');
  });

  it('answers a PATCH of nothing at the end of a completed upload with 204, and anything else with 409', async () => {
    const { auth } = await newKey('after complete');
    const { path, id } = await created(auth, 3, { filename: 'a.txt' });
    await patchOk(auth, path, 0, new TextEncoder().encode('abc'));
    const again = await patch(auth, path, 3, new Uint8Array(0));
    expect(again.status).toBe(204);
    expect(again.headers.get('x-file-id')).toBe(id);
    await expectError(await patch(auth, path, 0, 'abc'), 409, 'UPLOAD_CONFLICT');
  });

  it('stores a binary file under R2 with the detected type', async () => {
    const { auth } = await newKey('binary');
    const bytes = binaryBytes(5000, 7);
    const { path, id } = await created(auth, bytes.length, { filename: 'blob.bin' });
    await patchOk(auth, path, 0, bytes);
    const record = await getRecord(auth, id, 'v2');
    expect(record.mimeType).toBe('application/octet-stream');
    expect(record.filename).toMatch(new RegExp(`_${id}\\.bin$`));
  });
});

describe('the OpenAPI document', () => {
  type Operation = {
    security?: unknown[];
    parameters?: { name: string; in: string }[];
    responses: Record<string, { headers?: Record<string, unknown> }>;
  };

  it('lists the tus routes of v2 with their headers, and none in v1', async () => {
    const doc = await (await call('/api/v2/openapi.json')).json<{ paths: Record<string, Record<string, Operation>> }>();
    expect(Object.keys(doc.paths['/uploads'] ?? {}).sort()).toEqual(['options', 'post']);
    expect(Object.keys(doc.paths['/uploads/{id}'] ?? {}).sort()).toEqual(['delete', 'get', 'head', 'patch', 'post']);
    const patchOp = doc.paths['/uploads/{id}']?.patch;
    const names = (patchOp?.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(['Tus-Resumable', 'Upload-Offset', 'Content-Type', 'Upload-Checksum']),
    );
    expect(Object.keys(patchOp?.responses ?? {})).toEqual(expect.arrayContaining(['204', '409', '460']));
    expect(Object.keys(patchOp?.responses['204']?.headers ?? {})).toEqual(
      expect.arrayContaining(['Upload-Offset', 'X-File-Id', 'Tus-Resumable']),
    );
    expect(Object.keys(doc.paths['/uploads']?.post?.responses['201']?.headers ?? {})).toContain('Location');
    expect(doc.paths['/uploads']?.options?.security).toEqual([]);
    const v1 = await (await call('/api/v1/openapi.json')).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(v1.paths).some((path) => path.startsWith('/uploads'))).toBe(false);
  });
});

describe('routes', () => {
  it('answers other methods with 405 and Allow', async () => {
    const { auth } = await newKey('methods');
    const collection = await call('/api/v2/uploads', { method: 'GET', headers: { ...TUS, ...auth } });
    await expectError(collection, 405, 'METHOD_NOT_ALLOWED');
    expect(collection.headers.get('allow')).toBe('POST, OPTIONS');
    const one = await call('/api/v2/uploads/AAAAAAAAAAAAAAAAAAAAAA', { method: 'PUT', headers: { ...TUS, ...auth } });
    await expectError(one, 405, 'METHOD_NOT_ALLOWED');
  });

  it('does not exist in v1', async () => {
    const { auth } = await newKey('v1 has none');
    const response = await call('/api/v1/uploads', {
      method: 'POST',
      headers: { ...TUS, ...auth, 'Upload-Length': '1' },
    });
    await expectError(response, 404, 'NOT_FOUND');
  });
});
