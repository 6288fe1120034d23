// The MCP tools that find and undo (issue 42): list_links, revoke_share_link, list_collections,
// remove_from_collection, list_file_requests, close_file_request, through the SDK client over
// HTTP: each answers what its REST route answers, needs its route's scope, finds nothing of
// another account (the same refusal as an id that does not exist), and counts once against the
// key's rate limit. And get_file's moderation and scan, create_upload_url's request's name.
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { quarantine } from '../helpers/moderation';
import { getRequest } from '../helpers/requests';
import { call, createKey } from '../helpers/worker';
import { callTool, mcpClient, toolData, toolRefusal } from './mcp-helpers';

type Auth = Record<string, string>;
type Link = { id: string; url: string; status: string; fileId: string | null; collectionId: string | null };
type Collection = { id: string; fileCount: number };
type FileRequest = { id: string; status: string; url: string; uploadUrl: string; label: string | null };

/** The `data` of a REST GET (or another method) that must succeed. */
async function rest<T = unknown>(auth: Auth, path: string, method = 'GET'): Promise<T> {
  const response = await call(`/api/v2${path}`, { method, headers: auth });
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text}`).toBe(200);
  return (JSON.parse(text) as { data: T }).data;
}

/** A key of the account `auth` belongs to, with only these scopes (through the keys API, as people make one). */
async function keyWith(auth: Auth, scopes: string[]) {
  const response = await call('/api/v2/keys', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'scoped', scopes }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { key: string } }).data.key;
}

/** An account with a file, a collection of it and another file, a link to each, and a file request. */
async function sharedThings(name: string) {
  const owner = await createKey(name);
  const client = await mcpClient(owner.key);
  const a = await toolData<{ id: string }>(client, 'upload_text', { filename: 'a.txt', text: 'a' });
  const b = await toolData<{ id: string }>(client, 'upload_text', { filename: 'b.txt', text: 'b' });
  const collection = await toolData<Collection>(client, 'create_collection', { name: 'Both', fileIds: [a.id, b.id] });
  const fileLink = await toolData<Link>(client, 'create_share_link', { fileId: a.id, label: 'for Bob' });
  const collectionLink = await toolData<Link>(client, 'create_share_link', { collectionId: collection.id });
  const request = await toolData<FileRequest>(client, 'create_file_request', { label: 'Photos' });
  return { owner, client, a, b, collection, fileLink, collectionLink, request };
}

describe('tools to find and undo', () => {
  it('list_links and revoke_share_link answer as GET /files/{id}/links, GET /collections/{id}/links and DELETE /links/{id}', async () => {
    const { owner, client, a, collection, fileLink, collectionLink } = await sharedThings('links');
    const ofFile = await toolData<{ links: Link[] }>(client, 'list_links', { fileId: a.id });
    expect(ofFile).toEqual(await rest(owner.auth, `/files/${a.id}/links`));
    expect(ofFile.links.map((link) => link.id)).toEqual([fileLink.id]);
    const ofCollection = await toolData<{ links: Link[] }>(client, 'list_links', { collectionId: collection.id });
    expect(ofCollection).toEqual(await rest(owner.auth, `/collections/${collection.id}/links`));
    expect(ofCollection.links.map((link) => link.id)).toEqual([collectionLink.id]);

    expect((await call(fileLink.url, { headers: { Accept: 'application/json' } })).status).toBe(200);
    const revoked = await toolData<Link>(client, 'revoke_share_link', { linkId: fileLink.id });
    expect(revoked).toMatchObject({ id: fileLink.id, status: 'revoked' });
    expect(revoked).toEqual(await rest(owner.auth, `/links/${fileLink.id}`));
    expect((await call(fileLink.url)).status).toBe(404);
    expect((await call(`${fileLink.url}/download`)).status).toBe(404);
    // Again: no error, the link as it is (its refused visits counted since).
    const again = await toolData<Link>(client, 'revoke_share_link', { linkId: fileLink.id });
    expect(again).toMatchObject({ id: fileLink.id, status: 'revoked' });
    expect(again).toEqual(await rest(owner.auth, `/links/${fileLink.id}`));
    await toolData(client, 'revoke_share_link', { linkId: collectionLink.id });
    expect((await call(collectionLink.url)).status).toBe(404);
    // The collection's link shows revoked in its list; the file's list keeps its revoked link.
    expect((await toolData<{ links: Link[] }>(client, 'list_links', { collectionId: collection.id })).links).toEqual([
      expect.objectContaining({ id: collectionLink.id, status: 'revoked' }),
    ]);

    expect(await toolRefusal(client, 'list_links', {})).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(await toolRefusal(client, 'list_links', { fileId: a.id, collectionId: collection.id })).toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    expect(await toolRefusal(client, 'revoke_share_link', {})).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'linkId' }],
    });
  });

  it('list_collections and remove_from_collection answer as GET /collections and DELETE /collections/{id}/files/{fileId}', async () => {
    const { owner, client, a, b, collection } = await sharedThings('collections');
    const listed = await toolData<{ collections: Collection[]; pagination: { limit: number } }>(
      client,
      'list_collections',
      { limit: 5 },
    );
    expect(listed).toEqual(await rest(owner.auth, '/collections?limit=5'));
    expect(listed.collections).toEqual([expect.objectContaining({ id: collection.id, fileCount: 2 })]);
    expect(listed.pagination.limit).toBe(5);

    const after = await toolData<Collection>(client, 'remove_from_collection', {
      collectionId: collection.id,
      fileId: a.id,
    });
    expect(after).toMatchObject({ id: collection.id, fileCount: 1 });
    expect(after).toEqual(await rest(owner.auth, `/collections/${collection.id}`));
    const members = await rest<{ files: { id: string }[] }>(owner.auth, `/collections/${collection.id}/files`);
    expect(members.files.map((file) => file.id)).toEqual([b.id]);
    // The file itself stays.
    expect(await toolData(client, 'get_file', { fileId: a.id })).toMatchObject({ id: a.id });
    expect(await toolRefusal(client, 'remove_from_collection', { collectionId: collection.id })).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ field: 'fileId' }],
    });
    expect(await toolRefusal(client, 'list_collections', { limit: 101 })).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('list_file_requests and close_file_request answer as GET /requests and DELETE /requests/{id}; the closed URL takes nothing', async () => {
    const { owner, client, request } = await sharedThings('requests');
    const listed = await toolData<{ requests: FileRequest[] }>(client, 'list_file_requests', { limit: 10 });
    expect(listed).toEqual(await rest(owner.auth, '/requests?limit=10'));
    expect(listed.requests).toEqual([expect.objectContaining({ id: request.id, label: 'Photos', status: 'open' })]);

    const closed = await toolData<FileRequest>(client, 'close_file_request', { requestId: request.id });
    expect(closed).toMatchObject({ id: request.id, status: 'closed' });
    expect(closed).toEqual(await rest(owner.auth, `/requests/${request.id}`));
    const form = new FormData();
    form.append('file', new File(['x'], 'x.txt', { type: 'text/plain' }));
    const refused = await call(request.uploadUrl, { method: 'POST', body: form });
    expect(refused.status).toBe(410);
    expect(await refused.json()).toMatchObject({ code: 'REQUEST_CLOSED' });
    expect(
      (await toolData<{ requests: FileRequest[] }>(client, 'list_file_requests')).requests.map((row) => row.status),
    ).toEqual(['closed']);
    expect(await toolRefusal(client, 'close_file_request', { requestId: 'nope' })).toMatchObject({
      code: 'REQUEST_NOT_FOUND',
    });
  });

  it('refuses a key without the route’s scope (FORBIDDEN naming it), and nothing is undone', async () => {
    const { owner, client, a, collection, fileLink, request } = await sharedThings('scopes');
    const reader = await mcpClient(await keyWith(owner.auth, ['files:read']));
    for (const [name, scope, args] of [
      ['revoke_share_link', 'links:write', { linkId: fileLink.id }],
      ['remove_from_collection', 'links:write', { collectionId: collection.id, fileId: a.id }],
      ['list_file_requests', 'requests:write', {}],
      ['close_file_request', 'requests:write', { requestId: request.id }],
    ] as const) {
      expect(await toolRefusal(reader, name, args), name).toMatchObject({ code: 'FORBIDDEN', details: [{ scope }] });
    }
    // What files:read allows, it reads.
    expect(await toolData(reader, 'list_links', { fileId: a.id })).toMatchObject({ links: [{ id: fileLink.id }] });
    expect(await toolData(reader, 'list_collections')).toMatchObject({ collections: [{ id: collection.id }] });
    const writer = await mcpClient(await keyWith(owner.auth, ['links:write']));
    for (const [name, args] of [
      ['list_links', { fileId: a.id }],
      ['list_collections', {}],
    ] as const) {
      expect(await toolRefusal(writer, name, args), name).toMatchObject({
        code: 'FORBIDDEN',
        details: [{ scope: 'files:read' }],
      });
    }
    expect(await toolData(client, 'list_links', { fileId: a.id })).toMatchObject({ links: [{ status: 'active' }] });
    expect(await toolData(client, 'list_collections')).toMatchObject({ collections: [{ fileCount: 2 }] });
    expect(await getRequest(owner.auth, request.id)).toMatchObject({ status: 'open' });
  });

  it('finds nothing of another account: the same not-found as an id that does not exist, and nothing is undone', async () => {
    const theirs = await sharedThings('theirs');
    const other = await createKey('other');
    const client = await mcpClient(other.key);
    const missing = {
      fileId: 'AAAAAAAAAAAAAAAAAAAAAA',
      collectionId: 'col_AAAAAAAAAAAAAAAAAAAAAA',
      linkId: 'lnk_AAAAAAAAAAAAAAAAAAAAAA',
      requestId: 'AAAAAAAAAAAAAAAAAAAAAA',
    };
    for (const [name, args, absent, code] of [
      ['list_links', { fileId: theirs.a.id }, { fileId: missing.fileId }, 'FILE_NOT_FOUND'],
      [
        'list_links',
        { collectionId: theirs.collection.id },
        { collectionId: missing.collectionId },
        'COLLECTION_NOT_FOUND',
      ],
      ['revoke_share_link', { linkId: theirs.fileLink.id }, { linkId: missing.linkId }, 'LINK_NOT_FOUND'],
      [
        'remove_from_collection',
        { collectionId: theirs.collection.id, fileId: theirs.a.id },
        { collectionId: missing.collectionId, fileId: theirs.a.id },
        'COLLECTION_NOT_FOUND',
      ],
      ['close_file_request', { requestId: theirs.request.id }, { requestId: missing.requestId }, 'REQUEST_NOT_FOUND'],
    ] as const) {
      const refusal = await toolRefusal(client, name, args);
      expect(refusal, name).toMatchObject({ code });
      expect(refusal, `${name}: as for an id that does not exist`).toEqual(await toolRefusal(client, name, absent));
    }
    expect(await toolData(client, 'list_collections')).toMatchObject({ collections: [], pagination: { total: 0 } });
    expect(await toolData(client, 'list_file_requests')).toMatchObject({ requests: [], pagination: { total: 0 } });
    // Theirs, as they were.
    const { owner } = theirs;
    expect(await rest(owner.auth, `/links/${theirs.fileLink.id}`)).toMatchObject({ status: 'active' });
    expect(await rest(owner.auth, `/collections/${theirs.collection.id}`)).toMatchObject({ fileCount: 2 });
    expect(await getRequest(owner.auth, theirs.request.id)).toMatchObject({ status: 'open' });
  });

  it('counts each call once against the key’s rate limit; past it a call is RATE_LIMITED and undoes nothing', async () => {
    const { key } = await createKey('limited', { rateLimitRequests: 11, rateLimitWindowSeconds: 3600 });
    const setup = await mcpClient(key);
    const file = await toolData<{ id: string }>(setup, 'upload_text', { filename: 'a.txt', text: 'a' });
    const link = await toolData<Link>(setup, 'create_share_link', { fileId: file.id });
    const remaining: number[] = [];
    const client = await mcpClient(key, {
      fetch: async (url, init) => {
        const response = await call(String(url), init);
        if (init?.method === 'POST') remaining.push(Number(response.headers.get('X-RateLimit-Remaining')));
        return response;
      },
    });
    const calls: [string, Record<string, unknown>][] = [
      ['list_links', { fileId: file.id }],
      ['list_collections', {}],
      ['remove_from_collection', { collectionId: 'col_AAAAAAAAAAAAAAAAAAAAAA', fileId: file.id }],
      ['list_file_requests', {}],
      ['close_file_request', { requestId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
    ];
    for (const [name, args] of calls) await callTool(client, name, args);
    // Each POST one less, refusals included (connecting took two POSTs; the setup, five more).
    const first = remaining[0] ?? Number.NaN;
    expect(remaining).toEqual(Array.from({ length: 7 }, (_, index) => first - index));
    expect(remaining.at(-1)).toBe(0);
    const refused = await callTool(client, 'revoke_share_link', { linkId: link.id });
    expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'RATE_LIMITED' } });
    const row = await env.DB.prepare('SELECT revoked_at FROM share_links WHERE id = ?1')
      .bind(link.id)
      .first<{ revoked_at: string | null }>();
    expect(row?.revoked_at).toBeNull();
    expect((await call(link.url)).status).toBe(200);
  });
});

describe('get_file and create_upload_url', () => {
  it('get_file shows the file’s moderation and scan as GET /files/{id} does', async () => {
    const { key, auth } = await createKey('standing');
    const client = await mcpClient(key);
    const file = await toolData<{ id: string }>(client, 'upload_text', { filename: 'a.txt', text: 'a' });
    expect(await toolData(client, 'get_file', { fileId: file.id })).toMatchObject({ moderation: null, scan: null });
    await env.DB.prepare("UPDATE files SET scan_status = 'pending', scanned_at = ?2 WHERE id = ?1")
      .bind(file.id, new Date().toISOString())
      .run();
    await quarantine(file.id, 'Held for review');
    const shown = await toolData(client, 'get_file', { fileId: file.id });
    expect(shown).toMatchObject({
      moderation: { state: 'quarantined', statement: 'Held for review' },
      scan: { status: 'pending', signature: null },
    });
    expect(shown).toEqual(await rest(auth, `/files/${file.id}`));
  });

  it('create_upload_url names its request after the file: name, type and size; the label given wins', async () => {
    const { key, auth } = await createKey('labels');
    const client = await mcpClient(key);
    type Made = { requestId: string };
    const named = await toolData<Made>(client, 'create_upload_url', {
      size: 1,
      contentType: 'application/pdf',
      filename: 'report.pdf',
    });
    expect((await getRequest(auth, named.requestId)).label).toBe('report.pdf (application/pdf, 1 byte)');
    const unnamed = await toolData<Made>(client, 'create_upload_url', { size: 2048, contentType: 'image/png' });
    expect((await getRequest(auth, unnamed.requestId)).label).toBe('Upload URL: image/png, 2048 bytes');
    const labelled = await toolData<Made>(client, 'create_upload_url', {
      size: 3,
      contentType: 'text/plain',
      filename: 'a.txt',
      label: 'For the invoice',
    });
    expect((await getRequest(auth, labelled.requestId)).label).toBe('For the invoice');
    // A long name is cut to the label's 200 characters, whole characters only, the type and size kept.
    const long = await toolData<Made>(client, 'create_upload_url', {
      size: 3,
      contentType: 'text/plain',
      filename: `${'😀'.repeat(150)}.txt`,
    });
    const label = (await getRequest(auth, long.requestId)).label ?? '';
    expect(label.length).toBeLessThanOrEqual(200);
    expect(label).toMatch(/^(😀)+ \(text\/plain, 3 bytes\)$/u);
    const listed = await toolData<{ requests: FileRequest[] }>(client, 'list_file_requests');
    expect(listed.requests.every((request) => request.label !== null)).toBe(true);
  });
});
