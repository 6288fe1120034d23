// An account the operator suspends: every key of it answers 403 ACCOUNT_SUSPENDED (REST and
// /mcp), every link of it (default, made, a collection's) and every file request of it (page,
// description, multipart, raw PUT, tus creation, a tus upload begun before) answers 451 with the
// statement; nothing is deleted, and unsuspending restores all of it with the same bytes.
import { beforeAll, describe, expect, it } from 'vitest';
import { json, makeCollection } from '../collections/collection-helpers';
import { tokenOf } from '../helpers/files';
import { makeLink, pathOf } from '../helpers/links';
import { adminPost, bodySha256, expect451, suspend, unsuspend, WITH_CONTACT } from '../helpers/moderation';
import { makeRequest, type RequestRecord, send, textFile } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { base64, OCTETS, TUS } from '../helpers/tus';
import { upload } from '../helpers/upload';
import { call, createKey } from '../helpers/worker';

const STATEMENT = 'Suspended: the account distributed malware (case 2026-12).';
const HTML = { Accept: 'text/html' };
const MCP_INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: {},
};

let owner: Awaited<ReturnType<typeof createKey>>;
let file: { id: string; token: string; sha256: string };
let linkPath: string;
let collectionPath: string;
let request: RequestRecord;
let tusLocation: string;

const tusCreate = (length: number) =>
  call(request.tusUrl, {
    method: 'POST',
    headers: { ...TUS, 'Upload-Length': String(length), 'Upload-Metadata': `filename ${base64('later.txt')}` },
  });
const tusPatch = (offset: number, body: string) =>
  call(tusLocation, { method: 'PATCH', headers: { ...TUS, ...OCTETS, 'Upload-Offset': String(offset) }, body });
const rawPut = () =>
  call(`${request.uploadUrl}/raw.txt`, { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'raw bytes' });
const mcp = () =>
  call('/mcp', {
    method: 'POST',
    headers: { ...owner.auth, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify(MCP_INIT),
  });

beforeAll(async () => {
  owner = await createKey('suspended owner');
  const { response, body } = await upload('v2', owner.auth, {
    filename: 'theirs.txt',
    content: 'kept while suspended',
  });
  expect(response.status).toBe(201);
  file = { id: body.data.id, token: tokenOf(body.data.shareUrl), sha256: body.data.sha256 };
  linkPath = pathOf(await makeLink(owner.auth, file.id));
  const collection = await makeCollection(owner.auth, { name: 'Theirs', fileIds: [file.id] });
  const made = await call(`/api/v2/collections/${collection.id}/links`, json({}, owner.auth));
  collectionPath = new URL(((await made.json()) as { data: { url: string } }).data.url).pathname;
  request = await makeRequest(owner.auth, { maxFiles: 10 });
  // A tus upload begun before the suspension, half sent.
  const created = await tusCreate(10);
  expect(created.status).toBe(201);
  tusLocation = new URL(created.headers.get('location') ?? '').pathname;
  expect((await tusPatch(0, 'first')).status).toBe(204);
});

describe('a suspended account', () => {
  it('answers 403 ACCOUNT_SUSPENDED to its keys and 451 on its links and requests; unsuspending restores them', async () => {
    const suspended = await suspend(owner.id, STATEMENT);
    expect(suspended).toMatchObject({ id: owner.id, suspension: { statement: STATEMENT, at: expect.any(String) } });

    // Its keys: every API request, the MCP endpoint too, with the statement.
    for (const [path, init] of [
      ['/api/v2/files', { headers: owner.auth }],
      [`/api/v1/files/${file.id}/download`, { headers: owner.auth }],
      ['/api/v2/usage', { headers: owner.auth }],
    ] as const) {
      const refused = await call(path, init);
      expect(await refused.clone().json()).toMatchObject({ statement: STATEMENT });
      await expectError(refused, 403, 'ACCOUNT_SUSPENDED');
    }
    const refusedMcp = await mcp();
    expect(refusedMcp.status).toBe(403);
    expect(await refusedMcp.json()).toMatchObject({ code: 'ACCOUNT_SUSPENDED', statement: STATEMENT });

    // Its links: the default one, a made one, a collection's.
    for (const page of [`/share/${file.token}`, linkPath, collectionPath]) {
      await expect451(await call(page, { headers: HTML }, WITH_CONTACT), STATEMENT, { contact: true, html: true });
    }
    for (const url of [
      `/share/${file.token}/download`,
      `${linkPath}/download`,
      `${collectionPath}/archive.zip`,
      `${collectionPath}/files/${file.id}`,
    ]) {
      await expect451(await call(url, {}, WITH_CONTACT), STATEMENT, { contact: true, what: url });
      await expect451(await call(url, { method: 'HEAD' }), STATEMENT, { head: true, what: url });
      await expect451(await call(url, { headers: { Range: 'bytes=0-1' } }), STATEMENT, { what: url });
    }

    // Its file request: the page, the description, and every way to upload.
    await expect451(await call(new URL(request.url).pathname, { headers: HTML }, WITH_CONTACT), STATEMENT, {
      contact: true,
      html: true,
    });
    await expect451(await call(request.uploadUrl.replace(/\/upload$/, '')), STATEMENT);
    await expect451(await send(request, [textFile()], { env: WITH_CONTACT }), STATEMENT, { contact: true });
    await expect451(await rawPut(), STATEMENT, { what: 'raw PUT' });
    await expect451(await tusCreate(4), STATEMENT, { what: 'tus creation' });
    await expect451(await tusPatch(5, 'later'), STATEMENT, { what: 'tus PATCH' });
    await expect451(await call(tusLocation, { method: 'HEAD', headers: TUS }), STATEMENT, { head: true });

    expect(await unsuspend(owner.id)).toMatchObject({ suspension: null });
    const listed = await call('/api/v2/files', { headers: owner.auth });
    expect(listed.status).toBe(200);
    expect((await mcp()).status).toBe(200);
    for (const url of [
      `/share/${file.token}/download`,
      `${linkPath}/download`,
      `${collectionPath}/files/${file.id}`,
      `/api/v2/files/${file.id}/download`,
    ]) {
      const response = await call(url, { headers: owner.auth });
      expect(response.status, url).toBe(200);
      expect(await bodySha256(response), url).toBe(file.sha256);
    }
    expect((await call(new URL(request.url).pathname, { headers: HTML })).status).toBe(200);
    expect((await send(request, [textFile()])).status).toBe(201);
    expect((await rawPut()).status).toBe(201);
    // The upload begun before goes on where it stopped.
    expect((await tusPatch(5, 'later')).status).toBe(204);
  });

  it('is 404 for an unknown account, needs a statement to suspend, and unsuspends without one', async () => {
    await expectError(await adminPost('/accounts/no-such-account/suspend', { statement: 'x' }), 404, 'NOT_FOUND');
    await expectError(await adminPost(`/accounts/${owner.id}/suspend`, {}), 400, 'VALIDATION_ERROR');
    await expectError(
      await adminPost(`/accounts/${owner.id}/suspend`, { statement: 'x'.repeat(2001) }),
      400,
      'VALIDATION_ERROR',
    );
    expect((await call('/api/v2/files', { headers: owner.auth })).status).toBe(200);
    expect(await unsuspend(owner.id)).toMatchObject({ suspension: null });
  });
});
