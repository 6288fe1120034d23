// Every upload path asks for a scan of each file it records (SCANNER set, SCAN_MODE or
// SCAN_REQUEST_UPLOADS not off): the file's scan is `pending` from its first answer on, and one
// message per file waits on the scan queue (held back here: no clamd is asked). With scanning off,
// no file is pending and nothing is queued. A queue that refuses the message leaves no file
// pending for good: its scan is `error`. (The scans themselves: scanning.clamd.test.ts.)
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ageFile, newIdentity } from '../helpers/age-files';
import { makeRequest, send } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { base64, createPartial, createUpload, OCTETS, patch, TUS } from '../helpers/tus';
import { filesForm, uploadOk } from '../helpers/upload';
import { createWebhook, interceptReceivers, ofType, payloadOf, receiver, waitFor } from '../helpers/webhooks';
import { call, createKey } from '../helpers/worker';
import { callTool, mcpClient } from '../mcp/mcp-helpers';
import { heldScans, scanOf } from './scanning-helpers';

const SCANNER = 'clamd://127.0.0.1:3310';
const text = { 'Content-Type': 'text/plain' };

let owner: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  interceptReceivers();
  owner = await createKey('scans', { rateLimitRequests: 100_000 });
});

/** Held scans for uploads under `vars` (the scanner's configuration): the env overrides to send with. */
const scanning = (vars: Record<string, string> = { SCANNER, SCAN_MODE: 'gate' }) => {
  const scans = heldScans();
  return { ...scans, env: { ...vars, ...scans.env } };
};

/** Each id's scan is pending and exactly these ids were queued, once each. */
async function expectQueued(scans: ReturnType<typeof scanning>, ids: string[]) {
  expect(scans.held.map((message) => message.fileId).sort()).toEqual([...ids].sort());
  for (const id of ids) {
    expect(await scanOf(owner.auth, id), id).toEqual({ status: 'pending', signature: null, at: expect.any(String) });
  }
}

const fileIdOf = async (response: Response) => {
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { data: { id: string } }).data.id;
};

describe('a file to scan', () => {
  it('is pending and queued once, through the form, bulk and raw uploads of v1 and v2', async () => {
    const scans = scanning();
    const v1 = await uploadOk('v1', owner.auth, { filename: 'a.txt', content: 'a' }, { env: scans.env });
    const v2 = await uploadOk('v2', owner.auth, { filename: 'b.txt', content: 'b' }, { env: scans.env });
    expect(v2.scan).toEqual({ status: 'pending', signature: null, at: v2.uploadedAt });
    const bulk = await call(
      '/api/v2/upload/bulk',
      {
        method: 'POST',
        headers: owner.auth,
        body: filesForm([
          { filename: 'c.txt', content: 'c' },
          { filename: 'd.txt', content: 'd' },
        ]),
      },
      scans.env,
    );
    expect(bulk.status).toBe(201);
    const bulkIds = ((await bulk.json()) as { data: { results: { data: { id: string } }[] } }).data.results.map(
      (result) => result.data.id,
    );
    const raw = await fileIdOf(
      await call('/api/v2/upload/e.txt', { method: 'PUT', headers: { ...owner.auth, ...text }, body: 'e' }, scans.env),
    );
    await expectQueued(scans, [v1.id, v2.id, ...bulkIds, raw]);
  });

  it('is pending and queued once through tus, a whole upload and a concatenation of partials', async () => {
    const scans = scanning();
    const whole = await createUpload(owner.auth, 5, { filename: 'tus.txt' }, { body: 'whole', env: scans.env });
    expect(whole.response.status).toBe(201);
    const parts = await Promise.all(
      ['first ', 'second'].map(async (part) => {
        const partial = await createPartial(owner.auth, part.length);
        expect((await patch(owner.auth, partial.path, 0, part)).status).toBe(204);
        return partial.location;
      }),
    );
    // The final upload records the file: it is the request that queues its scan.
    const final = await call(
      '/api/v2/uploads',
      {
        method: 'POST',
        headers: {
          ...TUS,
          ...owner.auth,
          'Upload-Concat': `final;${parts.join(' ')}`,
          'Upload-Metadata': `filename ${base64('joined.txt')}`,
        },
      },
      scans.env,
    );
    expect(final.status).toBe(201);
    const finalId = new URL(final.headers.get('location') ?? '').pathname.split('/').pop() ?? '';
    await expectQueued(scans, [whole.id, finalId]);
  });

  it('is pending and queued once through a file request: its form, a raw PUT and tus', async () => {
    const request = await makeRequest(owner.auth, { maxFiles: 10 });
    // Strangers' files: SCAN_REQUEST_UPLOADS, gate by default once SCANNER is set, whatever SCAN_MODE says.
    const scans = scanning({ SCANNER });
    expect((await send(request, [{ filename: 'f.txt', content: 'f' }], { env: scans.env })).status).toBe(201);
    const put = await call(`${request.uploadUrl}/g.txt`, { method: 'PUT', headers: text, body: 'g' }, scans.env);
    expect(put.status).toBe(201);
    const tus = await call(
      request.tusUrl,
      {
        method: 'POST',
        headers: { ...TUS, ...OCTETS, 'Upload-Length': '1', 'Upload-Metadata': `filename ${base64('h.txt')}` },
        body: 'h',
      },
      scans.env,
    );
    expect(tus.status).toBe(201);
    const rows = await env.DB.prepare('SELECT id FROM files WHERE request_id = ?1')
      .bind(request.id)
      .all<{ id: string }>();
    expect(rows.results).toHaveLength(3);
    await expectQueued(
      scans,
      rows.results.map((row) => row.id),
    );
  });

  it('is pending and queued once through MCP: upload_text and upload_from_url', async () => {
    const scans = scanning();
    const source = receiver(() => new Response('fetched for the agent', { headers: text }));
    const client = await mcpClient(owner.key, { fetch: (url, init) => call(String(url), init, scans.env) });
    const fromText = await callTool(client, 'upload_text', { filename: 'agent.txt', text: 'from an agent' });
    const fromUrl = await callTool(client, 'upload_from_url', { url: `${source.url}/page.txt` });
    const ids = [fromText, fromUrl].map((result) => {
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
      return (result.structuredContent as { id: string }).id;
    });
    await expectQueued(scans, ids);
  });
});

