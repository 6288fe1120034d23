// The hash blocklist on every upload path: a file whose SHA-256 is blocked is 451 CONTENT_BLOCKED
// (in bulk, a per-file failure with that code), leaves no R2 object (multipart uploads, tus tails and
// a final's partials included), changes no usage, advances no file request, and its owner gets
// `upload.blocked` through the real queue. The check is one read of the blocklist per upload.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, removeFile } from '../helpers/moderation';
import { makeRequest, newOwner, type RequestRecord, send } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import {
  binaryBytes,
  created,
  createFinal,
  MIB,
  metadata,
  multipartAlive,
  OCTETS,
  partialOf,
  patch,
  stateOf,
  TUS,
  tailObjects,
} from '../helpers/tus';
import { filesForm, form, uploadOk } from '../helpers/upload';
import { createWebhook, interceptReceivers, payloadOf, receiver, setResponder, waitFor } from '../helpers/webhooks';
import { call, createKey } from '../helpers/worker';
import { callTool, mcpClient } from '../mcp/mcp-helpers';

beforeAll(() => interceptReceivers());

const encoder = new TextEncoder();

/** Bytes no other test uploads, their SHA-256 put on the blocklist. */
async function blockedBytes(what: string, size = 64): Promise<{ bytes: Uint8Array; sha256: string }> {
  return block(encoder.encode(`${what} ${crypto.randomUUID()} `.padEnd(size, '.')));
}

/** Puts the bytes' SHA-256 on the blocklist (PUT /admin/blocklist/{sha256}). */
async function block(bytes: Uint8Array): Promise<{ bytes: Uint8Array; sha256: string }> {
  const sha256 = await hex(bytes);
  const response = await call(`/admin/blocklist/${sha256}`, {
    method: 'PUT',
    headers: { ...ADMIN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ reason: 'a test' }),
  });
  expect(response.status).toBe(201);
  return { bytes, sha256 };
}

async function hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return [...digest].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

type Usage = { usedBytes: number; reservedBytes: number; files: number; reservedFiles: number };

async function usageOf(auth: Record<string, string>): Promise<Usage> {
  const response = await call('/api/v2/usage', { headers: auth });
  expect(response.status).toBe(200);
  const { usedBytes, reservedBytes, files, reservedFiles } = ((await response.json()) as { data: Usage }).data;
  return { usedBytes, reservedBytes, files, reservedFiles };
}

/** An account with a webhook for upload.blocked, and its usage before anything is sent. */
async function owner() {
  const key = await newOwner();
  const hook = receiver();
  await createWebhook(key.auth, hook.url, ['upload.blocked']);
  return { ...key, hook, before: await usageOf(key.auth) };
}

type Owner = Awaited<ReturnType<typeof owner>>;

/** Every R2 object the account (or these uploads' tails) could have left. */
async function objectsOf(accountId: string, uploadIds: string[] = []): Promise<string[]> {
  const prefixes = ['files', 'segments', 'concat'].map((prefix) => `${prefix}/${accountId}/`);
  const keys: string[] = [];
  for (const prefix of prefixes) keys.push(...(await env.FILES.list({ prefix })).objects.map((object) => object.key));
  for (const id of uploadIds) keys.push(...(await tailObjects(id)));
  return keys;
}

const rowsOf = async (accountId: string) =>
  (await env.DB.prepare('SELECT COUNT(*) AS n FROM files WHERE account_id = ?1').bind(accountId).first<{ n: number }>())
    ?.n;

/** Nothing kept, nothing counted, and the owner told: the one event, with the hash. */
async function expectRefused(
  account: Owner,
  blocked: { sha256: string; bytes: Uint8Array },
  originalName: string,
  options: { uploadIds?: string[]; requestId?: string | null } = {},
) {
  expect(await objectsOf(account.id, options.uploadIds)).toEqual([]);
  expect(await rowsOf(account.id)).toBe(0);
  expect(await usageOf(account.auth)).toEqual(account.before);
  const [event] = await waitFor(
    () => (account.hook.calls().length > 0 ? account.hook.calls() : undefined),
    'upload.blocked',
  );
  if (!event) throw new Error('no event');
  expect(payloadOf(event)).toMatchObject({
    type: 'upload.blocked',
    data: { sha256: blocked.sha256, originalName, size: blocked.bytes.length, requestId: options.requestId ?? null },
  });
}

const expectBlocked = (response: Response) => expectError(response, 451, 'CONTENT_BLOCKED');

