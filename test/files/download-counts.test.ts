// What a download is, on every path that counts one: an answer that carries the whole file or
// archive (a 200, or a 206 from byte 0 to the end). A range that starts at byte 0 and stops short
// (`bytes=0-0`, a download manager's probe), asked again and again, counts nothing and fires no
// event. Through the Worker's fetch with a real client's Accept-Encoding; events through the
// real local queue and consumer.
import { beforeAll, describe, expect, it } from 'vitest';
import { json, makeCollection, uploadFile } from '../collections/collection-helpers';
import { getRecord } from '../helpers/files';
import { flush, type LinkRecord, makeLink, pathOf, readLink } from '../helpers/links';
import { type ApiVersion, api, VERSIONS } from '../helpers/responses';
import { uploadOk } from '../helpers/upload';
import { createWebhook, interceptReceivers, ofType, payloadOf, receiver, settle, waitFor } from '../helpers/webhooks';
import { call, createKey, flushDefaultLink } from '../helpers/worker';

beforeAll(() => interceptReceivers());

const CLIENT = { 'Accept-Encoding': 'gzip, br' };
const CONTENT = 'abcdefghijklmnopqrstuvwxyz0123456789';
const SIZE = CONTENT.length;

/**
 * Asks `url` for `bytes=0-0` three times (none counts), then for the whole of its `size` bytes
 * three ways: `bytes=0-`, `bytes=0-<size-1>`, no range (each counts). `between` runs after the
 * probes, to read the count then.
 */
async function probeThenDownload(
  url: string,
  size: number,
  headers: Record<string, string>,
  between: () => Promise<void>,
): Promise<void> {
  for (let i = 0; i < 3; i++) {
    const probe = await call(url, { headers: { ...CLIENT, ...headers, Range: 'bytes=0-0' } });
    expect(probe.status, `probe ${i + 1}`).toBe(206);
    expect((await probe.arrayBuffer()).byteLength).toBe(1);
  }
  await between();
  for (const range of ['bytes=0-', `bytes=0-${size - 1}`, undefined]) {
    const response = await call(url, { headers: { ...CLIENT, ...headers, ...(range ? { Range: range } : {}) } });
    expect(response.status, range ?? 'no range').toBe(range ? 206 : 200);
    expect((await response.arrayBuffer()).byteLength, range ?? 'no range').toBe(size);
  }
}

/** An account with a webhook on both download events, and one file. */
async function account() {
  const key = await createKey('counts');
  const hook = receiver();
  await createWebhook(key.auth, hook.url, ['file.downloaded', 'collection.downloaded']);
  const file = await uploadOk('v2', key.auth, { filename: 'whole.txt', content: CONTENT });
  return { ...key, hook, file };
}

/** The events of `type` once `count` of them arrived and the queue went quiet. */
async function eventsOf(hook: ReturnType<typeof receiver>, type: string, count: number) {
  await waitFor(() => ofType(hook.calls(), type).length >= count, `${count} ${type}`);
  await settle();
  return ofType(hook.calls(), type).map((delivery) => payloadOf(delivery).data as Record<string, unknown>);
}

describe.each(VERSIONS)('the owner’s download (%s)', (version: ApiVersion) => {
  it('counts only whole answers: bytes=0-0 three times is no download and no file.downloaded', async () => {
    const { auth, hook, file } = await account();
    const count = async () => (await getRecord(auth, file.id, version)).downloadCount;
    await probeThenDownload(api(version, `/files/${file.id}/download`), SIZE, auth, async () => {
      expect(await count()).toBe(0);
    });
    expect(await count()).toBe(3);
    const events = await eventsOf(hook, 'file.downloaded', 3);
    expect(events).toHaveLength(3);
    expect(events.map((data) => data.via)).toEqual(['owner', 'owner', 'owner']);
  });
});

