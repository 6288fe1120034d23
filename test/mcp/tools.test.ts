// Every MCP tool through the SDK client over HTTP: its success (the REST answer's data) and its
// refusals (isError with the REST code): scope, quota, policy, type, validation, rate limit.
import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chunked, sha256Hex as sha256 } from '../helpers/digests';
import { getRequest, holdsOf, makeRequest, patchRequest, send, tokenOf } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { rowCount } from '../helpers/storage';
import { base64, OCTETS, TUS, usage } from '../helpers/tus';
import { call, createKey } from '../helpers/worker';
import { callTool, mcpClient, toolData, toolRefusal } from './mcp-helpers';

type Upload = { id: string; size: number; sha256: string; mimeType: string; isPublic: boolean; expiresAt?: string };

/** A key of a new account with only these scopes (made through the keys API, as people do). */
async function scopedKey(scopes: string[]) {
  const { auth } = await createKey('admin');
  const response = await call('/api/v2/keys', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'scoped', scopes }),
  });
  return ((await response.json()) as { data: { key: string } }).data.key;
}

/** A client whose requests reach a Worker with these variables. */
const withEnv = (key: string, vars: Record<string, string>) =>
  mcpClient(key, { fetch: (url, init) => call(String(url), init, vars) });

afterEach(() => vi.restoreAllMocks());