describe('a blocked SHA-256 on each upload path', () => {
  it('multipart, v1 and v2: 451 CONTENT_BLOCKED, nothing kept or counted, upload.blocked', async () => {
    for (const version of ['v1', 'v2'] as const) {
      const account = await owner();
      const blocked = await blockedBytes(`multipart ${version}`);
      const response = await call(`/api/${version}/upload`, {
        method: 'POST',
        headers: account.auth,
        body: form([{ filename: 'notes.txt', type: 'text/plain', content: blocked.bytes }]),
      });
      await expectBlocked(response);
      await expectRefused(account, blocked, 'notes.txt');
    }
  });

  it('bulk: the blocked file fails alone with CONTENT_BLOCKED, the others are stored and counted', async () => {
    const account = await owner();
    const blocked = await blockedBytes('bulk');
    const response = await call('/api/v2/upload/bulk', {
      method: 'POST',
      headers: account.auth,
      body: filesForm([
        { filename: 'a.txt', type: 'text/plain', content: 'first clean file' },
        { filename: 'bad.txt', type: 'text/plain', content: blocked.bytes },
        { filename: 'b.txt', type: 'text/plain', content: 'second clean file' },
      ]),
    });
    expect(response.status).toBe(201);
    const { data } = (await response.json()) as {
      data: { total: number; successful: number; failed: number; results: Record<string, unknown>[] };
    };
    expect(data).toMatchObject({ total: 3, successful: 2, failed: 1 });
    expect(data.results[1]).toEqual({
      success: false,
      filename: 'bad.txt',
      error: expect.stringContaining('blocklist'),
      code: 'CONTENT_BLOCKED',
    });
    const stored = data.results.flatMap((result) => (result.success ? [(result.data as { id: string }).id] : []));
    expect((await objectsOf(account.id)).sort()).toEqual(stored.map((id) => `files/${account.id}/${id}`).sort());
    expect(await usageOf(account.auth)).toEqual({ ...account.before, usedBytes: 16 + 17, files: 2 });
    const [event] = await waitFor(() => (account.hook.calls().length > 0 ? account.hook.calls() : undefined), 'event');
    expect(payloadOf(event as never)).toMatchObject({ data: { sha256: blocked.sha256, originalName: 'bad.txt' } });
  });

  it('raw PUT: 451, nothing kept', async () => {
    const account = await owner();
    const blocked = await blockedBytes('raw');
    const response = await call('/api/v2/upload/raw.txt', {
      method: 'PUT',
      headers: { ...account.auth, 'Content-Length': String(blocked.bytes.length) },
      body: blocked.bytes,
    });
    await expectBlocked(response);
    await expectRefused(account, blocked, 'raw.txt');
  });

  it('tus: the last PATCH is 451, the upload ends with its multipart upload, tail and reservation', async () => {
    const account = await owner();
    const blocked = await block(binaryBytes(9 * MIB + 1000, Math.floor(Math.random() * 2 ** 31)));
    const upload = await created(account.auth, blocked.bytes.length, { filename: 'tus.bin' });
    expect((await patch(account.auth, upload.path, 0, blocked.bytes.slice(0, 9 * MIB))).status).toBe(204);
    const state = await stateOf(upload.id);
    if (!state) throw new Error('no upload state');
    expect(await multipartAlive(state)).toBe(true);
    await expectBlocked(await patch(account.auth, upload.path, 9 * MIB, blocked.bytes.slice(9 * MIB)));
    expect(await multipartAlive(state)).toBe(false);
    const after = await call(upload.path, { method: 'HEAD', headers: { ...TUS, ...account.auth } });
    expect(after.status).toBe(410);
    await expectRefused(account, blocked, 'tus.bin', { uploadIds: [upload.id] });
  });

  it('tus concatenation: the final is 451 before it exists; its partials’ objects and reservations go', async () => {
    const account = await owner();
    const blocked = await blockedBytes('concat', 3000);
    const first = await partialOf(account.auth, blocked.bytes.slice(0, 1000));
    const second = await partialOf(account.auth, blocked.bytes.slice(1000));
    expect((await usageOf(account.auth)).reservedBytes).toBe(3000);
    const response = await createFinal(account.auth, [first.location, second.location], { filename: 'joined.txt' });
    await expectBlocked(response);
    for (const partial of [first, second]) {
      const status = await call(partial.path, { method: 'HEAD', headers: { ...TUS, ...account.auth } });
      expect(status.status).toBe(410);
    }
    await expectRefused(account, blocked, 'joined.txt', { uploadIds: [first.id, second.id] });
  });

  describe('through a file request', () => {
    let request: RequestRecord;
    let account: Owner;

    const expectRequestUntouched = async () => {
      const response = await call(`/api/v2/requests/${request.id}`, { headers: account.auth });
      expect(((await response.json()) as { data: RequestRecord }).data).toMatchObject({ fileCount: 0, bytes: 0 });
      expect(await env.FILE_REQUESTS.getByName(request.id).openHolds()).toEqual([]);
    };

    it('multipart: 451, the request counts nothing', async () => {
      account = await owner();
      request = await makeRequest(account.auth, { maxFiles: 3 });
      const blocked = await blockedBytes('request form');
      await expectBlocked(await send(request, [{ filename: 'form.txt', content: blocked.bytes, type: 'text/plain' }]));
      await expectRefused(account, blocked, 'form.txt', { requestId: request.id });
      await expectRequestUntouched();
    });

    it('raw PUT: 451, the request counts nothing', async () => {
      account = await owner();
      request = await makeRequest(account.auth, { maxFiles: 3 });
      const blocked = await blockedBytes('request raw');
      const response = await call(`${request.uploadUrl}/put.txt`, {
        method: 'PUT',
        headers: { 'Content-Length': String(blocked.bytes.length) },
        body: blocked.bytes,
      });
      await expectBlocked(response);
      await expectRefused(account, blocked, 'put.txt', { requestId: request.id });
      await expectRequestUntouched();
    });

    it('tus: the last PATCH is 451, the request counts nothing', async () => {
      account = await owner();
      request = await makeRequest(account.auth, { maxFiles: 3 });
      const blocked = await blockedBytes('request tus');
      const creation = await call(request.tusUrl, {
        method: 'POST',
        headers: {
          ...TUS,
          'Upload-Length': String(blocked.bytes.length),
          'Upload-Metadata': metadata({ filename: 'tus.txt' }),
        },
      });
      expect(creation.status).toBe(201);
      const location = creation.headers.get('location') ?? '';
      const response = await call(location, {
        method: 'PATCH',
        headers: { ...TUS, ...OCTETS, 'Upload-Offset': '0' },
        body: blocked.bytes,
      });
      await expectBlocked(response);
      await expectRefused(account, blocked, 'tus.txt', {
        requestId: request.id,
        uploadIds: [location.split('/').pop() ?? ''],
      });
      await expectRequestUntouched();
    });
  });

  describe('MCP', () => {
    it('upload_text: the tool refuses with CONTENT_BLOCKED, nothing kept', async () => {
      const account = await owner();
      const text = `blocked text ${crypto.randomUUID()}`;
      const blocked = await block(encoder.encode(text));
      const client = await mcpClient(account.key);
      const result = await callTool(client, 'upload_text', { filename: 'said.txt', text });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ code: 'CONTENT_BLOCKED' });
      await expectRefused(account, blocked, 'said.txt');
    });

    it('upload_from_url: the fetched body is refused with CONTENT_BLOCKED, nothing kept', async () => {
      const account = await owner();
      const blocked = await blockedBytes('fetched');
      const source = receiver();
      setResponder(source.host, () => new Response(blocked.bytes, { headers: { 'Content-Type': 'text/plain' } }));
      const client = await mcpClient(account.key);
      const result = await callTool(client, 'upload_from_url', { url: `https://${source.host}/fetched.txt` });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ code: 'CONTENT_BLOCKED' });
      await expectRefused(account, blocked, 'fetched.txt');
    });
  });
});

