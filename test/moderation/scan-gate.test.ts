// What a file's scan lets through (src/moderation/standing.ts): in SCAN_MODE=gate a visitor gets
// a file only once its scan is clean (409 SCAN_PENDING with Retry-After until then, a page for
// browsers), while its owner downloads it at once; a file the scanner could not clear is held
// until an operator releases it; files from file requests follow SCAN_REQUEST_UPLOADS (gate by
// default once SCANNER is set). The scan's outcome is recorded through recordScan, the scanner's
// entry point (src/abuse/service.ts): `infected` quarantines the file and tells its owner and the
// operator, each delivery signed (verified with the standardwebhooks package).
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordScan } from '../../src/abuse/service';
import { eventSink } from '../../src/events/emit';
import type { ScanStatus } from '../../src/storage/files-repo';
import { archive, bytesOf, json, makeCollection } from '../collections/collection-helpers';
import { tokenOf } from '../helpers/files';
import { makeLink, pathOf } from '../helpers/links';
import { bodySha256, expect451, release } from '../helpers/moderation';
import { makeRequest, send, textFile } from '../helpers/requests';
import { expectError } from '../helpers/responses';
import { upload } from '../helpers/upload';
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
import { readArchive } from '../helpers/zip-reader';

const SCANNER = 'clamd://127.0.0.1:3310';
const GATE = { SCANNER, SCAN_MODE: 'gate' };
const HTML = { Accept: 'text/html' };

let owner: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  interceptReceivers();
  owner = await createKey('scanned owner');
});

type Uploaded = { id: string; token: string; sha256: string };

async function put(filename: string, content: string): Promise<Uploaded> {
  const { response, body } = await upload('v2', owner.auth, { filename, content, type: 'text/plain' });
  expect(response.status).toBe(201);
  return { id: body.data.id, token: tokenOf(body.data.shareUrl), sha256: body.data.sha256 };
}

/** A new file's scan is pending, as the scanner marks it when the file arrives. */
const pending = (fileId: string) =>
  env.DB.prepare("UPDATE files SET scan_status = 'pending', scanned_at = ?2 WHERE id = ?1")
    .bind(fileId, new Date().toISOString())
    .run();

/** The scanner's outcome, recorded as the scanner records it (its events queued in a request's waitUntil). */
async function scanned(fileId: string, status: Exclude<ScanStatus, 'pending'>, signature?: string) {
  const ctx = createExecutionContext();
  const deps = {
    db: env.DB,
    bucket: env.FILES,
    accounts: env.ACCOUNT_STORAGE,
    limiter: env.KEY_LIMITER,
    events: eventSink(env, ctx),
    operatorWebhook: env.OPERATOR_WEBHOOK_URL,
  };
  const row = await recordScan(deps, fileId, { status, signature });
  await waitOnExecutionContext(ctx);
  return row;
}

const scanOf = async (fileId: string) => {
  const response = await call(`/api/v2/files/${fileId}`, { headers: owner.auth });
  return ((await response.json()) as { data: { scan: unknown } }).data.scan;
};

async function expectPending(response: Response, retryAfter: string, what: string) {
  expect(response.headers.get('retry-after'), what).toBe(retryAfter);
  await expectError(response, 409, 'SCAN_PENDING');
}