describe('a file not to scan', () => {
  it('has scan null and queues nothing when scanning is off (no SCANNER, or SCAN_MODE off for a key’s uploads)', async () => {
    for (const vars of [{}, { SCANNER, SCAN_MODE: 'off' }, { SCAN_MODE: 'gate' }] as Record<string, string>[]) {
      const scans = scanning(vars);
      const file = await uploadOk('v2', owner.auth, { filename: 'off.txt' }, { env: scans.env });
      expect(file.scan, JSON.stringify(vars)).toBeNull();
      expect(scans.held).toEqual([]);
    }
    const request = await makeRequest(owner.auth);
    const scans = scanning({ SCANNER, SCAN_MODE: 'gate', SCAN_REQUEST_UPLOADS: 'off' });
    expect((await send(request, [{ filename: 'off.txt', content: 'x' }], { env: scans.env })).status).toBe(201);
    expect(scans.held).toEqual([]);
  });

  it('is skipped when end-to-end encrypted (ciphertext to a scanner): served at once, nothing queued', async () => {
    const scans = scanning();
    const file = await ageFile(await newIdentity(), 2000, 71);
    const put = { method: 'PUT', headers: owner.auth, body: file.bytes };
    const id = await fileIdOf(await call('/api/v2/upload/f.age?encryption=age', put, scans.env));
    expect(await scanOf(owner.auth, id)).toEqual({ status: 'skipped', signature: null, at: expect.any(String) });
    expect(scans.held).toEqual([]);
    const shared = (await (await call(`/api/v2/files/${id}`, { headers: owner.auth })).json()) as {
      data: { shareUrl: string };
    };
    // SCAN_MODE gate: a visitor gets a skipped file at once, as a clean one.
    const visit = await call(`${new URL(shared.data.shareUrl).pathname}/download`, {}, scans.env);
    expect(visit.status).toBe(200);
  });
});

describe('a scan queue that refuses the message', () => {
  it('keeps the upload (201) and records the scan as error, never leaving it pending; the owner hears of it', async () => {
    const hook = receiver();
    await createWebhook(owner.auth, hook.url, ['file.scanned']);
    const broken = {
      send: () => Promise.reject(new Error('queue down')),
      sendBatch: () => Promise.reject(new Error('queue down')),
    };
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const file = await uploadOk(
      'v2',
      owner.auth,
      { filename: 'lost.txt' },
      { env: { SCANNER, SCAN_MODE: 'gate', SCANS: broken } },
    );
    const lines = logged.mock.calls.map((args) => String(args[0]));
    logged.mockRestore();
    expect(lines).toEqual([expect.stringContaining('scans not queued')]);
    expect(await scanOf(owner.auth, file.id)).toEqual({ status: 'error', signature: null, at: expect.any(String) });
    const notice = await waitFor(() => ofType(hook.calls(), 'file.scanned')[0], 'file.scanned');
    expect(payloadOf(notice).data).toMatchObject({ file: { id: file.id }, scan: { status: 'error' } });
    // Held from visitors in gate mode, like any file its scan could not clear.
    await expectError(
      await call(`/share/${file.shareUrl.split('/share/')[1]}/download`, {}, { SCANNER, SCAN_MODE: 'gate' }),
      409,
      'SCAN_PENDING',
    );
  });
});