describe('the blocklist', () => {
  it('a file removed with blockHash keeps the same bytes out afterwards; unblocked, they are taken again', async () => {
    const account = await createKey('remover');
    const content = `removed for good ${crypto.randomUUID()}`;
    const first = await uploadOk('v2', account.auth, { filename: 'first.txt', content });
    await removeFile(first.id, 'Removed: a court order.', true);
    const again = await call('/api/v2/upload', {
      method: 'POST',
      headers: account.auth,
      body: form([{ filename: 'again.txt', type: 'text/plain', content }]),
    });
    await expectBlocked(again);
    const entry = await call(`/admin/blocklist/${first.sha256}`, { headers: ADMIN });
    expect(((await entry.json()) as { data: { reason: string } }).data.reason).toBe('Removed: a court order.');

    expect((await call(`/admin/blocklist/${first.sha256}`, { method: 'DELETE', headers: ADMIN })).status).toBe(200);
    const taken = await uploadOk('v2', account.auth, { filename: 'again.txt', content });
    expect(taken.sha256).toBe(first.sha256);
  });

  it('costs one statement per upload: one indexed lookup for a file, one IN list for a bulk of files', async () => {
    const account = await createKey('counted');
    const lookups: string[] = [];
    const counting = countingDb(env.DB, (sql) => {
      if (/\bblocklist\b/.test(sql)) lookups.push(sql);
    });
    const single = await call(
      '/api/v2/upload',
      { method: 'POST', headers: account.auth, body: form([{ filename: 'a.txt', content: 'counted once' }]) },
      { DB: counting },
    );
    expect(single.status).toBe(201);
    expect(lookups).toHaveLength(1);
    const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${lookups[0]}`)
      .bind('0'.repeat(64))
      .all<{ detail: string }>();
    expect(plan.results.map((row) => row.detail).join(' ')).toMatch(
      /USING (COVERING )?INDEX sqlite_autoindex_blocklist_1|USING PRIMARY KEY/,
    );

    lookups.length = 0;
    const files = Array.from({ length: 5 }, (_, index) => ({
      filename: `f${index}.txt`,
      type: 'text/plain',
      content: `counted bulk ${index}`,
    }));
    const bulk = await call(
      '/api/v2/upload/bulk',
      { method: 'POST', headers: account.auth, body: filesForm(files) },
      {
        DB: counting,
      },
    );
    expect(bulk.status).toBe(201);
    expect(lookups).toHaveLength(1);
    expect(lookups[0]).toContain('?5');
  });
});

/** A D1 database that reports the SQL of every statement it prepares (it still runs them). */
function countingDb(inner: D1Database, onPrepare: (sql: string) => void): D1Database {
  return new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === 'prepare') {
        return (sql: string) => {
          onPrepare(sql);
          return target.prepare(sql);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
