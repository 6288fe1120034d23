// Scanning with a real clamd, end to end: uploads queue their scans on the real local queue, whose
// consumer streams each file to clamd through connect() (SCANNER of the clamd project,
// vitest.config.ts), and visitors, the owner and the operator see the outcome. Where a test must
// see a file before its scan, the upload's message is held back (heldScans) and released after;
// where it runs through the retries, it delivers the messages itself (deliverScan), so that no
// backoff is waited out.
import { env } from 'cloudflare:test';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { SCAN_ATTEMPTS, SCAN_RETRY_DELAYS_SECONDS } from '../../src/scanning/schedule';
import { tokenOf } from '../helpers/files';
import { makeLink, pathOf } from '../helpers/links';
import { bodySha256, expect451, release } from '../helpers/moderation';
import { makeRequest, send } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { uploadOk } from '../helpers/upload';
import {
  callsTo,
  createWebhook,
  interceptReceivers,
  ofType,
  payloadOf,
  type Received,
  receiver,
  waitFor,
} from '../helpers/webhooks';
import { call, createKey } from '../helpers/worker';
import { callTool, mcpClient } from '../mcp/mcp-helpers';
import { clamdRunning, deliverScan, EICAR, heldScans, MARKER, scanned, scanOf } from './scanning-helpers';

const EICAR_SIGNATURE = 'Edgeshare.Test.EICAR.UNOFFICIAL';
const MIB = 1024 * 1024;

const verify = (secret: string, delivery: Received) =>
  new Webhook(secret).verify(delivery.body, {
    'webhook-id': delivery.headers.get('webhook-id') ?? '',
    'webhook-timestamp': delivery.headers.get('webhook-timestamp') ?? '',
    'webhook-signature': delivery.headers.get('webhook-signature') ?? '',
  }) as { type: string; data: Record<string, unknown> };

async function expectPending(response: Response, retryAfter: string, what: string) {
  expect(response.headers.get('retry-after'), what).toBe(retryAfter);
  await expectError(response, 409, 'SCAN_PENDING');
}

/** The one file a file request received. */
async function receivedFile(requestId: string): Promise<string> {
  const row = await env.DB.prepare('SELECT id FROM files WHERE request_id = ?1')
    .bind(requestId)
    .first<{ id: string }>();
  if (!row) throw new Error('no file received');
  return row.id;
}

let owner: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  interceptReceivers();
  owner = await createKey('scanned owner', { rateLimitRequests: 100_000 });
});