describe('file tools', () => {
  it('upload_text stores the text (v2 upload record with sha256); get_file, list_files, delete_file as REST', async () => {
    const { key, auth } = await createKey('files');
    const client = await mcpClient(key);
    const text = 'hello from an agent\n';
    const uploaded = await toolData<Upload>(client, 'upload_text', { filename: 'notes.txt', text, isPublic: false });
    expect(uploaded).toMatchObject({ size: text.length, mimeType: 'text/plain', isPublic: false });
    expect(uploaded.sha256).toBe(await sha256(new TextEncoder().encode(text)));

    const rest = (await (await call(`/api/v2/files/${uploaded.id}`, { headers: auth })).json()) as { data: unknown };
    expect(await toolData(client, 'get_file', { fileId: uploaded.id })).toEqual(rest.data);
    const download = await call(`/api/v2/files/${uploaded.id}/download`, { headers: auth });
    expect(await download.text()).toBe(text);

    const listed = await toolData<{ files: { id: string }[]; pagination: { limit: number } }>(client, 'list_files', {
      limit: 5,
      q: 'notes',
    });
    expect(listed.files.map((file) => file.id)).toEqual([uploaded.id]);
    expect(listed.pagination.limit).toBe(5);

    expect(await toolData(client, 'delete_file', { fileId: uploaded.id })).toEqual({
      message: `File ${uploaded.id} deleted`,
    });
    expect(await toolRefusal(client, 'get_file', { fileId: uploaded.id })).toMatchObject({ code: 'FILE_NOT_FOUND' });
    expect(await toolRefusal(client, 'delete_file', { fileId: uploaded.id })).toMatchObject({
      code: 'FILE_NOT_FOUND',
    });
  });

  it('refuses what REST refuses, as tool results with the REST code (validation)', async () => {
    const { key } = await createKey('validation');
    const client = await mcpClient(key);
    expect(await toolRefusal(client, 'get_file', {})).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'fileId' }],
    });
    expect(await toolRefusal(client, 'list_files', { limit: 101 })).toMatchObject({ code: 'VALIDATION_ERROR' });
    const tooLong = 'x'.repeat(64 * 1024 + 1);
    expect(await toolRefusal(client, 'upload_text', { filename: 'big.txt', text: tooLong })).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'text' }],
    });
    expect(await toolRefusal(client, 'upload_text', { filename: 'a.txt', text: 'a', expiresIn: 5 })).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'expiresIn' }],
    });
    // An unknown tool is a protocol error, not a tool result.
    await expect(client.callTool({ name: 'read_file_bytes', arguments: {} })).rejects.toThrow(/Unknown tool/);
  });

  it('a 64 KiB text is taken whole', async () => {
    const { key } = await createKey('64k');
    const client = await mcpClient(key);
    const text = 'é'.repeat(32 * 1024);
    const uploaded = await toolData<Upload>(client, 'upload_text', { filename: 'max.txt', text });
    expect(uploaded.size).toBe(64 * 1024);
  });

  it('refuses a key without the tool’s scope (FORBIDDEN naming it), and nothing happens', async () => {
    const key = await scopedKey(['files:read']);
    const client = await mcpClient(key);
    for (const [name, scope, args] of [
      ['upload_text', 'files:write', { filename: 'a.txt', text: 'a' }],
      ['upload_from_url', 'files:write', { url: 'http://127.0.0.1:9/a.txt' }],
      ['delete_file', 'files:delete', { fileId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      ['create_share_link', 'links:write', { fileId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      ['create_collection', 'links:write', { name: 'c' }],
      ['add_to_collection', 'links:write', { collectionId: 'col_AAAAAAAAAAAAAAAAAAAAAA', fileIds: ['x'] }],
      ['create_file_request', 'requests:write', {}],
      ['create_upload_url', 'requests:write', { size: 1, contentType: 'text/plain' }],
    ] as const) {
      expect(await toolRefusal(client, name, args), name).toMatchObject({ code: 'FORBIDDEN', details: [{ scope }] });
    }
    expect(await toolData(client, 'list_files')).toMatchObject({ files: [] });
    const writer = await mcpClient(await scopedKey(['files:write']));
    expect(await toolRefusal(writer, 'list_files')).toMatchObject({ code: 'FORBIDDEN' });
    expect(await toolRefusal(writer, 'get_usage')).toMatchObject({ details: [{ scope: 'files:read' }] });
    expect(await toolRefusal(writer, 'get_access_log', { fileId: 'x' })).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('holds the quota: a text past it is STORAGE_EXCEEDED and nothing is kept', async () => {
    const { key } = await createKey('quota', { storageQuotaBytes: 10 });
    const client = await mcpClient(key);
    expect(await toolRefusal(client, 'upload_text', { filename: 'a.txt', text: 'x'.repeat(11) })).toMatchObject({
      code: 'STORAGE_EXCEEDED',
    });
    expect(await toolData(client, 'get_usage')).toMatchObject({ usedBytes: 0, reservedBytes: 0, files: 0 });
    await toolData(client, 'upload_text', { filename: 'b.txt', text: 'x'.repeat(10) });
    expect(await toolData(client, 'get_usage')).toMatchObject({ usedBytes: 10, files: 1, quotaBytes: 10 });
  });

  it('holds the type rules: a type ALLOWED_FILE_TYPES leaves out is INVALID_FILE_TYPE', async () => {
    const { key } = await createKey('types');
    const client = await withEnv(key, { ALLOWED_FILE_TYPES: 'image/png' });
    expect(await toolRefusal(client, 'upload_text', { filename: 'a.txt', text: 'plain' })).toMatchObject({
      code: 'INVALID_FILE_TYPE',
    });
    expect(await toolData(client, 'list_files')).toMatchObject({ files: [] });
  });

  it('holds the policy: an upload’s expiry past FILE_MAX_EXPIRY_SECONDS is POLICY_VIOLATION', async () => {
    const { key } = await createKey('policy-files');
    const client = await withEnv(key, { FILE_MAX_EXPIRY_SECONDS: '3600', FILE_REQUIRE_EXPIRY: 'true' });
    expect(await toolRefusal(client, 'upload_text', { filename: 'a.txt', text: 'a', expiresIn: 7200 })).toMatchObject({
      code: 'POLICY_VIOLATION',
      details: [{ field: 'expiresIn', limit: 3600 }],
    });
    const kept = await toolData<Upload>(client, 'upload_text', { filename: 'a.txt', text: 'a', expiresIn: 600 });
    expect(kept.expiresAt).toBeDefined();
    expect(await toolData(client, 'list_files')).toMatchObject({ pagination: { total: 1 } });
  });

  it('refuses upload_from_url to other schemes and to private, link-local and CGNAT hosts before fetching', async () => {
    const { key } = await createKey('url-rules');
    const client = await mcpClient(key);
    for (const url of [
      'ftp://example.com/a.txt',
      'file:///etc/passwd',
      'data:text/plain,hello',
      'http://10.0.0.1/a',
      'http://192.168.1.1/a',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.0.1/a',
      'http://[fd00:ec2::254]/a',
      'http://[::ffff:10.0.0.1]/a',
      'http://user:pass@example.com/a',
      'not a url',
    ]) {
      expect(await toolRefusal(client, 'upload_from_url', { url }), url).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [{ field: 'url' }],
      });
    }
    expect(await toolData(client, 'get_usage')).toMatchObject({ usedBytes: 0, reservedBytes: 0 });
  });

  it('refuses local names, wildcard DNS names of non-public addresses and, outside development, loopback, without fetching', async () => {
    const { key } = await createKey('url-names');
    const fetched = vi.spyOn(globalThis, 'fetch');
    const client = await mcpClient(key);
    for (const url of [
      'http://localhost/a',
      'http://api.localhost:8787/a',
      'http://printer.local/a',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://metadata/latest',
      'http://10.0.0.1.nip.io/a',
      'http://app.10-0-0-1.sslip.io/a',
      'http://a9fea9fe.nip.io/a', // hex: 169.254.169.254
      'http://--1.sslip.io/a',
      'http://127.0.0.1.nip.io/a',
      'http://lvh.me/a',
    ]) {
      expect(await toolRefusal(client, 'upload_from_url', { url }), url).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [{ field: 'url', message: expect.stringMatching(/non-public address/) }],
      });
    }
    const deployed = await withEnv(key, { ALLOW_LOOPBACK_TARGETS: 'false' });
    for (const url of ['http://127.0.0.1:8787/a', 'http://[::1]/a', 'http://2130706433/a', 'http://127.1/a']) {
      expect(await toolRefusal(deployed, 'upload_from_url', { url }), url).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [{ field: 'url', message: expect.stringMatching(/loopback address .*ALLOW_LOOPBACK_TARGETS=true/) }],
      });
    }
    expect(fetched).not.toHaveBeenCalled();
  });

  it('answers the same "could not be fetched" for a closed port and a name that does not resolve', async () => {
    const { key } = await createKey('url-unreachable');
    const client = await mcpClient(key);
    // Port 1 on loopback (allowed in the tests, as in development): nothing listens, refused at once.
    const closed = await toolRefusal(client, 'upload_from_url', { url: 'http://127.0.0.1:1/a.txt' });
    const unresolved = await toolRefusal(client, 'upload_from_url', { url: 'https://edgeshare-test.invalid/a.txt' });
    expect(closed).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'url', message: 'could not be fetched' }],
    });
    expect(unresolved).toEqual(closed);
    expect(await toolData(client, 'get_usage')).toMatchObject({ usedBytes: 0, reservedBytes: 0 });
  });
});

