// collection.downloaded: one event per counted download of a collection's ZIP (a GET answered
// 200, or 206 from byte 0 to the end), through the real local queue and consumer. HEAD, 304 and
// ranges short of the whole archive are not downloads.
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/event-types';
import { createWebhook, interceptReceivers, ofType, payloadOf, receiver, settle, waitFor } from '../helpers/webhooks';
import { account, archive, makeCollection, uploadFile } from './collection-helpers';

beforeAll(() => interceptReceivers());

describe('collection.downloaded', () => {
  it('is an event type webhooks can subscribe to', () => {
    expect(EVENT_TYPES).toContain('collection.downloaded');
  });

  it('fires once per counted owner download of the archive, with the collection and its members', async () => {
    const owner = await account('events');
    const a = await uploadFile(owner.auth, 'a.txt', 'aaaa');
    const b = await uploadFile(owner.auth, 'b.txt', 'bb');
    const made = await makeCollection(owner.auth, { name: 'Downloads', fileIds: [b.id, a.id] });
    const hook = receiver();
    await createWebhook(owner.auth, hook.url, ['collection.downloaded']);

    const whole = await archive(owner.auth, made.id);
    const length = (await whole.arrayBuffer()).byteLength;
    const etag = whole.headers.get('etag') ?? '';
    const fromZero = await archive(owner.auth, made.id, { Range: 'bytes=0-' });
    expect(fromZero.status).toBe(206);
    await fromZero.arrayBuffer();
    // None of these is a download.
    const partial = [{ Range: 'bytes=0-9' }, { Range: 'bytes=0-0' }, { Range: 'bytes=0-0' }, { Range: 'bytes=10-19' }];
    for (const headers of [...partial, { 'If-None-Match': etag }] as Record<string, string>[]) {
      const response = await archive(owner.auth, made.id, headers);
      expect([206, 304]).toContain(response.status);
      await response.arrayBuffer();
    }
    expect((await archive(owner.auth, made.id, {}, 'HEAD')).status).toBe(200);

    await waitFor(() => ofType(hook.calls(), 'collection.downloaded').length >= 2, 'two events');
    await settle();
    const events = ofType(hook.calls(), 'collection.downloaded');
    expect(events).toHaveLength(2);
    for (const event of events) {
      expect(payloadOf(event).data).toEqual({
        collectionId: made.id,
        name: 'Downloads',
        fileIds: [b.id, a.id],
        fileCount: 2,
        size: length,
        via: 'owner',
      });
    }
  });
});