describe.skipIf(!clamdRunning())('files scanned by clamd', () => {
  it('holds the EICAR file a stranger sent through a file request (gate), then quarantines it as malware: 451 to all', async () => {
    const hook = receiver();
    const webhook = await createWebhook(owner.auth, hook.url, ['file.scanned', 'file.quarantined']);
    const request = await makeRequest(owner.auth);
    const scans = heldScans();
    const sent = await send(request, [{ filename: 'invoice.txt', content: EICAR }], { env: scans.env });
    expect(sent.status).toBe(201);
    const fileId = await receivedFile(request.id);
    expect(scans.held).toEqual([{ fileId }]);
    expect(await scanOf(owner.auth, fileId)).toEqual({ status: 'pending', signature: null, at: expect.any(String) });

    // While its scan is to come: visitors wait (SCAN_REQUEST_UPLOADS is gate once SCANNER is set), the owner does not.
    const link = `${pathOf(await makeLink(owner.auth, fileId))}/download`;
    await expectPending(await call(link), '30', 'the link, pending');
    const mine = await call(`/api/v2/files/${fileId}/download`, { headers: owner.auth });
    expect(new Uint8Array(await mine.arrayBuffer())).toEqual(EICAR);

    await scans.release();
    const statement = `malware: ${EICAR_SIGNATURE}`;
    expect(await scanned(owner.auth, fileId)).toEqual({
      status: 'infected',
      signature: EICAR_SIGNATURE,
      at: expect.any(String),
    });
    const record = await call(`/api/v2/files/${fileId}`, { headers: owner.auth });
    expect(((await record.json()) as { data: unknown }).data).toMatchObject({
      moderation: { state: 'quarantined', statement },
    });
    await expect451(await call(link), statement);
    await expect451(await call(`/api/v2/files/${fileId}/download`, { headers: owner.auth }), statement);

    // The owner's two notices and the operator's, each signed with its own secret.
    // This file's, by type: the owner's earlier files' notices may still be on their way.
    const scannedNotice = await waitFor(
      () => ofType(hook.calls(), 'file.scanned').find((c) => payloadOf(c).data.file?.id === fileId),
      'the owner’s file.scanned',
    );
    const quarantined = await waitFor(
      () => ofType(hook.calls(), 'file.quarantined').find((c) => payloadOf(c).data.file?.id === fileId),
      'the owner’s file.quarantined',
    );
    const scan = { status: 'infected', signature: EICAR_SIGNATURE, at: expect.any(String) };
    expect(verify(webhook.secret, scannedNotice).data).toMatchObject({
      file: { id: fileId, requestId: request.id },
      scan,
    });
    expect(verify(webhook.secret, quarantined).data).toMatchObject({ statement, file: { id: fileId } });
    const toOperator = await waitFor(
      () => callsTo('operator.hooks.test').find((delivery) => payloadOf(delivery).data.file?.id === fileId),
      'the operator’s notice',
    );
    expect(verify(env.OPERATOR_WEBHOOK_SECRET ?? '', toOperator)).toMatchObject({
      type: 'file.scanned',
      data: { accountId: owner.id, file: { id: fileId }, scan },
    });
  });

  it('serves a clean file to visitors once clamd has read all of it (gate), and tells its owner', async () => {
    const hook = receiver();
    const webhook = await createWebhook(owner.auth, hook.url, ['file.scanned']);
    // Several chunks, the signatures' bytes split so that none is whole.
    const content = new Uint8Array(600 * 1024).fill(0x2e);
    content.set(MARKER.subarray(0, 10), 300 * 1024);
    content.set(EICAR.subarray(0, 40), 500 * 1024);
    const file = await uploadOk('v2', owner.auth, { filename: 'notes.txt', type: 'text/plain', content });
    expect(file.scan).toEqual({ status: 'pending', signature: null, at: expect.any(String) });
    expect(await scanned(owner.auth, file.id)).toEqual({ status: 'clean', signature: null, at: expect.any(String) });
    const served = await call(`/share/${tokenOf(file.shareUrl)}/download`);
    expect(served.status).toBe(200);
    expect(await bodySha256(served)).toBe(file.sha256);
    const notice = await waitFor(
      () => ofType(hook.calls(), 'file.scanned').find((c) => payloadOf(c).data.file?.id === file.id),
      'file.scanned',
    );
    expect(verify(webhook.secret, notice).data).toMatchObject({
      file: { id: file.id },
      scan: { status: 'clean', signature: null },
    });
  });

  it('finds a signature anywhere in a file, not only at its start (the marker, 700 KiB in)', async () => {
    const content = new Uint8Array(900 * 1024).fill(0x2e);
    content.set(MARKER, 700 * 1024);
    const file = await uploadOk('v2', owner.auth, { filename: 'report.txt', type: 'text/plain', content });
    expect(await scanned(owner.auth, file.id)).toMatchObject({
      status: 'infected',
      signature: 'Edgeshare.Test.Marker.UNOFFICIAL',
    });
  });

  it('serves a file at once in async mode and quarantines it once clamd finds malware', async () => {
    const scans = heldScans();
    const async = { ...scans.env, SCAN_MODE: 'async' };
    const file = await uploadOk(
      'v2',
      owner.auth,
      { filename: 'eicar.txt', type: 'text/plain', content: EICAR },
      { env: async },
    );
    const share = `/share/${tokenOf(file.shareUrl)}/download`;
    const before = await call(share, {}, { SCAN_MODE: 'async' });
    expect(before.status).toBe(200);
    expect(new Uint8Array(await before.arrayBuffer())).toEqual(EICAR);
    await scans.release();
    expect(await scanned(owner.auth, file.id)).toMatchObject({ status: 'infected', signature: EICAR_SIGNATURE });
    await expect451(await call(share, {}, { SCAN_MODE: 'async' }), `malware: ${EICAR_SIGNATURE}`);
  });

  it('shows the scan on the owner’s record over MCP too (get_file)', async () => {
    const file = await uploadOk('v2', owner.auth, { filename: 'plain.txt', type: 'text/plain', content: 'plain' });
    await scanned(owner.auth, file.id);
    const client = await mcpClient(owner.key);
    const result = await callTool(client, 'get_file', { fileId: file.id });
    expect(result.structuredContent).toMatchObject({ id: file.id, scan: { status: 'clean', signature: null } });
  });

  it('is too_large past SCAN_MAX_BYTES without sending a byte to clamd, and held from visitors until released', async () => {
    const scans = heldScans();
    const content = new Uint8Array(MIB + 1).fill(0x2e);
    const file = await uploadOk(
      'v2',
      owner.auth,
      { filename: 'big.txt', type: 'text/plain', content },
      { env: scans.env },
    );
    const [message] = scans.take();
    if (!message) throw new Error('no scan queued');
    // Delivered with a scanner that cannot be reached: it is never asked (an attempt to would be an error).
    expect(await deliverScan(message, 1, { SCANNER: env.STOPPED_SCANNER })).toEqual({ acked: true, delay: undefined });
    expect(await scanOf(owner.auth, file.id)).toEqual({ status: 'too_large', signature: null, at: expect.any(String) });
    const share = `/share/${tokenOf(file.shareUrl)}/download`;
    await expectPending(await call(share), '3600', 'too large');
    expect((await call(`/api/v2/files/${file.id}/download`, { headers: owner.auth })).status).toBe(200);
    await release(file.id);
    const served = await call(share);
    expect(served.status).toBe(200);
    expect(await bodySha256(served)).toBe(file.sha256);
  });

  it('is an error, never clean, with clamd stopped: retried with growing delays, then held until released', async () => {
    const hook = receiver();
    const webhook = await createWebhook(owner.auth, hook.url, ['file.scanned']);
    const scans = heldScans();
    const file = await uploadOk(
      'v2',
      owner.auth,
      { filename: 'later.txt', type: 'text/plain', content: 'fine' },
      { env: scans.env },
    );
    const [message] = scans.take();
    if (!message) throw new Error('no scan queued');
    const stopped = { SCANNER: env.STOPPED_SCANNER };
    const share = `/share/${tokenOf(file.shareUrl)}/download`;
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    onTestFinished(() => logged.mockRestore());
    for (let attempt = 1; attempt < SCAN_ATTEMPTS; attempt++) {
      const outcome = await deliverScan(message, attempt, stopped);
      expect(outcome, `attempt ${attempt}`).toEqual({ acked: false, delay: SCAN_RETRY_DELAYS_SECONDS[attempt - 1] });
      expect((await scanOf(owner.auth, file.id))?.status).toBe('pending');
      await expectPending(await call(share), '30', `after attempt ${attempt}`);
    }
    expect(await deliverScan(message, SCAN_ATTEMPTS, stopped)).toEqual({ acked: true, delay: undefined });
    const lines = logged.mock.calls.map((args) => JSON.parse(String(args[0])) as { msg: string; fileId: string });
    expect(lines.map((line) => line.msg)).toEqual([
      ...Array(SCAN_ATTEMPTS - 1).fill('scan failed, tried again later'),
      'scan recorded',
    ]);
    expect(await scanOf(owner.auth, file.id)).toEqual({ status: 'error', signature: null, at: expect.any(String) });
    await expectPending(await call(share), '3600', 'after the last attempt');
    const notice = await waitFor(
      () => ofType(hook.calls(), 'file.scanned').find((c) => payloadOf(c).data.file?.id === file.id),
      'file.scanned',
    );
    expect(verify(webhook.secret, notice).data).toMatchObject({ file: { id: file.id }, scan: { status: 'error' } });

    // A delivery of the same message again (the queue delivers at least once) changes nothing.
    expect(await deliverScan(message, 1)).toEqual({ acked: true, delay: undefined });
    expect((await scanOf(owner.auth, file.id))?.status).toBe('error');
    await release(file.id);
    expect((await call(share)).status).toBe(200);
  });

  it('records error for a scan that reached the dead-letter queue, and nothing for a file gone since', async () => {
    const scans = heldScans();
    const file = await uploadOk(
      'v2',
      owner.auth,
      { filename: 'dead.txt', type: 'text/plain', content: 'x' },
      { env: scans.env },
    );
    const gone = await uploadOk(
      'v2',
      owner.auth,
      { filename: 'gone.txt', type: 'text/plain', content: 'y' },
      { env: scans.env },
    );
    const [first, second] = scans.take();
    if (!first || !second) throw new Error('no scans queued');
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    onTestFinished(() => logged.mockRestore());
    expect((await call(`/api/v2/files/${gone.id}`, { method: 'DELETE', headers: owner.auth })).status).toBe(200);
    expect(await deliverScan(second, 1)).toEqual({ acked: true, delay: undefined });
    expect(await deliverScan(first, 1, {}, 'edgeshare-scans-dlq')).toEqual({ acked: true, delay: undefined });
    expect((await scanOf(owner.auth, file.id))?.status).toBe('error');
  });
});