describe('sharing tools', () => {
  it('makes collections, links to a file and to a collection, and reads their access logs', async () => {
    const { key, auth } = await createKey('sharing');
    const client = await mcpClient(key);
    const a = await toolData<Upload>(client, 'upload_text', { filename: 'a.txt', text: 'a' });
    const b = await toolData<Upload>(client, 'upload_text', { filename: 'b.txt', text: 'b' });
    type Made = { id: string; fileCount: number; archiveUrl: string };
    const collection = await toolData<Made>(client, 'create_collection', { name: 'Both', fileIds: [a.id] });
    expect(collection.fileCount).toBe(1);
    const grown = await toolData<Made>(client, 'add_to_collection', { collectionId: collection.id, fileIds: [b.id] });
    expect(grown).toMatchObject({ id: collection.id, fileCount: 2 });
    // The archive URLs the tools hand out carry the archive's version: the first one is stale now.
    expect(grown.archiveUrl).toMatch(/\/archive\?v=[0-9a-f]{64}$/);
    expect((await call(grown.archiveUrl, { headers: auth })).status).toBe(200);
    const stale = await call(collection.archiveUrl, { headers: auth });
    expect(await expectError(stale, 412, 'ARCHIVE_CHANGED')).toMatchObject({ details: [{ url: grown.archiveUrl }] });

    const fileLink = await toolData<{ id: string; url: string; fileId: string }>(client, 'create_share_link', {
      fileId: a.id,
      label: 'for Bob',
      maxDownloads: 2,
    });
    // The link record as REST answers it: a budget of 2 × the 1-byte file.
    expect(fileLink).toMatchObject({
      fileId: a.id,
      label: 'for Bob',
      maxDownloads: 2,
      status: 'active',
      remainingBytes: 2,
    });
    const shared = await call(`${fileLink.url}/download`);
    expect(await shared.text()).toBe('a');
    const collectionLink = await toolData<{ id: string; collectionId: string; remainingBytes: number | null }>(
      client,
      'create_share_link',
      { collectionId: collection.id, expiresIn: 3600 },
    );
    expect(collectionLink.collectionId).toBe(collection.id);
    expect(collectionLink.remainingBytes).toBeNull();

    const byLink = await toolData<{ events: { kind: string }[] }>(client, 'get_access_log', { linkId: fileLink.id });
    expect(byLink.events.map((event) => event.kind)).toContain('download');
    const byFile = await toolData<{ events: unknown[] }>(client, 'get_access_log', { fileId: a.id, limit: 1 });
    expect(byFile.events).toHaveLength(1);
    expect(await toolData(client, 'get_access_log', { collectionId: collection.id })).toMatchObject({
      events: [],
      nextCursor: null,
    });

    expect(await toolRefusal(client, 'create_share_link', { fileId: a.id, collectionId: collection.id })).toMatchObject(
      { code: 'VALIDATION_ERROR' },
    );
    expect(
      await toolRefusal(client, 'create_share_link', { fileId: a.id, expiresIn: 60, expiresAt: 'x' }),
    ).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await toolRefusal(client, 'get_access_log', {})).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await toolRefusal(client, 'get_access_log', { linkId: 'lnk_nope' })).toMatchObject({
      code: 'LINK_NOT_FOUND',
    });
    expect(
      await toolRefusal(client, 'add_to_collection', {
        collectionId: collection.id,
        fileIds: ['AAAAAAAAAAAAAAAAAAAAAA'],
      }),
    ).toMatchObject({ code: 'FILE_NOT_FOUND', details: [{ id: 'AAAAAAAAAAAAAAAAAAAAAA' }] });
    expect(await toolRefusal(client, 'create_collection', { name: '' })).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('holds the policy on links and file requests (POLICY_VIOLATION, nothing made)', async () => {
    const { key } = await createKey('policy-links');
    const client = await withEnv(key, { LINK_REQUIRE_PASSWORD: 'true', REQUEST_MAX_EXPIRY_SECONDS: '3600' });
    const a = await toolData<Upload>(client, 'upload_text', { filename: 'a.txt', text: 'a' });
    expect(await toolRefusal(client, 'create_share_link', { fileId: a.id })).toMatchObject({
      code: 'POLICY_VIOLATION',
      details: [{ field: 'password', rule: 'linkRequirePassword' }],
    });
    expect(await toolRefusal(client, 'create_file_request', { expiresIn: 7200 })).toMatchObject({
      code: 'POLICY_VIOLATION',
    });
    expect(
      await toolRefusal(client, 'create_upload_url', { size: 5, contentType: 'text/plain', expiresIn: 7200 }),
    ).toMatchObject({ code: 'POLICY_VIOLATION' });
    const requests = await call('/api/v2/requests', { headers: { Authorization: `Bearer ${key}` } });
    expect(((await requests.json()) as { data: { requests: unknown[] } }).data.requests).toEqual([]);
  });

  it('create_file_request answers the REST record; get_access_log reads its log', async () => {
    const { key } = await createKey('requests');
    const client = await mcpClient(key);
    const request = await toolData<{ id: string; uploadUrl: string; tusUrl: string; maxFiles: number }>(
      client,
      'create_file_request',
      { label: 'Photos', maxFiles: 3 },
    );
    expect(request).toMatchObject({ label: 'Photos', maxFiles: 3, status: 'open' });
    expect(request.uploadUrl).toMatch(/\/api\/v2\/r\/[A-Za-z0-9_-]{32}\/upload$/);
    expect(await toolData(client, 'get_access_log', { requestId: request.id })).toMatchObject({ events: [] });
  });

  it('create_upload_url gives a URL that takes exactly one file of the stated size and type, named after it and closed once it is in', async () => {
    const { key, auth } = await createKey('upload-url');
    const client = await mcpClient(key);
    const made = await toolData<{ uploadUrl: string; tusUrl: string; expiresAt: string; requestId: string }>(
      client,
      'create_upload_url',
      { size: 5, contentType: 'text/plain', filename: 'hello.txt' },
    );
    expect(made.uploadUrl).toMatch(/\/api\/v2\/r\/[A-Za-z0-9_-]{32}\/upload\/hello\.txt$/);
    expect(made.tusUrl).toMatch(/\/api\/v2\/r\/[A-Za-z0-9_-]{32}\/tus$/);
    expect(Date.parse(made.expiresAt)).toBeGreaterThan(Date.now());
    const put = (body: string, type: string) =>
      call(made.uploadUrl, { method: 'PUT', headers: { 'Content-Type': type }, body });
    expect((await put('hello world', 'text/plain')).status).toBe(413);
    expect((await put('%PDF-', 'application/pdf')).status).toBe(415);
    // Named after the file it expects, and open until that file is in.
    expect(await getRequest(auth, made.requestId)).toMatchObject({
      label: 'hello.txt (text/plain, 5 bytes)',
      status: 'open',
      closedAt: null,
    });
    const stored = await put('hello', 'text/plain');
    expect(stored.status).toBe(201);
    const done = await getRequest(auth, made.requestId);
    expect(done).toMatchObject({ label: 'hello.txt (text/plain, 5 bytes)', status: 'closed', fileCount: 1 });
    expect(Date.parse(done.closedAt ?? '')).not.toBeNaN();
    const again = await put('hello', 'text/plain');
    expect(again.status).toBe(410);
    expect(await again.json()).toMatchObject({ code: 'REQUEST_CLOSED' });
    const files = await call(`/api/v2/requests/${made.requestId}/files`, { headers: auth });
    expect(((await files.json()) as { data: { files: unknown[] } }).data.files).toHaveLength(1);
    expect(await toolRefusal(client, 'create_upload_url', { size: 0, contentType: 'text/plain' })).toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    expect(await toolRefusal(client, 'create_upload_url', { size: 5, contentType: 'image/*' })).toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});

type UploadUrl = { uploadUrl: string; tusUrl: string; expiresAt: string; requestId: string };

/**
 * A 5-byte text/plain URL from create_upload_url, the request's multipart uploadUrl (the PUT one
 * without its filename), and a check that nothing of a refused upload is left: no blob, no row,
 * no account hold or reservation, no hold in the request's object.
 */
async function fiveByteUrl() {
  const owner = await createKey('exact-size');
  const client = await mcpClient(owner.key);
  const made = await toolData<UploadUrl>(client, 'create_upload_url', {
    size: 5,
    contentType: 'text/plain',
    filename: 'five.txt',
  });
  const formUrl = made.uploadUrl.slice(0, made.uploadUrl.lastIndexOf('/'));
  const nothingLeft = async () => {
    expect((await env.FILES.list({ prefix: `files/${owner.id}/` })).objects).toEqual([]);
    expect(await rowCount(owner.id)).toBe(0);
    expect(await usage(owner.id)).toEqual({ usedBytes: 0, files: 0, heldBytes: 0, heldFiles: 0 });
    expect(await holdsOf(made.requestId)).toEqual([]);
  };
  /** The one file the URL took: 5 bytes, the request full after it. */
  const tookOne = async () => {
    const files = await call(`/api/v2/requests/${made.requestId}/files`, { headers: owner.auth });
    const data = ((await files.json()) as { data: { files: { size: number }[] } }).data;
    expect(data.files.map((file) => file.size)).toEqual([5]);
  };
  return { owner, made, formUrl, nothingLeft, tookOne };
}

/** The 400 for a file smaller than the URL's size: VALIDATION_ERROR naming `file`. */
async function expectTooSmall(response: Response) {
  const body = await expectError(response, 400, 'VALIDATION_ERROR');
  expect(body.details).toEqual([{ field: 'file', message: expect.stringMatching(/exactly 5 bytes/) }]);
}

const putTo = (url: string, body: BodyInit, headers: Record<string, string> = {}) =>
  call(url, { method: 'PUT', headers: { 'Content-Type': 'text/plain', ...headers }, body });

const tusCreate = (url: string, length: number, body?: string) =>
  call(url, {
    method: 'POST',
    headers: {
      ...TUS,
      'Upload-Length': String(length),
      'Upload-Metadata': `filename ${base64('five.txt')},filetype ${base64('text/plain')}`,
      ...(body === undefined ? {} : OCTETS),
    },
    body,
  });

describe('create_upload_url takes exactly the stated size (issue 33)', () => {
  it('PUT with a smaller Content-Length: 400 naming file before the body is read, nothing left; then the exact file', async () => {
    const { made, nothingLeft, tookOne } = await fiveByteUrl();
    await expectTooSmall(await putTo(made.uploadUrl, 'hell', { 'Content-Length': '4' }));
    // Refused at once: a body that never comes is not waited for.
    const never = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) });
    await expectTooSmall(await putTo(made.uploadUrl, never, { 'Content-Length': '4' }));
    await expectTooSmall(await putTo(made.uploadUrl, '', { 'Content-Length': '0' }));
    await nothingLeft();
    expect((await putTo(made.uploadUrl, 'hello world', { 'Content-Length': '11' })).status).toBe(413);
    expect((await putTo(made.uploadUrl, 'hello', { 'Content-Length': '5' })).status).toBe(201);
    await expectError(await putTo(made.uploadUrl, 'hello', { 'Content-Length': '5' }), 410, 'REQUEST_CLOSED');
    await tookOne();
  });

  it('a chunked PUT (no Content-Length) of fewer bytes: 400 at its end, nothing left; then the exact file', async () => {
    const { made, nothingLeft, tookOne } = await fiveByteUrl();
    const bytes = (text: string) => chunked(new TextEncoder().encode(text), 2);
    await expectTooSmall(await putTo(made.uploadUrl, bytes('hell')));
    await nothingLeft();
    expect((await putTo(made.uploadUrl, bytes('hello world'))).status).toBe(413);
    await nothingLeft();
    expect((await putTo(made.uploadUrl, bytes('hello'))).status).toBe(201);
    await expectError(await putTo(made.uploadUrl, bytes('hello')), 410, 'REQUEST_CLOSED');
    await tookOne();
  });

  it('a multipart form with a smaller file: 400 at its end, nothing left; then the exact file', async () => {
    const { formUrl, nothingLeft, tookOne } = await fiveByteUrl();
    const file = (content: string) => [{ filename: 'five.txt', content, type: 'text/plain' }];
    await expectTooSmall(await send({ uploadUrl: formUrl }, file('hell')));
    await nothingLeft();
    expect((await send({ uploadUrl: formUrl }, file('hello'))).status).toBe(201);
    await expectError(await send({ uploadUrl: formUrl }, file('hello')), 410, 'REQUEST_CLOSED');
    await tookOne();
  });

  it('tus with a smaller Upload-Length: 400 at creation, no upload made, nothing left; then the exact file', async () => {
    const { made, nothingLeft, tookOne } = await fiveByteUrl();
    const refused = await tusCreate(made.tusUrl, 4);
    expect(refused.headers.get('location')).toBeNull();
    await expectTooSmall(refused);
    await expectTooSmall(await tusCreate(made.tusUrl, 4, 'hell'));
    await nothingLeft();
    await expectError(await tusCreate(made.tusUrl, 6), 413, 'FILE_TOO_LARGE');
    const created = await tusCreate(made.tusUrl, 5, 'hello');
    expect(created.status).toBe(201);
    expect(created.headers.get('upload-offset')).toBe('5');
    await expectError(await tusCreate(made.tusUrl, 5), 410, 'REQUEST_CLOSED');
    await tookOne();
  });

  it('its page says the exact size it takes, to the byte; a REST request’s page says no such thing', async () => {
    const { owner, made } = await fiveByteUrl();
    const page = await call(`/r/${tokenOf(await getRequest(owner.auth, made.requestId))}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('This link takes one file of exactly 5 bytes');
    // The page's script refuses any other size before sending a byte.
    expect(html).toContain('data-exact-bytes="5"');
    const client = await mcpClient(owner.key);
    const large = await toolData<UploadUrl>(client, 'create_upload_url', {
      size: 5 * 1024 * 1024 + 3,
      contentType: 'text/plain',
    });
    const largePage = await (await call(`/r/${tokenOf(await getRequest(owner.auth, large.requestId))}`)).text();
    expect(largePage).toContain('exactly 5,242,883 bytes (5 MiB)');
    const rest = await makeRequest(owner.auth, { maxFiles: 1, maxFileSize: 5 });
    const restPage = await (await call(`/r/${tokenOf(rest)}`)).text();
    expect(restPage).not.toContain('exactly');
    expect(restPage).not.toContain('data-exact-bytes');
  });

  it('refuses a PATCH that lowers maxFileSize below the exact size (400 naming maxFileSize); the URL still takes its file', async () => {
    const { owner, made, tookOne } = await fiveByteUrl();
    const body = await expectError(
      await patchRequest(owner.auth, made.requestId, { maxFileSize: 4 }),
      400,
      'VALIDATION_ERROR',
    );
    expect(body.details).toEqual([{ field: 'maxFileSize', message: expect.stringMatching(/exactly 5 bytes/) }]);
    expect((await getRequest(owner.auth, made.requestId)).maxFileSize).toBe(5);
    // At or above it is a change like any other (the exact size still rules).
    expect((await patchRequest(owner.auth, made.requestId, { maxFileSize: 100, label: 'five' })).status).toBe(200);
    expect((await putTo(made.uploadUrl, 'hello', { 'Content-Length': '5' })).status).toBe(201);
    await tookOne();
  });

  it('leaves file requests made over REST as they were: maxFileSize is an upper bound there', async () => {
    const { auth } = await createKey('rest-request');
    const request = await makeRequest(auth, { maxFiles: 1, maxFileSize: 5, allowedTypes: ['text/plain'] });
    const response = await send(request, [{ filename: 'a.txt', content: 'hi', type: 'text/plain' }]);
    expect(response.status).toBe(201);
  });
});

describe('rate limit and log', () => {
  it('counts each POST once against the key’s rate limit; past it a tools/call is RATE_LIMITED', async () => {
    const { key } = await createKey('limited', { rateLimitRequests: 5, rateLimitWindowSeconds: 3600 });
    const remaining: string[] = [];
    const client = await mcpClient(key, {
      fetch: async (url, init) => {
        const response = await call(String(url), init);
        // The client also tries a GET for a server-sent event stream: 405, before authentication.
        if (init?.method === 'POST') remaining.push(response.headers.get('X-RateLimit-Remaining') ?? '');
        return response;
      },
    });
    // initialize and notifications/initialized: two POSTs.
    expect(remaining).toEqual(['4', '3']);
    await toolData(client, 'get_usage');
    await toolData(client, 'upload_text', { filename: 'a.txt', text: 'a' });
    await toolData(client, 'list_files');
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await callTool(client, 'upload_text', { filename: 'b.txt', text: 'b' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ code: 'RATE_LIMITED' });
    // Anything else past the limit is the HTTP 429 itself.
    await expect(client.listTools()).rejects.toThrow(/RATE_LIMITED/);
  });

  it('writes one request log line per call, naming the tool', async () => {
    const { key } = await createKey('logged');
    const client = await mcpClient(key);
    const lines: Record<string, unknown>[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => {
      lines.push(JSON.parse(line));
    });
    await toolData(client, 'get_usage');
    await toolRefusal(client, 'get_file', { fileId: 'AAAAAAAAAAAAAAAAAAAAAA' });
    const requests = lines.filter((line) => line.msg === 'request' && line.method === 'POST');
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      method: 'POST',
      path: '/mcp',
      status: 200,
      mcp: { method: 'tools/call', tool: 'get_usage' },
    });
    expect(requests[1]).toMatchObject({ mcp: { tool: 'get_file', code: 'FILE_NOT_FOUND' } });
  });
});