describe('share links', () => {
  it('counts only whole answers through a file’s default link', async () => {
    const { auth, hook, file } = await account();
    const path = new URL(file.shareUrl).pathname;
    const count = async () => {
      await flushDefaultLink(file.id);
      return (await getRecord(auth, file.id, 'v2')).downloadCount;
    };
    await probeThenDownload(`${path}/download`, SIZE, {}, async () => {
      expect(await count()).toBe(0);
    });
    expect(await count()).toBe(3);
    const events = await eventsOf(hook, 'file.downloaded', 3);
    expect(events).toHaveLength(3);
    expect(events.map((data) => data.via)).toEqual(['share', 'share', 'share']);
  });

  it('counts only whole answers through a made link, for the link and for its file', async () => {
    const { auth, hook, file } = await account();
    const link = await makeLink(auth, file.id);
    await probeThenDownload(`${pathOf(link)}/download`, SIZE, {}, async () => {
      expect((await readLink(auth, link.id)).downloadCount).toBe(0);
    });
    expect((await readLink(auth, link.id)).downloadCount).toBe(3);
    await flush(link.id);
    expect((await getRecord(auth, file.id, 'v2')).downloadCount).toBe(3);
    const events = await eventsOf(hook, 'file.downloaded', 3);
    expect(events).toHaveLength(3);
    for (const data of events) expect(data).toMatchObject({ via: 'link', linkId: link.id });
  });
});

describe('collections', () => {
  async function collection() {
    const owner = await account();
    const other = await uploadFile(owner.auth, 'other.txt', 'another file');
    const made = await makeCollection(owner.auth, { name: 'Counted', fileIds: [owner.file.id, other.id] });
    const response = await call(`/api/v2/collections/${made.id}/links`, json({}, owner.auth));
    expect(response.status).toBe(201);
    const link = ((await response.json()) as { data: LinkRecord }).data;
    const head = await call(`${pathOf(link)}/archive.zip`, { method: 'HEAD', headers: CLIENT });
    return { ...owner, made, link, length: Number(head.headers.get('content-length')) };
  }

  it('counts only whole ZIPs through a collection link: no collection.downloaded for bytes=0-0', async () => {
    const { auth, hook, link, length, made } = await collection();
    expect(length).toBeGreaterThan(SIZE);
    await probeThenDownload(`${pathOf(link)}/archive.zip`, length, {}, async () => {
      expect((await readLink(auth, link.id)).downloadCount).toBe(0);
    });
    expect((await readLink(auth, link.id)).downloadCount).toBe(3);
    const events = await eventsOf(hook, 'collection.downloaded', 3);
    expect(events).toHaveLength(3);
    for (const data of events) expect(data).toMatchObject({ collectionId: made.id, via: 'link', linkId: link.id });
  });

  it('counts only whole members through a collection link, for the link and for the file', async () => {
    const { auth, hook, link, file } = await collection();
    await probeThenDownload(`${pathOf(link)}/files/${file.id}`, SIZE, {}, async () => {
      expect((await readLink(auth, link.id)).downloadCount).toBe(0);
    });
    expect((await readLink(auth, link.id)).downloadCount).toBe(3);
    await flushDefaultLink(file.id);
    expect((await getRecord(auth, file.id, 'v2')).downloadCount).toBe(3);
    const events = await eventsOf(hook, 'file.downloaded', 3);
    expect(events).toHaveLength(3);
    for (const data of events) expect(data).toMatchObject({ via: 'link', linkId: link.id });
  });

  it('counts only whole ZIPs of the owner’s archive: collection.downloaded fires for those alone', async () => {
    const { auth, hook, made, length } = await collection();
    await probeThenDownload(`/api/v2/collections/${made.id}/archive`, length, auth, async () => {
      await settle();
      expect(ofType(hook.calls(), 'collection.downloaded')).toHaveLength(0);
    });
    const events = await eventsOf(hook, 'collection.downloaded', 3);
    expect(events).toHaveLength(3);
    for (const data of events) expect(data).toMatchObject({ collectionId: made.id, via: 'owner' });
  });
});