describe('SCAN_MODE=gate', () => {
  it('serves a file pending its scan to no visitor (409 SCAN_PENDING), but to its owner, until it is clean', async () => {
    const file = await put('waiting.txt', 'waiting for its scan');
    const other = await put('clean.txt', 'clean already');
    const link = pathOf(await makeLink(owner.auth, file.id));
    const collection = await makeCollection(owner.auth, { name: 'Mixed', fileIds: [file.id, other.id] });
    const made = await call(`/api/v2/collections/${collection.id}/links`, json({}, owner.auth));
    const collectionPath = new URL(((await made.json()) as { data: { url: string } }).data.url).pathname;
    await pending(file.id);
    expect(await scanOf(file.id)).toEqual({ status: 'pending', signature: null, at: expect.any(String) });

    for (const url of [`/share/${file.token}/download`, `${link}/download`, `${collectionPath}/files/${file.id}`]) {
      await expectPending(await call(url, {}, GATE), '30', url);
    }
    const page = await call(`/share/${file.token}`, { headers: HTML }, GATE);
    expect(page.status).toBe(409);
    expect(await page.text()).toContain('being checked');
    // The collection's visitors get the members that passed; its owner gets them all.
    const zip = await call(`${collectionPath}/archive.zip`, {}, GATE);
    expect(readArchive(await bytesOf(zip)).members.map(({ entry }) => entry.name)).toEqual(['clean.txt']);
    const own = await archive(owner.auth, collection.id, {}, 'GET', GATE);
    expect(readArchive(await bytesOf(own)).members.map(({ entry }) => entry.name)).toEqual([
      'waiting.txt',
      'clean.txt',
    ]);
    const mine = await call(`/api/v2/files/${file.id}/download`, { headers: owner.auth }, GATE);
    expect(await bodySha256(mine)).toBe(file.sha256);
    // Served at once when scanning does not gate: async, or no scanner at all.
    expect((await call(`/share/${file.token}/download`, {}, { SCANNER, SCAN_MODE: 'async' })).status).toBe(200);
    expect((await call(`/share/${file.token}/download`)).status).toBe(200);

    await scanned(file.id, 'clean');
    expect(await scanOf(file.id)).toEqual({ status: 'clean', signature: null, at: expect.any(String) });
    const served = await call(`${link}/download`, {}, GATE);
    expect(served.status).toBe(200);
    expect(await bodySha256(served)).toBe(file.sha256);
  });

  it('holds a file its scan could not clear (too large, an error) until an operator releases it', async () => {
    for (const status of ['too_large', 'error'] as const) {
      const file = await put(`${status}.txt`, `not cleared: ${status}`);
      await pending(file.id);
      await scanned(file.id, status);
      await expectPending(await call(`/share/${file.token}/download`, {}, GATE), '3600', status);
      const page = await call(`/share/${file.token}`, { headers: HTML }, GATE);
      expect(await page.text()).toContain('held for review');
      expect((await call(`/api/v2/files/${file.id}/download`, { headers: owner.auth }, GATE)).status).toBe(200);
      expect(await release(file.id)).toMatchObject({ moderation: null, scan: { status } });
      const served = await call(`/share/${file.token}/download`, {}, GATE);
      expect(served.status, status).toBe(200);
      expect(await bodySha256(served)).toBe(file.sha256);
    }
  });

  it('gates files from file requests by SCAN_REQUEST_UPLOADS: gate by default once SCANNER is set', async () => {
    const request = await makeRequest(owner.auth);
    const sent = await send(request, [textFile('stranger.txt')]);
    expect(sent.status).toBe(201);
    const received = await env.DB.prepare('SELECT id FROM files WHERE request_id = ?1')
      .bind(request.id)
      .first<{ id: string }>();
    const fileId = received?.id ?? '';
    const link = `${pathOf(await makeLink(owner.auth, fileId))}/download`;
    const mine = await put('mine.txt', 'uploaded with a key');
    await Promise.all([pending(fileId), pending(mine.id)]);
    // SCAN_MODE is off, SCANNER set: a stranger's file waits, the owner's own upload does not.
    await expectPending(await call(link, {}, { SCANNER }), '30', 'request upload');
    expect((await call(`/share/${mine.token}/download`, {}, { SCANNER })).status).toBe(200);
    expect((await call(link, {}, { SCANNER, SCAN_REQUEST_UPLOADS: 'async' })).status).toBe(200);
  });
});

const verify = (secret: string, delivery: Received) =>
  new Webhook(secret).verify(delivery.body, {
    'webhook-id': delivery.headers.get('webhook-id') ?? '',
    'webhook-timestamp': delivery.headers.get('webhook-timestamp') ?? '',
    'webhook-signature': delivery.headers.get('webhook-signature') ?? '',
  }) as { type: string; data: Record<string, unknown> };

describe('an infected file', () => {
  it('is quarantined with the statement malware: <signature>, and its owner and the operator hear of it', async () => {
    const hook = receiver();
    const webhook = await createWebhook(owner.auth, hook.url, ['file.scanned', 'file.quarantined']);
    const file = await put('eicar.txt', 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR');
    await pending(file.id);
    const row = await scanned(file.id, 'infected', 'Eicar-Test-Signature');
    const statement = 'malware: Eicar-Test-Signature';
    expect(row).toMatchObject({ moderation_state: 'quarantined', moderation_statement: statement });
    await expect451(await call(`/share/${file.token}/download`), statement);
    await expect451(await call(`/api/v2/files/${file.id}/download`, { headers: owner.auth }), statement);

    // This file's, by type: the owner's earlier files' notices may still be on their way.
    const scannedNotice = await waitFor(
      () => ofType(hook.calls(), 'file.scanned').find((c) => payloadOf(c).data.file?.id === file.id),
      'the owner’s file.scanned',
    );
    const quarantined = await waitFor(
      () => ofType(hook.calls(), 'file.quarantined').find((c) => payloadOf(c).data.file?.id === file.id),
      'the owner’s file.quarantined',
    );
    const scan = { status: 'infected', signature: 'Eicar-Test-Signature', at: expect.any(String) };
    expect(verify(webhook.secret, scannedNotice).data).toMatchObject({ file: { id: file.id }, scan });
    expect(verify(webhook.secret, quarantined).data).toMatchObject({
      statement,
      file: { id: file.id, moderation: { state: 'quarantined', statement } },
    });

    const toOperator = await waitFor(
      () => callsTo('operator.hooks.test').find((call) => payloadOf(call).data.file?.id === file.id),
      'the operator’s notice',
    );
    const body = verify(env.OPERATOR_WEBHOOK_SECRET ?? '', toOperator);
    expect(body).toMatchObject({ type: 'file.scanned', data: { accountId: owner.id, file: { id: file.id }, scan } });
    expect(() => verify(webhook.secret, toOperator)).toThrow();
  });
});
