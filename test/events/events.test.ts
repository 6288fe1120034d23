// Each event reaches the account's webhooks once per cause, through the real local queue and
// consumer, signed so that an independent Standard Webhooks implementation verifies it.
import { env } from 'cloudflare:test';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/responses';
import { runCron } from '../helpers/storage';
import { form, PNG_1X1, uploadOk } from '../helpers/upload';
import {
  createWebhook,
  deliveriesOf,
  interceptReceivers,
  ofType,
  payloadOf,
  type Received,
  receiver,
  settle,
  waitFor,
} from '../helpers/webhooks';
import { call, createKey } from '../helpers/worker';

beforeAll(() => interceptReceivers());

const verify = (secret: string, delivery: Received) =>
  new Webhook(secret).verify(delivery.body, {
    'webhook-id': delivery.headers.get('webhook-id') ?? '',
    'webhook-timestamp': delivery.headers.get('webhook-timestamp') ?? '',
    'webhook-signature': delivery.headers.get('webhook-signature') ?? '',
  });

async function setup(events: string[] = ['*']) {
  const key = await createKey('webhook events');
  const hook = receiver();
  const webhook = await createWebhook(key.auth, hook.url, events);
  return { key, hook, webhook };
}

describe('file.uploaded', () => {
  it('reaches the webhook once, signed: the standardwebhooks library verifies it', async () => {
    const { key, hook, webhook } = await setup();
    const file = await uploadOk(
      'v2',
      key.auth,
      { filename: 'report.txt', content: 'hello' },
      { fields: { isPublic: 'false' } },
    );
    const [delivery] = await waitFor(() => (hook.calls().length > 0 ? hook.calls() : undefined), 'the delivery');
    if (!delivery) throw new Error('no delivery');
    const body = verify(webhook.secret, delivery) as {
      type: string;
      timestamp: string;
      data: { file: Record<string, unknown> };
    };
    expect(body.type).toBe('file.uploaded');
    expect(body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(body.data.file).toMatchObject({
      id: file.id,
      originalName: 'report.txt',
      size: 5,
      isPublic: false,
      downloadCount: 0,
    });
    // No share token, no URL: a private file's link never leaves in an event.
    expect(delivery.body).not.toContain('/share/');
    expect(delivery.headers.get('content-type')).toBe('application/json');
    expect(delivery.redirect).toBe('manual');
    // A tampered body or another secret does not verify.
    expect(() => verify(webhook.secret, { ...delivery, body: delivery.body.replace('report', 'rep0rt') })).toThrow();
    expect(() => verify(`whsec_${btoa('x'.repeat(32))}`, delivery)).toThrow();

    await settle();
    expect(hook.calls()).toHaveLength(1);
    const [record] = await deliveriesOf(key.auth, webhook.id);
    expect(record).toMatchObject({
      type: 'file.uploaded',
      status: 'delivered',
      attempts: 1,
      lastStatusCode: 200,
      nextAttemptAt: null,
    });
    expect(record?.id).toBe(delivery.headers.get('webhook-id'));
  });

  it('fires once per file of a bulk upload, and for the v1 upload', async () => {
    const { key, hook } = await setup(['file.uploaded']);
    const body = form(
      ['a.txt', 'b.txt', 'c.txt'].map((filename) => ({
        name: 'files',
        filename,
        type: 'text/plain',
        content: filename,
      })),
    );
    const response = await call(api('v2', '/upload/bulk'), { method: 'POST', headers: key.auth, body });
    expect(response.status).toBe(201);
    await uploadOk('v1', key.auth, { filename: 'd.txt' });
    await waitFor(() => hook.calls().length >= 4, 'four deliveries');
    await settle();
    const names = hook.calls().map((c) => payloadOf(c).data.file?.originalName);
    expect(names.sort()).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt']);
  });

  it('fires when a tus upload completes, not before', async () => {
    const { key, hook } = await setup(['file.uploaded']);
    const metadata = `filename ${btoa('tus.png')},filetype ${btoa('image/png')}`;
    const created = await call(api('v2', '/uploads'), {
      method: 'POST',
      headers: {
        ...key.auth,
        'Tus-Resumable': '1.0.0',
        'Upload-Length': String(PNG_1X1.length),
        'Upload-Metadata': metadata,
      },
    });
    expect(created.status).toBe(201);
    const location = created.headers.get('location') ?? '';
    const half = Math.floor(PNG_1X1.length / 2);
    const patch = (offset: number, bytes: Uint8Array) =>
      call(location, {
        method: 'PATCH',
        headers: {
          ...key.auth,
          'Tus-Resumable': '1.0.0',
          'Upload-Offset': String(offset),
          'Content-Type': 'application/offset+octet-stream',
        },
        body: bytes,
      });
    expect((await patch(0, PNG_1X1.slice(0, half))).status).toBe(204);
    await settle(1500);
    expect(hook.calls()).toHaveLength(0);
    const done = await patch(half, PNG_1X1.slice(half));
    expect(done.status).toBe(204);
    await waitFor(() => hook.calls().length > 0, 'the delivery');
    await settle();
    expect(hook.calls().map((c) => payloadOf(c).data.file?.originalName)).toEqual(['tus.png']);
  });

  it('fires once for a tus final upload (concatenation), never for its partial uploads', async () => {
    const { key, hook } = await setup(['file.uploaded']);
    const tus = { ...key.auth, 'Tus-Resumable': '1.0.0' };
    const halves = [PNG_1X1.slice(0, 40), PNG_1X1.slice(40)];
    const urls: string[] = [];
    for (const half of halves) {
      const created = await call(api('v2', '/uploads'), {
        method: 'POST',
        headers: {
          ...tus,
          'Upload-Length': String(half.length),
          'Upload-Concat': 'partial',
          'Content-Type': 'application/offset+octet-stream',
        },
        body: half,
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('upload-offset')).toBe(String(half.length));
      urls.push(created.headers.get('location') ?? '');
    }
    await settle(1500);
    expect(hook.calls()).toHaveLength(0);
    const final = await call(api('v2', '/uploads'), {
      method: 'POST',
      headers: {
        ...tus,
        'Upload-Concat': `final;${urls.join(' ')}`,
        'Upload-Metadata': `filename ${btoa('joined.png')},filetype ${btoa('image/png')}`,
      },
    });
    expect(final.status).toBe(201);
    await waitFor(() => hook.calls().length > 0, 'the delivery');
    await settle();
    const files = hook.calls().map((c) => payloadOf(c).data.file);
    expect(files.map((file) => [file?.id, file?.originalName, file?.size])).toEqual([
      [final.headers.get('x-file-id'), 'joined.png', PNG_1X1.length],
    ]);
  });
});

describe('file.deleted', () => {
  it('fires once for a single delete and once per file of a bulk delete', async () => {
    const { key, hook } = await setup(['file.deleted']);
    const [one, two, three] = await Promise.all(
      ['1.txt', '2.txt', '3.txt'].map((filename) => uploadOk('v2', key.auth, { filename })),
    );
    expect((await call(api('v1', `/files/${one?.id}`), { method: 'DELETE', headers: key.auth })).status).toBe(200);
    const bulk = await call(api('v2', '/files/bulk'), {
      method: 'DELETE',
      headers: { ...key.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ ids: [two?.id, three?.id, two?.id, 'unknown-id'] }),
    });
    expect(bulk.status).toBe(200);
    // A second delete of a gone file is a 404 and no event.
    expect((await call(api('v2', `/files/${one?.id}`), { method: 'DELETE', headers: key.auth })).status).toBe(404);
    await waitFor(() => hook.calls().length >= 3, 'three deliveries');
    await settle();
    expect(
      hook
        .calls()
        .map((c) => payloadOf(c).data.file?.id)
        .sort(),
    ).toEqual([one?.id, two?.id, three?.id].sort());
    expect(hook.calls().every((c) => payloadOf(c).type === 'file.deleted')).toBe(true);
  });
});

describe('file.downloaded', () => {
  it('fires for each counted owner download (200, 206 of the whole file), never for HEAD, 304 or a partial range', async () => {
    const { key, hook } = await setup(['file.downloaded']);
    const file = await uploadOk('v2', key.auth, { filename: 'dl.txt', content: 'downloadable bytes' });
    const url = api('v2', `/files/${file.id}/download`);
    expect((await call(url, { headers: key.auth })).status).toBe(200);
    expect((await call(url, { method: 'HEAD', headers: key.auth })).status).toBe(200);
    // From byte 0 but not to the end: no download, however often.
    for (const range of ['bytes=0-3', 'bytes=0-0', 'bytes=0-0', 'bytes=0-0']) {
      expect((await call(url, { headers: { ...key.auth, Range: range } })).status).toBe(206);
    }
    expect((await call(url, { headers: { ...key.auth, Range: 'bytes=0-' } })).status).toBe(206);
    expect((await call(url, { headers: { ...key.auth, Range: 'bytes=5-9' } })).status).toBe(206);
    const etag = (await call(url, { method: 'HEAD', headers: key.auth })).headers.get('etag') ?? '';
    expect((await call(url, { headers: { ...key.auth, 'If-None-Match': etag } })).status).toBe(304);
    await waitFor(() => hook.calls().length >= 2, 'two deliveries');
    await settle();
    const bodies = hook.calls().map(payloadOf);
    expect(bodies).toHaveLength(2);
    expect(bodies.map((b) => b.data.via)).toEqual(['owner', 'owner']);
    expect(bodies.map((b) => b.data.file?.downloadCount).sort()).toEqual([1, 2]);
  });

  it('fires for a download through the file’s default share link, not for the share page or its preview', async () => {
    const { key, hook } = await setup(['file.downloaded']);
    const file = await uploadOk('v2', key.auth, { filename: 'shared.txt', content: 'shared bytes' });
    const token = new URL(file.shareUrl).pathname.split('/').pop();
    expect((await call(`/share/${token}`)).status).toBe(200);
    expect((await call(`/share/${token}/view`)).status).toBe(200);
    expect((await call(`/share/${token}/download`)).status).toBe(200);
    await waitFor(() => hook.calls().length >= 1, 'the delivery');
    await settle();
    expect(hook.calls()).toHaveLength(1);
    const [body] = hook.calls().map(payloadOf);
    expect(body?.data).toMatchObject({ via: 'share', file: { id: file.id, downloadCount: 1 } });
  });
});

describe('file.expired', () => {
  it('fires once per file the sweep deletes, however often it runs', async () => {
    const { key, hook } = await setup(['file.expired']);
    const file = await uploadOk('v2', key.auth, { filename: 'soon.txt' }, { fields: { expiresIn: '60' } });
    await env.DB.prepare('UPDATE files SET expires_at = ?1 WHERE id = ?2')
      .bind(new Date(Date.now() - 1000).toISOString(), file.id)
      .run();
    await runCron();
    await runCron();
    await waitFor(() => hook.calls().length >= 1, 'the delivery');
    await settle();
    expect(hook.calls()).toHaveLength(1);
    expect(payloadOf(hook.calls()[0] as Received)).toMatchObject({
      type: 'file.expired',
      data: { file: { id: file.id } },
    });
  });
});

describe('who gets what', () => {
  it('sends an account only its own events, and only the types each webhook chose', async () => {
    const { key, hook } = await setup(['file.deleted']);
    const other = await setup(['*']);
    const everything = receiver();
    await createWebhook(key.auth, everything.url, ['*']);
    const file = await uploadOk('v2', key.auth, {});
    await call(api('v2', `/files/${file.id}`), { method: 'DELETE', headers: key.auth });
    await waitFor(() => everything.calls().length >= 2 && hook.calls().length >= 1, 'the deliveries');
    await settle();
    expect(ofType(everything.calls(), 'file.uploaded')).toHaveLength(1);
    expect(ofType(everything.calls(), 'file.deleted')).toHaveLength(1);
    expect(hook.calls().map((c) => payloadOf(c).type)).toEqual(['file.deleted']);
    expect(other.hook.calls()).toHaveLength(0);
  });
});
