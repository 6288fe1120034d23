// Events from the sharing features: downloads through made share links (file.downloaded,
// link.exhausted) and files received through file requests (request.received, request.full),
// each once per cause, through the real local queue and consumer.
import { beforeAll, describe, expect, it } from 'vitest';
import { basic as linkBasic, makeLink, owner, pathOf } from '../helpers/links';
import { basic, makeRequest, newOwner, send, textFile } from '../helpers/requests';
import { base64, OCTETS, TUS } from '../helpers/tus';
import {
  createWebhook,
  interceptReceivers,
  ofType,
  payloadOf,
  type Received,
  receiver,
  settle,
  waitFor,
} from '../helpers/webhooks';
import { call } from '../helpers/worker';

beforeAll(() => interceptReceivers());

const dataOf = (delivery: Received | undefined) =>
  (delivery ? payloadOf(delivery).data : {}) as Record<string, unknown>;

describe('made share links', () => {
  it('a counted download through a link is file.downloaded via link; HEAD, partial ranges and the preview are not', async () => {
    const file = await owner({ filename: 'shared.txt', content: 'hello links' }, 'false');
    const hook = receiver();
    await createWebhook(file.auth, hook.url, ['file.downloaded', 'link.exhausted']);
    const link = await makeLink(file.auth, file.fileId, { password: 'correct horse' });
    const download = `${pathOf(link)}/download`;
    expect((await call(download, { headers: linkBasic('correct horse') })).status).toBe(200);
    expect((await call(download, { headers: { ...linkBasic('correct horse'), Range: 'bytes=0-' } })).status).toBe(206);
    // None of these counts.
    for (let i = 0; i < 3; i++) {
      const probe = await call(download, { headers: { ...linkBasic('correct horse'), Range: 'bytes=0-0' } });
      expect(probe.status).toBe(206);
    }
    expect((await call(download, { headers: { ...linkBasic('correct horse'), Range: 'bytes=0-1' } })).status).toBe(206);
    expect((await call(download, { method: 'HEAD', headers: linkBasic('correct horse') })).status).toBe(200);
    expect((await call(download, { headers: { ...linkBasic('correct horse'), Range: 'bytes=3-4' } })).status).toBe(206);
    expect((await call(`${pathOf(link)}/view`, { headers: linkBasic('correct horse') })).status).toBe(200);
    expect((await call(download, { headers: linkBasic('wrong') })).status).toBe(401);

    await waitFor(() => hook.calls().length >= 2, 'two deliveries');
    await settle();
    const downloads = ofType(hook.calls(), 'file.downloaded');
    expect(downloads).toHaveLength(2);
    for (const delivery of downloads) {
      expect(dataOf(delivery)).toMatchObject({
        via: 'link',
        linkId: link.id,
        file: { id: file.fileId, originalName: 'shared.txt', isPublic: false },
      });
      // Neither the link's token nor the default link's leaves in an event.
      expect(delivery.body).not.toContain('/share/');
      expect(delivery.body).not.toContain(pathOf(link).split('/').pop() ?? '');
    }
    expect(ofType(hook.calls(), 'link.exhausted')).toHaveLength(0);
  });

  it('link.exhausted fires once, from the download that reaches maxDownloads, however many arrive at once', async () => {
    const file = await owner({ filename: 'capped.txt', content: 'capped' });
    const hook = receiver();
    await createWebhook(file.auth, hook.url, ['*']);
    const link = await makeLink(file.auth, file.fileId, { maxDownloads: 3 });
    const download = `${pathOf(link)}/download`;
    const statuses = await Promise.all(
      Array.from({ length: 8 }, () =>
        call(download).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 404)).toHaveLength(5);
    // Refused requests after the cap change nothing.
    expect((await call(download)).status).toBe(404);

    // Waited for in full: the downloads' events can come in a later batch than link.exhausted.
    await waitFor(
      () => ofType(hook.calls(), 'link.exhausted').length > 0 && ofType(hook.calls(), 'file.downloaded').length >= 3,
      'link.exhausted and three file.downloaded',
    );
    await settle();
    const exhausted = ofType(hook.calls(), 'link.exhausted');
    expect(exhausted).toHaveLength(1);
    expect(dataOf(exhausted[0])).toEqual({ linkId: link.id, fileId: file.fileId });
    expect(ofType(hook.calls(), 'file.downloaded')).toHaveLength(3);
  });
});

describe('file requests', () => {
  it('request.received once per file (multipart and tus), request.full once when maxFiles is reached', async () => {
    const key = await newOwner();
    const hook = receiver();
    await createWebhook(key.auth, hook.url, ['request.received', 'request.full']);
    const request = await makeRequest(key.auth, { maxFiles: 4, password: 'open sesame' });
    const auth = basic('open sesame');
    const first = await send(request, [textFile('a.txt'), textFile('b.txt')], { headers: auth });
    expect(first.status).toBe(201);
    // The third slot is filled by a tus upload.
    const created = await call(request.tusUrl, {
      method: 'POST',
      headers: {
        ...TUS,
        ...auth,
        'Upload-Length': '5',
        'Upload-Metadata': `filename ${base64('d.txt')},filetype ${base64('text/plain')}`,
      },
    });
    expect(created.status).toBe(201);
    const location = created.headers.get('location') ?? '';
    const patched = await call(location, {
      method: 'PATCH',
      headers: { ...TUS, ...OCTETS, ...auth, 'Upload-Offset': '0' },
      body: 'dddd!',
    });
    expect(patched.status).toBe(204);
    // A client resuming the finished upload with nothing left to send: complete again, no new event.
    const resumed = await call(location, {
      method: 'PATCH',
      headers: { ...TUS, ...OCTETS, ...auth, 'Upload-Offset': '5' },
      body: '',
    });
    expect(resumed.status).toBe(204);
    // The fourth slot is filled by a raw PUT: the request is full.
    const raw = await call(`${request.uploadUrl}/c.txt`, {
      method: 'PUT',
      headers: { ...auth, 'Content-Type': 'text/plain', 'Content-Length': '3' },
      body: 'ccc',
    });
    expect(raw.status).toBe(201);
    // Full now: refused, and no event for it.
    expect((await send(request, [textFile('e.txt')], { headers: auth })).status).toBe(410);

    // Waited for in full: the earlier uploads' events can come in a later batch than request.full.
    await waitFor(
      () => ofType(hook.calls(), 'request.full').length > 0 && ofType(hook.calls(), 'request.received').length >= 4,
      'request.full and four request.received',
    );
    await settle();
    const received = ofType(hook.calls(), 'request.received');
    expect(received.map((d) => (dataOf(d).file as { originalName: string }).originalName).sort()).toEqual([
      'a.txt',
      'b.txt',
      'c.txt',
      'd.txt',
    ]);
    for (const delivery of received) {
      expect(dataOf(delivery)).toMatchObject({ requestId: request.id, file: { requestId: request.id } });
      expect((dataOf(delivery).file as { sha256: string }).sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(delivery.body).not.toContain('/share/');
      expect(delivery.body).not.toContain('/r/');
    }
    const full = ofType(hook.calls(), 'request.full');
    expect(full).toHaveLength(1);
    expect(dataOf(full[0])).toMatchObject({ requestId: request.id, fileCount: 4 });
  });

  it('request.full fires once when uploads reach maxBytes, and not again for the refused ones', async () => {
    const key = await newOwner();
    const hook = receiver();
    await createWebhook(key.auth, hook.url, ['request.full', 'request.received']);
    const request = await makeRequest(key.auth, { maxFiles: 50, maxBytes: 64 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await send(request, [textFile(`f${i}.txt`, 16)])).status);
    expect(statuses.slice(0, 4)).toEqual([201, 201, 201, 201]);
    expect(statuses.slice(4).every((s) => s === 410 || s === 413)).toBe(true);
    await waitFor(
      () => ofType(hook.calls(), 'request.full').length > 0 && ofType(hook.calls(), 'request.received').length >= 4,
      'request.full and four request.received',
    );
    await settle();
    expect(ofType(hook.calls(), 'request.full')).toHaveLength(1);
    expect(ofType(hook.calls(), 'request.received')).toHaveLength(4);
  });
});
